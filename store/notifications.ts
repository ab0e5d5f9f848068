// Notification rows for everyone but the sender: the batched insert of the accept path, the API's reads,
// warnings, and the receipts' lock and update. (The sender's claims and outcomes are store/attempts.ts.)
import { iso } from "./time";
import { reader, sql, type Tx } from "./db";
import { dayStart, ID_TIME_SKEW_MS, keyDays, keyHorizon, keyRange, newestFirstWindows, type KeyWindow } from "./history-keys";

export interface NotificationRow {
  id: string;
  tenant_id: string;
  environment: string;
  channel: string;
  recipient: string | null;
  subscriber_id: string | null;
  template_slug: string | null;
  category: string | null;
  /** the locale the template was rendered in (migration 0780); null without a template */
  locale?: string | null;
  data: Record<string, unknown>;
  metadata: Record<string, unknown>;
  content: Record<string, unknown> | null;
  status: string;
  error: { code: string; message: string } | null;
  provider: string | null;
  provider_message_id: string | null;
  idempotency_key: string | null;
  attempt_count: number;
  next_attempt_at: Date | null;
  suppressed_reason: string | null;
  /** delivery policy (migration 0710): quiet hours and caps do not apply */
  critical: boolean;
  /** when a notification held by quiet hours is (or was) released */
  scheduled_for: Date | null;
  created_at: Date;
  updated_at: Date;
  sent_at: Date | null;
  delivered_at: Date | null;
  failed_at: Date | null;
  bounced_at: Date | null;
  opened_at: Date | null;
  clicked_at: Date | null;
  complained_at: Date | null;
  /** sent with these warnings, e.g. domain_unhealthy (migration 0501); null when none */
  warnings?: NotificationWarning[] | null;
  /** the workflow run waiting on its outcome (woken when its status moves); see migration 0400 */
  workflow_run_id: string | null;
  /** the sender's lane: high, normal or low (migration 0721) */
  priority?: "high" | "normal" | "low";
}

export interface NotificationWarning {
  code: string;
  message: string;
}

export interface AttemptRow {
  id: string;
  notification_id: string;
  tenant_id: string;
  attempt_number: number;
  status: "success" | "failure";
  provider: string | null;
  provider_response: Record<string, unknown> | null;
  error: { code: string; message: string } | null;
  duration_ms: number | null;
  created_at: Date;
}

export interface NewNotification {
  id: string;
  tenantId: string;
  environment: string;
  channel: string;
  recipient: string;
  subscriberId: string | null;
  templateSlug: string | null;
  category: string | null;
  locale?: string | null;
  data: Record<string, unknown>;
  metadata: Record<string, unknown>;
  content: Record<string, unknown> | null;
  idempotencyKey: string | null;
  createdAt: Date;
  workflowRunId?: string | null;
  /** delivery policy: quiet hours and caps do not apply */
  critical?: boolean;
  /** the sender's lane; normal when absent */
  priority?: "high" | "normal" | "low";
}

/**
 * The batched INSERT of notifications as WITH items to embed at the top of a statement
 * (`with ${notificationsInsert(...)}, ...`): the last item, `ins`, returns the inserted ids.
 */
export function notificationsInsert(tx: Tx, rows: NewNotification[]) {
  // One JSON document for the whole batch: JSON.stringify is native, where per-element array
  // escaping of a dozen text[] parameters was a visible share of the accept path's CPU.
  const doc = JSON.stringify(
    rows.map((r) => ({
      id: r.id,
      tenant_id: r.tenantId,
      environment: r.environment,
      channel: r.channel,
      recipient: r.recipient,
      subscriber_id: r.subscriberId,
      template_slug: r.templateSlug,
      category: r.category,
      locale: r.locale ?? null,
      data: r.data,
      metadata: r.metadata,
      content: r.content,
      idempotency_key: r.idempotencyKey,
      created_at: r.createdAt.toISOString(),
      workflow_run_id: r.workflowRunId ?? null,
      critical: r.critical === true,
      priority: r.priority ?? "normal",
    })),
  );
  // An idempotency key is claimed in notification_idempotency_keys first (one row per key across
  // every partition: a table partitioned by id cannot hold that UNIQUE, migration 0860); a row whose
  // key was claimed before is not inserted, like the old ON CONFLICT on the unique key.
  return tx`src as (
      select * from jsonb_to_recordset(${doc}::text::jsonb) as t(id uuid, tenant_id uuid, environment text, channel text, recipient text,
        subscriber_id uuid, template_slug text, category text, locale text, data jsonb, metadata jsonb, content jsonb, idempotency_key text,
        created_at timestamptz, workflow_run_id uuid, critical boolean, priority text)
    ), claimed as (
      insert into notification_idempotency_keys (tenant_id, environment, idempotency_key, notification_id)
      select tenant_id, environment, idempotency_key, id from src where idempotency_key is not null
      on conflict do nothing
      returning notification_id
    ), ins as (
    insert into notifications (id, tenant_id, environment, channel, recipient, subscriber_id, template_slug, category,
      locale, data, metadata, content, status, idempotency_key, created_at, updated_at, workflow_run_id, critical, priority)
    select id, tenant_id, environment, channel, recipient, subscriber_id, template_slug, category,
      locale, coalesce(data, '{}'), coalesce(metadata, '{}'), content, 'pending', idempotency_key, created_at, created_at, workflow_run_id,
      coalesce(critical, false), coalesce(priority, 'normal')
    from src where idempotency_key is null or id in (select notification_id from claimed)
    on conflict do nothing
    returning id)`;
}

export async function findByIdempotencyKey(tenantId: string, environment: string, key: string): Promise<NotificationRow | null> {
  // through the key's row: the notification is then read by id, which prunes to its one partition
  const rows = await sql<NotificationRow[]>`select n.* from notification_idempotency_keys k
    join notifications n on n.id = k.notification_id
    where k.tenant_id = ${tenantId} and k.environment = ${environment} and k.idempotency_key = ${key}`;
  return rows[0] ?? null;
}

export async function getNotification(tenantId: string, environment: string, id: string): Promise<NotificationRow | null> {
  // the id's day as literal bounds: the plan holds its one partition (store/history-keys.ts)
  const rows = await reader()<NotificationRow[]>`select * from notifications
    where id = ${id} ${keyDays("id", [id])} and tenant_id = ${tenantId} and environment = ${environment}`;
  return rows[0] ?? null;
}

/** Records a warning on a notification being sent, once per code (a retried attempt adds nothing). */
export async function addNotificationWarning(id: string, w: NotificationWarning): Promise<void> {
  await sql`update notifications set warnings = coalesce(warnings, '[]'::jsonb) || ${sql.json([w] as any)}
    where id = ${id} ${keyDays("id", [id])} and not coalesce(warnings, '[]'::jsonb) @> ${sql.json([{ code: w.code }] as any)}`;
}

export async function listAttempts(notificationId: string): Promise<AttemptRow[]> {
  return await reader()<AttemptRow[]>`select * from notification_attempts
    where notification_id = ${notificationId} ${keyDays("notification_id", [notificationId])} order by attempt_number`;
}

// ---------------------------------------------------------------------------------------------
// Provider receipts and engagement (domain/receipts/apply-receipt.ts): one notification at a time, locked with
// FOR NO KEY UPDATE (a single row needs no ordering against the sender's id-ordered batches).

/**
 * The notification a provider callback names: by its provider message id within one configuration's scope.
 * A message id carries no time, but a receipt comes hours or days after its send: the day partitions
 * are read newest first (the last 2 days and tomorrow, then 8 days, then every day: a receipt for
 * an older row is still found) and the first window holding the message answers.
 */
export async function lockByProviderMessageId(
  tx: Tx,
  where: { tenantId: string; environment: string; channel: string; messageId: string },
  now = Date.now(),
): Promise<NotificationRow | null> {
  for (const w of receiptWindows(now)) {
    const rows = await tx<NotificationRow[]>`${providerMessageQuery(where, w)} for no key update`;
    if (rows[0]) return rows[0];
  }
  return null;
}

/** The windows lockByProviderMessageId walks, newest first. */
export function receiptWindows(now = Date.now()): KeyWindow[] {
  return newestFirstWindows(dayStart(now + ID_TIME_SKEW_MS), keyHorizon(now));
}

/** One window's statement of lockByProviderMessageId, without its lock (exported for scripts/explain-history-reads.ts). */
export function providerMessageQuery(where: { tenantId: string; environment: string; channel: string; messageId: string }, w: KeyWindow) {
  return sql`select * from notifications
    where provider_message_id = ${where.messageId} ${keyRange("id", w.lo, w.hi)} and tenant_id = ${where.tenantId}
      and environment = ${where.environment} and channel = ${where.channel}
    limit 1`;
}

/** The notification a signed tracking token names (the token carries no tenant: the row does). */
export async function lockNotification(tx: Tx, id: string): Promise<NotificationRow | null> {
  const rows = await tx<NotificationRow[]>`select * from notifications where id = ${id} ${keyDays("id", [id])} for no key update`;
  return rows[0] ?? null;
}

export interface ReceiptUpdate {
  /** the new status, or null to keep it */
  status: string | null;
  error: { code: string; message: string } | null;
  sentAt: Date | null;
  deliveredAt: Date | null;
  failedAt: Date | null;
  bouncedAt: Date | null;
  openedAt: Date | null;
  clickedAt: Date | null;
  complainedAt: Date | null;
}

/** Writes what a receipt changed; a null field keeps its column (first timestamps are never overwritten). */
export async function applyReceiptUpdate(tx: Tx, id: string, u: ReceiptUpdate): Promise<void> {
  await tx`update notifications set
      status = coalesce(${u.status}::text, status),
      error = coalesce(${u.error ? JSON.stringify(u.error) : null}::text::jsonb, error),
      sent_at = coalesce(sent_at, ${u.sentAt}::timestamptz),
      delivered_at = coalesce(delivered_at, ${u.deliveredAt}::timestamptz),
      failed_at = coalesce(failed_at, ${u.failedAt}::timestamptz),
      bounced_at = coalesce(bounced_at, ${u.bouncedAt}::timestamptz),
      opened_at = coalesce(opened_at, ${u.openedAt}::timestamptz),
      clicked_at = coalesce(clicked_at, ${u.clickedAt}::timestamptz),
      complained_at = coalesce(complained_at, ${u.complainedAt}::timestamptz),
      updated_at = now()
    where id = ${id} ${keyDays("id", [id])}`;
}

/** The stored (rendered) content of a notification named by a signed tracking token. */
export async function findNotificationContent(id: string): Promise<Pick<NotificationRow, "id" | "channel" | "content"> | null> {
  const rows = await sql<Pick<NotificationRow, "id" | "channel" | "content">[]>`select id, channel, content from notifications where id = ${id} ${keyDays("id", [id])}`;
  return rows[0] ?? null;
}
