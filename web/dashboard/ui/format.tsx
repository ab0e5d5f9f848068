// Small views of values: a timestamp as <time>, a status as a labelled badge, JSON as a block.
import type { ComponentChildren } from "preact";

const DATE_TIME = new Intl.DateTimeFormat(undefined, {
  year: "numeric",
  month: "short",
  day: "2-digit",
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
});

export function Time({ iso, fallback = "—" }: { iso: string | null | undefined; fallback?: string }) {
  if (!iso) return <span class="muted">{fallback}</span>;
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return <span>{iso}</span>;
  return (
    <time dateTime={iso} title={iso}>
      {DATE_TIME.format(d)}
    </time>
  );
}

const TONES: Record<string, string> = {
  delivered: "good",
  success: "good",
  active: "good",
  sent: "info",
  pending: "info",
  draft: "muted",
  failed: "bad",
  failure: "bad",
  bounced: "bad",
  suppressed: "warn",
  revoked: "bad",
  running: "info",
  enqueued: "info",
  completed: "good",
  verified: "good",
  pass: "good",
  fail: "bad",
  missing: "warn",
};

export function Badge({ value, children }: { value: string; children?: ComponentChildren }) {
  return <span class={`badge tone-${TONES[value] ?? "muted"}`}>{children ?? value}</span>;
}

export function Json({ value, label }: { value: unknown; label: string }) {
  const text = value === undefined || value === null ? "—" : JSON.stringify(value, null, 2);
  return (
    <pre class="json" aria-label={label} tabIndex={0}>
      {text}
    </pre>
  );
}
