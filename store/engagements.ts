// Engagement rows: each recorded open and click of a notification (the notification keeps only the
// first of each, opened_at / clicked_at), with the address and user agent that made it (personal data).
import type { Tx } from "./db";
import { newId } from "./ids";

export interface NewEngagement {
  tenantId: string;
  environment: string;
  notificationId: string;
  kind: "open" | "click";
  /** "tracking" (our pixel and links) or the provider's name */
  source: string;
  linkIndex: number | null;
  url: string | null;
  ip: string | null;
  userAgent: string | null;
  /** the provider's event id: the same event delivered twice is one row */
  eventKey: string | null;
  at: Date;
}

/** Inserts one engagement; false when the provider's event was already recorded. */
export async function insertEngagement(tx: Tx, e: NewEngagement): Promise<boolean> {
  const rows = await tx`
    insert into notification_engagements (id, tenant_id, environment, notification_id, kind, source, link_index, url, ip, user_agent, event_key, created_at)
    values (${newId()}, ${e.tenantId}, ${e.environment}, ${e.notificationId}, ${e.kind}, ${e.source}, ${e.linkIndex}, ${e.url},
      ${e.ip}, ${e.userAgent}, ${e.eventKey}, ${e.at})
    on conflict (notification_id, event_key) where event_key is not null do nothing
    returning id`;
  return rows.length > 0;
}

/** Erasure: every engagement of these notifications, with their addresses and user agents. */
export async function deleteEngagements(tx: Tx, notificationIds: string[]): Promise<number> {
  if (notificationIds.length === 0) return 0;
  const rows = await tx`delete from notification_engagements where notification_id = any(${notificationIds}::uuid[]) returning 1`;
  return rows.length;
}
