// Why a notification must not be sent, checked by the channel sender right before each send: erasure,
// the suppression list, preferences and unsubscribe (one rule set, one query for many notifications)
// plus the email blocklist; and the address a notification is suppressed by.
import { parseSubscription } from "../../providers/push/webpush";
import { isBlockedEmail } from "../../store/blocked-domains";
import { sql, type Tx } from "../../store/db";
import { isUuid } from "../../store/ids";
import { MicroBatcher } from "../../store/micro-batcher";
import { writeAudit, type ActorType } from "../../store/audit";
import type { NotificationRow } from "../../store/notifications";
import { addSuppression, deleteSuppression, type SuppressionListReason } from "../../store/suppressions";
import { AppError } from "../../basics/errors";
import { identifierHash } from "../subscribers/erasure";

export const ERASED_RECIPIENT = "[erased]";

/**
 * Why stored rules refuse a send: the subscriber was erased, the address is on the suppression
 * list (bounced, complained, unregistered), or the subscriber turned the channel off.
 */
export type SuppressionReason = "erased" | SuppressionListReason | "preference_disabled" | "unsubscribed";
export type SendSuppression = SuppressionReason | "blocked_domain";

/**
 * The suppression-list address of a recipient, or null for channels the list does not cover
 * (sms, whatsapp, in_app): an email address lower-cased, an FCM token as given, and a Web Push
 * subscription by its endpoint URL (its keys may be rotated; the endpoint is the subscription).
 */
export function suppressionAddress(channel: string, recipient: string | null | undefined): string | null {
  if (!recipient || recipient === ERASED_RECIPIENT) return null;
  if (channel === "email") return recipient.trim().toLowerCase();
  if (channel !== "push") return null;
  if (!recipient.trimStart().startsWith("{")) return recipient.trim();
  const sub = parseSubscription(recipient);
  return typeof sub === "string" ? null : sub.endpoint;
}

/** What DELETE /v1/suppressions/:address and the list filter compare: an email address case-insensitively. */
export function normalizeSuppressionAddress(address: string): string {
  const a = address.trim();
  return a.includes("@") && !a.includes("/") ? a.toLowerCase() : a;
}

/**
 * FCM said UNREGISTERED or a push service 404/410: the token or subscription goes on the list with
 * reason `unregistered`, so the next send to it ends `suppressed` without a provider call. Written in
 * the transaction of the notification's status move (domain/delivery-outcomes.ts).
 */
export async function suppressUnregistered(
  tx: Tx,
  n: { id: string; tenant_id: string; environment: string; channel: string; recipient: string | null },
): Promise<void> {
  const address = suppressionAddress(n.channel, n.recipient);
  if (!address) return;
  await addSuppression(tx, { tenantId: n.tenant_id, environment: n.environment, address, channel: n.channel, reason: "unregistered", notificationId: n.id });
}

/** The columns of a notification the rules read. */
export type SuppressionSubject = Pick<NotificationRow, "tenant_id" | "environment" | "channel" | "recipient" | "subscriber_id" | "category">;

export interface SuppressionAnswer {
  reason: SendSuppression | null;
  /** the subscriber the notification goes to (its subscriber_id, or the oldest live one owning the address) */
  subscriberId: string | null;
}

/**
 * The suppression rules, for many notifications in one query. Erasure wins: the hashes of the
 * recipient and the subscriber id against subscriber_erasures. Then the suppression list: the
 * recipient's address (suppressionAddress) listed with its reason. Then the subscribers: the one named
 * by subscriber_id and every live subscriber whose external_id, email (case-insensitive), phone
 * or id equals the recipient (an address shared by two subscribers is off if either turned it
 * off). Then a preference with enabled=false for this channel and category "all" or the
 * notification's: `unsubscribed` when the unsubscribe link wrote it, `preference_disabled` when the API did.
 * A preference category of the tenant (migration 0781) adds: `required` ignores preferences, and a
 * channel outside its default_enabled_channels is `preference_disabled` unless the subscriber turned it on.
 */
async function checkBatch(items: SuppressionSubject[]): Promise<{ reason: SuppressionReason | null; subscriberId: string | null }[]> {
  const doc = JSON.stringify(
    items.map((q, i) => ({
      i,
      tenant_id: q.tenant_id,
      environment: q.environment,
      channel: q.channel,
      recipient: q.recipient,
      address: suppressionAddress(q.channel, q.recipient),
      recipient_uuid: q.recipient && isUuid(q.recipient) ? q.recipient : null,
      // the subscriber is looked up by id only when it is one; its hash is checked whatever it is
      subscriber_id: q.subscriber_id && isUuid(q.subscriber_id) ? q.subscriber_id : null,
      categories: q.category ? ["all", q.category] : ["all"],
      category: q.category ?? null,
      hashes: [q.recipient, q.subscriber_id].filter((v): v is string => !!v).map((v) => identifierHash(q.tenant_id, q.environment, v)),
    })),
  );
  const rows = await sql<{ i: number; erased: boolean; listed: SuppressionListReason | null; ids: string[] | null; sources: string[] | null; required: boolean | null; default_off: boolean | null }[]>`
    with q as (
      select * from jsonb_to_recordset(${doc}::text::jsonb) as q(i int, tenant_id uuid, environment text, channel text, recipient text,
        address text, recipient_uuid uuid, subscriber_id uuid, categories text[], category text, hashes text[])
    ), who as materialized (
      -- materialized: inlined, the owners' lookup below ran again inside the checks that use w.ids
      -- (300 notifications: 700 ms inlined, 50 ms materialized, measured)
      -- the linked subscriber first (it gets the unsubscribe link), then every live owner of the
      -- address, oldest first: the owners store/subscribers.ts findSubscriberOwning picks from
      -- one index lookup per way of owning it (an OR of the four made PostgreSQL walk every
      -- subscriber of the tenant for every notification: a broadcast to a large topic crawled)
      select q.*, array_remove(array[q.subscriber_id], null) || array(
        select o.id from (
          select s.id, s.created_at from subscribers s
          where s.tenant_id = q.tenant_id and s.environment = q.environment and s.external_id = q.recipient and s.deleted_at is null
          union
          select s.id, s.created_at from subscribers s
          where s.tenant_id = q.tenant_id and s.environment = q.environment and s.email is not null and lower(s.email) = lower(q.recipient) and s.deleted_at is null
          union
          select s.id, s.created_at from subscribers s
          where s.tenant_id = q.tenant_id and s.environment = q.environment and s.phone is not null and s.phone = q.recipient and s.deleted_at is null
          union
          select s.id, s.created_at from subscribers s
          where s.id = q.recipient_uuid and s.tenant_id = q.tenant_id and s.environment = q.environment and s.deleted_at is null
        ) o
        where q.recipient is not null and o.id is distinct from q.subscriber_id
        order by o.created_at, o.id
        limit 50) as ids
      from q
    )
    select w.i, w.ids,
      exists (select 1 from subscriber_erasures e
              where e.tenant_id = w.tenant_id and e.environment = w.environment and e.identifier_hash = any(w.hashes)) as erased,
      (select l.reason from suppressions l
        where w.address is not null and l.tenant_id = w.tenant_id and l.environment = w.environment and l.address = w.address) as listed,
      (select array_agg(distinct p.source) from subscriber_preferences p
        where p.tenant_id = w.tenant_id and p.environment = w.environment and p.subscriber_id = any(w.ids)
          and p.channel = w.channel and p.category = any(w.categories) and not p.enabled) as sources,
      -- the tenant's category (domain/preferences/categories.ts): required ignores preferences; a
      -- channel off by default stays off for a subscriber who did not turn it on
      cat.required,
      (not cat.required and not (w.channel = any(cat.default_enabled_channels)) and cardinality(w.ids) > 0
        and not exists (select 1 from subscriber_preferences p
          where p.tenant_id = w.tenant_id and p.environment = w.environment and p.subscriber_id = any(w.ids)
            and p.channel = w.channel and p.category = w.category and p.enabled)) as default_off
    from who w
    left join preference_categories cat on cat.tenant_id = w.tenant_id and cat.environment = w.environment and cat.key = w.category`;
  const out: { reason: SuppressionReason | null; subscriberId: string | null }[] = items.map(() => ({ reason: null, subscriberId: null }));
  for (const r of rows) {
    let reason: SuppressionReason | null = null;
    if (r.erased) reason = "erased";
    else if (r.listed) reason = r.listed;
    else if (r.required) reason = null;
    else if (r.sources?.length) reason = r.sources.includes("unsubscribe") ? "unsubscribed" : "preference_disabled";
    else if (r.default_off) reason = "preference_disabled";
    out[r.i] = { reason, subscriberId: r.ids?.[0] ?? null };
  }
  return out;
}

// Concurrent sends share one query; the sender makes this check for every notification.
// No wait of its own under steady traffic: a batch of claims (store/attempts.ts, which waits) arrives here together.
const batcher = new MicroBatcher(checkBatch, { maxSize: 500, maxWaitMs: 1, maxConcurrent: 2 });

/** What is decided without the database: a recipient erasure already redacted, a blocked email domain. */
async function settledBeforeQuery(n: SuppressionSubject): Promise<SuppressionAnswer | null> {
  // Erasure redacts the recipient of the subscriber's stored notifications in place.
  if (n.recipient === ERASED_RECIPIENT) return { reason: "erased", subscriberId: null };
  if (n.channel === "email" && n.recipient && (await isBlockedEmail(n.recipient))) return { reason: "blocked_domain", subscriberId: null };
  return null;
}

/** The sender's check: concurrent calls share one query. */
export async function checkSuppression(n: SuppressionSubject): Promise<SuppressionAnswer> {
  return (await settledBeforeQuery(n)) ?? (await batcher.submit(n));
}

/** The same check for one notification on its own: the batched rules called with one item. */
export async function suppressionReason(n: SuppressionSubject): Promise<SendSuppression | null> {
  const settled = await settledBeforeQuery(n);
  if (settled) return settled.reason;
  const [answer] = await checkBatch([n]);
  return answer!.reason;
}

/**
 * The stored rules alone (erasure, preferences, unsubscribe) for a recipient and/or subscriber, as
 * callers outside delivery name them: the batched rules called with one item.
 */
export async function suppressionFor(q: {
  tenantId: string;
  environment: string;
  channel: string;
  recipient: string | null;
  subscriberId?: string | null;
  category?: string | null;
}): Promise<SuppressionReason | null> {
  const [answer] = await checkBatch([
    { tenant_id: q.tenantId, environment: q.environment, channel: q.channel, recipient: q.recipient, subscriber_id: q.subscriberId ?? null, category: q.category ?? null },
  ]);
  return answer!.reason;
}

/**
 * DELETE /v1/suppressions/:address: lifts one address and writes audit `suppression.removed` in the
 * same transaction. The audit log is immutable and kept forever, so it names the address only by
 * its identifier hash (domain/subscribers/erasure.ts), never in clear: an erasure can still remove the person.
 */
export async function liftSuppression(
  scope: { tenantId: string; environment: string },
  address: string,
  actor: { actorType: ActorType; actorId: string | null; ip?: string | null; userAgent?: string | null },
): Promise<void> {
  const normalized = normalizeSuppressionAddress(address);
  const removed = await sql.begin(async (tx) => {
    const row = await deleteSuppression(tx, scope, normalized);
    if (!row) return null;
    await writeAudit(tx, {
      tenantId: scope.tenantId,
      actorType: actor.actorType,
      actorId: actor.actorId,
      action: "suppression.removed",
      resourceType: "suppression",
      resourceId: row.id,
      metadata: {
        environment: scope.environment,
        channel: row.channel,
        reason: row.reason,
        address_hash: identifierHash(scope.tenantId, scope.environment, row.address),
        notification_id: row.notification_id,
      },
      ip: actor.ip,
      userAgent: actor.userAgent,
    });
    return row;
  });
  if (!removed) throw new AppError("suppression_not_found", "This address is not on the suppression list");
}
