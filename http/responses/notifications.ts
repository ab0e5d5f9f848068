// API response shape of the notification list item and detail with its attempts and the content as sent: store rows as the routes answer them
// (the TypeBox schemas in schemas/ describe the same shapes for validation and the OpenAPI document).
import { iso } from "../../store/time";
import type { AttemptRow, NotificationRow } from "../../store/notifications";
import { workflowStepOf, type FeedRow } from "../../store/notification-feed";

/**
 * The rendered message as the last attempt sent it (content is rendered once, when the
 * notification is accepted, and every attempt sends the same), under the API's names: subject,
 * title, body, html_body, provider_template_id where the channel has them. Null while no attempt
 * reached a provider (pending, suppressed) and once erasure emptied it.
 */
export function sentContent(r: Pick<NotificationRow, "content">, attempts: readonly unknown[]) {
  if (attempts.length === 0 || !r.content) return null;
  const c = r.content as Record<string, unknown>;
  const text = (k: string) => (typeof c[k] === "string" ? (c[k] as string) : undefined);
  const out: { subject?: string; title?: string; body?: string; html_body?: string; provider_template_id?: string } = {};
  const subject = text("subject");
  const title = text("title");
  const body = text("text") ?? text("content") ?? text("body");
  const html = text("html");
  const providerTemplateId = text("providerTemplateId");
  if (subject !== undefined) out.subject = subject;
  if (title !== undefined) out.title = title;
  if (body !== undefined) out.body = body;
  if (html !== undefined) out.html_body = html;
  if (providerTemplateId !== undefined) out.provider_template_id = providerTemplateId;
  return Object.keys(out).length ? out : null;
}

export function toListItem(r: FeedRow) {
  return {
    id: r.id,
    channel: r.channel,
    recipient: r.recipient,
    // as the detail shows it: held by quiet hours reads `scheduled` until its release
    status: heldByQuietHours(r) ? "scheduled" : r.status,
    template_id: r.template_slug,
    subscriber_id: r.subscriber_id,
    workflow_step: workflowStepOf(r.idempotency_key),
    // only on a notification quiet hours held (SPEC's list fields stay as they are for the rest)
    ...(r.scheduled_for ? { scheduled_for: iso(r.scheduled_for)! } : {}),
    created_at: iso(r.created_at),
  };
}

export function toAttempt(a: AttemptRow) {
  return {
    id: a.id,
    attempt_number: a.attempt_number,
    status: a.status,
    provider: a.provider,
    provider_response: a.provider_response ?? {},
    error: a.error,
    duration_ms: a.duration_ms,
    created_at: iso(a.created_at),
  };
}

/** Held by quiet hours and not yet released (domain/delivery-policy/): shown as status `scheduled`. */
export const heldByQuietHours = (r: Pick<NotificationRow, "status" | "scheduled_for" | "attempt_count">) =>
  r.status === "pending" && r.scheduled_for != null && r.attempt_count === 0;

export function toDetail(r: NotificationRow, attempts: AttemptRow[]) {
  return {
    id: r.id,
    channel: r.channel,
    recipient: r.recipient,
    status: heldByQuietHours(r) ? "scheduled" : r.status,
    template_id: r.template_slug,
    subscriber_id: r.subscriber_id,
    category: r.category,
    priority: r.priority ?? "normal",
    locale: r.locale ?? null,
    data: r.data ?? {},
    metadata: r.metadata ?? {},
    error: r.error ? { code: r.error.code, message: r.error.message } : null,
    provider: r.provider,
    suppressed_reason: r.suppressed_reason,
    critical: r.critical ?? false,
    scheduled_for: iso(r.scheduled_for ?? null),
    warnings: r.warnings ?? [],
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
    sent_at: iso(r.sent_at),
    delivered_at: iso(r.delivered_at),
    failed_at: iso(r.failed_at),
    bounced_at: iso(r.bounced_at),
    opened_at: iso(r.opened_at),
    clicked_at: iso(r.clicked_at),
    complained_at: iso(r.complained_at),
    content: sentContent(r, attempts),
    workflow_step: workflowStepOf(r.idempotency_key),
    attempts: attempts.map(toAttempt),
  };
}
