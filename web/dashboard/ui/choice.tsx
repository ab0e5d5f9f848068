// A <select> over a fixed list of API values (channels, statuses, roles) with their labels and,
// for filters, an empty "any" choice; onChange gives the value or undefined for "any".
interface ChoiceProps<T extends string> {
  id?: string;
  value: T | undefined;
  choices: readonly T[];
  labels?: Partial<Record<T, string>>;
  /** The label of the empty choice ("Any channel"); without it a value is always chosen. */
  any?: string;
  onChange(value: T | undefined): void;
  disabled?: boolean;
  "aria-label"?: string;
  "aria-describedby"?: string;
}

export function Choice<T extends string>({ value, choices, labels, any, onChange, ...rest }: ChoiceProps<T>) {
  return (
    <select {...rest} value={value ?? ""} onChange={(e) => onChange((e.currentTarget.value || undefined) as T | undefined)}>
      {any !== undefined ? <option value="">{any}</option> : null}
      {choices.map((c) => (
        <option key={c} value={c}>
          {labels?.[c] ?? c}
        </option>
      ))}
    </select>
  );
}
