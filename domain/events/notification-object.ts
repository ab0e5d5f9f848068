// The notification object that notification.* event payloads carry (SPEC Events: id, status, channel,
// and to, subject, template, external_id where known), built from a notification row.
import type { NotificationRow } from "../../store/notifications";

/** The notification object of notification.* event payloads (SPEC Events). */
export function eventNotification(r: Pick<NotificationRow, "id" | "status" | "channel" | "recipient" | "template_slug" | "content">, externalId?: string | null) {
  const out: Record<string, unknown> = { id: r.id, status: r.status, channel: r.channel, to: r.recipient };
  const subject = (r.content as { subject?: unknown } | null)?.subject;
  if (typeof subject === "string") out.subject = subject;
  if (r.template_slug) out.template = r.template_slug;
  if (externalId) out.external_id = externalId;
  return out;
}
