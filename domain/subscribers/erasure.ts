// Erasure (LGPD): erasing a subscriber and remembering its identifiers only as SHA-256 hashes, which
// the send-time suppression check (domain/delivery/suppression.ts) and re-creation refusals compare against.
import { createHash } from "node:crypto";
import { sql, type Scope, type Tx } from "../../store/db";
import { isUuid } from "../../store/ids";
import { findSubscriber } from "../../store/subscribers";
import { writeAudit, type ActorType } from "../../store/audit";
import { deleteEngagements } from "../../store/engagements";
import { deleteSuppressionsFor } from "../../store/suppressions";
import { leaveAllTopics } from "../../store/topics";
import { AppError } from "../../basics/errors";

/**
 * Identifiers are compared after this normalization: trimmed, and lower-cased when they look
 * like an email address or a UUID (both case-insensitive); phones are stored as E.164 already.
 */
export function normalizeIdentifier(value: string): string {
  const v = value.trim();
  return v.includes("@") || isUuid(v) ? v.toLowerCase() : v;
}

/** SHA-256 over tenant, environment and the normalized identifier: no PII is kept. */
export function identifierHash(tenantId: string, environment: string, value: string): string {
  return createHash("sha256").update(`${tenantId}:${environment}:${normalizeIdentifier(value)}`).digest("hex");
}

/** True when `recipient` was the id, external_id, email or phone of an erased subscriber. */
export async function isErasedRecipient(
  tenantId: string,
  environment: string,
  recipient: string,
  tx: Tx = sql,
): Promise<boolean> {
  if (!recipient) return false;
  const [row] = await tx`
    select 1 from subscriber_erasures
    where tenant_id = ${tenantId} and environment = ${environment}
      and identifier_hash = ${identifierHash(tenantId, environment, recipient)}`;
  return !!row;
}

/**
 * DELETE /v1/subscribers/:id: irreversible. In one transaction: records the hashes of the id,
 * external_id, email and phone; soft-deletes the row, nullifies email, phone, name and
 * custom_properties (and the consent IP), frees the external_id (replaced by
 * `erased:<id>`, so it can not be found again; re-creating it is refused through the
 * hashes); redacts the subscriber's notifications (recipient "[erased]", data and content
 * emptied, attempts' provider responses dropped, notification.* event payloads cut to
 * {notification: {id, status, channel}, erased}), inbox items (title/body null, data {}) and
 * inbox.* event payloads; erases engagement (every open and click with its IP address and user
 * agent, and the notifications' opened/clicked/complained times) and the suppression-list rows of
 * its addresses (its sends stay suppressed through the hashes); deletes its preferences; leaves every topic; writes
 * audit `subscriber.erased`.
 */
export async function eraseSubscriber(
  scope: Scope,
  idOrExternalId: string,
  actor: { actorType: ActorType; actorId: string | null; ip?: string | null; userAgent?: string | null },
): Promise<{ subscriberId: string }> {
  return sql.begin(async (tx) => {
    const sub = await findSubscriber(scope, idOrExternalId, tx, { forUpdate: true });
    if (!sub) throw new AppError("subscriber_not_found", "Subscriber not found");
    const identifiers: { kind: string; value: string }[] = [
      { kind: "id", value: sub.id },
      { kind: "external_id", value: sub.external_id },
    ];
    if (sub.email) identifiers.push({ kind: "email", value: sub.email });
    if (sub.phone) identifiers.push({ kind: "phone", value: sub.phone });
    const erasures = identifiers.map((i) => ({
      tenant_id: scope.tenantId,
      environment: scope.environment,
      identifier_hash: identifierHash(scope.tenantId, scope.environment, i.value),
      kind: i.kind,
      subscriber_id: sub.id,
    }));
    await tx`insert into subscriber_erasures ${tx(erasures)} on conflict do nothing`;

    await tx`
      update subscribers set
        deleted_at = now(), updated_at = now(), external_id = ${"erased:" + sub.id},
        email = null, phone = null, name = null, custom_properties = '{}'::jsonb,
        consent = case when consent is null then null else consent - 'ip' end
      where id = ${sub.id}`;

    // email compares case-insensitively; ids, external_id and E.164 phones exactly
    const exact = [sub.id, sub.external_id, sub.phone].filter((v): v is string => !!v);
    const email = sub.email ? sub.email.toLowerCase() : null;
    const redacted = await tx`
      update notifications set recipient = '[erased]', data = '{}'::jsonb,
        content = case when content is null then null else '{}'::jsonb end,
        opened_at = null, clicked_at = null, complained_at = null, updated_at = now()
      where tenant_id = ${scope.tenantId} and environment = ${scope.environment}
        and (subscriber_id = ${sub.id} or recipient = any(${exact}::text[])
             ${email ? tx`or lower(recipient) = ${email}` : tx``})
      returning id`;
    const redactedIds = redacted.map((r) => r.id as string);
    // engagement is personal data (who opened or clicked, from where); the suppression list would
    // keep the address itself, and the erasure hashes already refuse every send to it
    const engagements = await deleteEngagements(tx, redactedIds);
    const suppressions = await deleteSuppressionsFor(tx, scope, {
      addresses: [email, sub.phone].filter((v): v is string => !!v),
      notificationIds: redactedIds,
    });
    if (redactedIds.length > 0) {
      // provider answers may echo the address (Twilio's "to"); errors keep their code only
      await tx`
        update notification_attempts set provider_response = null,
          error = case when error is null then null else jsonb_build_object('code', error -> 'code') end
        where notification_id = any(${redactedIds}::uuid[])`;
      // notification.* payloads carry the address too; keep the shape webhooks rely on
      await tx`
        update events set data = jsonb_build_object(
          'notification', jsonb_build_object(
            'id', data -> 'notification' -> 'id', 'status', data -> 'notification' -> 'status',
            'channel', data -> 'notification' -> 'channel'),
          'erased', true)
        where tenant_id = ${scope.tenantId} and environment = ${scope.environment}
          and type like 'notification.%' and data -> 'notification' ->> 'id' = any(${redactedIds}::text[])`;
    }
    const inbox = await tx`
      update inbox_items set title = null, body = null, data = '{}'::jsonb
      where tenant_id = ${scope.tenantId} and environment = ${scope.environment} and subscriber_id = ${sub.id}
      returning id`;
    await tx`
      update events set data = jsonb_build_object('subscriber_id', ${sub.id}::text, 'erased', true)
      where tenant_id = ${scope.tenantId} and environment = ${scope.environment}
        and type in ('inbox.notification.received', 'inbox.notification.read')
        and data ->> 'subscriber_id' = ${sub.id}`;
    await tx`delete from subscriber_preferences where subscriber_id = ${sub.id}`;
    const topics = await leaveAllTopics(tx, sub.id);

    await writeAudit(tx, {
      tenantId: scope.tenantId,
      actorType: actor.actorType,
      actorId: actor.actorId,
      action: "subscriber.erased",
      resourceType: "subscriber",
      resourceId: sub.id,
      metadata: {
        environment: scope.environment,
        notifications_redacted: redacted.length,
        inbox_items_redacted: inbox.length,
        engagements_erased: engagements,
        suppressions_erased: suppressions,
        topics_left: topics,
        identifiers_hashed: identifiers.map((i) => i.kind),
      },
      ip: actor.ip,
      userAgent: actor.userAgent,
    });
    return { subscriberId: sub.id };
  }) as Promise<{ subscriberId: string }>;
}
