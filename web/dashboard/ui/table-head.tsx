// A table's column headings: scoped for screen readers, numbers right-aligned, and a heading that
// only screen readers see for a column of buttons.
export type Column = string | { label: string; num?: boolean; hidden?: boolean };

export function TableHead({ columns }: { columns: readonly Column[] }) {
  return (
    <thead>
      <tr>
        {columns.map((c) => {
          const col = typeof c === "string" ? { label: c } : c;
          return (
            <th key={col.label} scope="col" class={col.num ? "num" : undefined}>
              {col.hidden ? <span class="visually-hidden">{col.label}</span> : col.label}
            </th>
          );
        })}
      </tr>
    </thead>
  );
}
