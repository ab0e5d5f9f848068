// A notification's story in time order: created, each delivery attempt, sent, and its outcome
// (delivered, failed, bounced, opened, suppressed), from the detail record's timestamps.
import type { Notification } from "../../../client";
import { Badge, Time } from "../ui/format";

interface Step {
  at: string;
  label: string;
  tone: string;
  note?: string;
}

export function timelineOf(n: Notification): Step[] {
  const steps: Step[] = [];
  const add = (at: string | null, label: string, tone: string, note?: string) => at && steps.push({ at, label, tone, note });
  add(n.created_at, "Created", "pending", "accepted by the API, queued for delivery");
  for (const a of n.attempts) {
    const err = a.error as { message?: string } | null;
    add(a.created_at, `Attempt ${a.attempt_number}`, a.status === "success" ? "success" : "failure", [a.provider, a.status === "success" ? "accepted" : err?.message].filter(Boolean).join(": "));
  }
  add(n.sent_at, "Sent", "sent", n.provider ? `accepted by ${n.provider}` : undefined);
  add(n.delivered_at, "Delivered", "delivered");
  add(n.bounced_at, "Bounced", "bounced");
  add(n.failed_at, "Failed", "failed", (n.error as { message?: string } | null)?.message);
  add(n.opened_at, "Opened", "delivered");
  if (n.status === "suppressed") add(n.updated_at, "Suppressed", "suppressed", n.suppressed_reason ?? undefined);
  // stable: equal timestamps keep the order above (an attempt before the sent it caused)
  return steps.map((s, i) => ({ s, i })).sort((a, b) => a.s.at.localeCompare(b.s.at) || a.i - b.i).map(({ s }) => s);
}

export function StatusTimeline({ notification }: { notification: Notification }) {
  const steps = timelineOf(notification);
  return (
    <ol class="timeline">
      {steps.map((s, i) => (
        <li key={i}>
          <Badge value={s.tone}>{s.label}</Badge> <Time iso={s.at} />
          {s.note ? <span class="timeline-note"> {s.note}</span> : null}
        </li>
      ))}
      {notification.status === "pending" ? (
        <li class="muted" aria-live="polite">
          Waiting for the next delivery step…
        </li>
      ) : null}
    </ol>
  );
}
