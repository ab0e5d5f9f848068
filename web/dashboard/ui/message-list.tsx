// A labelled list of the API's validation messages (a template's errors or warnings, a
// translation's warnings); nothing when there are none.
export function MessageList({ items, label, tone }: { items: readonly string[]; label: string; tone: "errors" | "warnings" }) {
  if (!items.length) return null;
  return (
    <ul class={`validation-${tone}`} aria-label={label}>
      {items.map((m) => (
        <li key={m}>{m}</li>
      ))}
    </ul>
  );
}
