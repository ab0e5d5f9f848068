// Notification and attempt rows: batched inserts for the accept path, the reads of the API, and
// the guarded status moves of the channel sender and inbound webhooks. Every read filters by tenant.
import { iso } from "./time";
import { sql, type Tx } from "./db";

export interface NotificationRow {
  id: string;
  tenant_id: string;
  environment: string;
  channel: string;
  recipient: string | null;
  subscriber_id: string | null;
  template_slug: string | null;
  category: string | null;
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
  data: Record<string, unknown>;
  metadata: Record<string, unknown>;
  content: Record<string, unknown> | null;
  idempotencyKey: string | null;
  createdAt: Date;
  workflowRunId?: string | null;
}

/**
 * One statement for the whole batch (unnest keeps the statement text, and so its prepared
 * plan, the same for every batch size). Returns the ids actually inserted: a row whose
 * idempotency key already exists is skipped.
 */
export async function insertNotifications(tx: Tx, rows: NewNotification[]): Promise<Set<string>> {
  if (rows.length === 0) return new Set();
  const inserted = await notificationsInsert(tx, rows);
  return new Set(inserted.map((r) => r.id));
}

/** The INSERT of insertNotifications as a statement to embed (a data-modifying WITH item); returns ids. */
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
      data: r.data,
      metadata: r.metadata,
      content: r.content,
      idempotency_key: r.idempotencyKey,
      created_at: r.createdAt.toISOString(),
      workflow_run_id: r.workflowRunId ?? null,
    })),
  );
  return tx<{ id: string }[]>`
    insert into notifications (id, tenant_id, environment, channel, recipient, subscriber_id, template_slug, category,
      data, metadata, content, status, idempotency_key, created_at, updated_at, workflow_run_id)
    select id, tenant_id, environment, channel, recipient, subscriber_id, template_slug, category,
      coalesce(data, '{}'), coalesce(metadata, '{}'), content, 'pending', idempotency_key, created_at, created_at, workflow_run_id
    from jsonb_to_recordset(${doc}::text::jsonb) as t(id uuid, tenant_id uuid, environment text, channel text, recipient text,
      subscriber_id uuid, template_slug text, category text, data jsonb, metadata jsonb, content jsonb, idempotency_key text,
      created_at timestamptz, workflow_run_id uuid)
    on conflict do nothing
    returning id`;
}

export async function findByIdempotencyKey(tenantId: string, environment: string, key: string): Promise<NotificationRow | null> {
  const rows = await sql<NotificationRow[]>`select * from notifications
    where tenant_id = ${tenantId} and environment = ${environment} and idempotency_key = ${key}`;
  return rows[0] ?? null;
}

export async function getNotification(tenantId: string, environment: string, id: string): Promise<NotificationRow | null> {
  const rows = await sql<NotificationRow[]>`select * from notifications
    where id = ${id} and tenant_id = ${tenantId} and environment = ${environment}`;
  return rows[0] ?? null;
}

export async function listNotifications(
  tenantId: string,
  environment: string,
  q: { limit: number; cursor: { t: string; id: string } | null; status?: string; channel?: string },
): Promise<NotificationRow[]> {
  return await sql<NotificationRow[]>`
    select id, channel, recipient, status, template_slug, created_at from notifications
    where tenant_id = ${tenantId} and environment = ${environment}
      ${q.status ? sql`and status = ${q.status}` : sql``}
      ${q.channel ? sql`and channel = ${q.channel}` : sql``}
      ${q.cursor ? sql`and (created_at, id) < (${q.cursor.t}::timestamptz, ${q.cursor.id}::uuid)` : sql``}
    order by created_at desc, id desc
    limit ${q.limit + 1}`;
}

/** Records a warning on a notification being sent, once per code (a retried attempt adds nothing). */
export async function addNotificationWarning(id: string, w: NotificationWarning): Promise<void> {
  await sql`update notifications set warnings = coalesce(warnings, '[]'::jsonb) || ${sql.json([w] as any)}
    where id = ${id} and not coalesce(warnings, '[]'::jsonb) @> ${sql.json([{ code: w.code }] as any)}`;
}

export async function listAttempts(notificationId: string): Promise<AttemptRow[]> {
  return await sql<AttemptRow[]>`select * from notification_attempts
    where notification_id = ${notificationId} order by attempt_number`;
}

export function toListItem(r: NotificationRow) {
  return {
    id: r.id,
    channel: r.channel,
    recipient: r.recipient,
    status: r.status,
    template_id: r.template_slug,
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

export function toDetail(r: NotificationRow, attempts: AttemptRow[]) {
  return {
    id: r.id,
    channel: r.channel,
    recipient: r.recipient,
    status: r.status,
    template_id: r.template_slug,
    subscriber_id: r.subscriber_id,
    category: r.category,
    data: r.data ?? {},
    metadata: r.metadata ?? {},
    error: r.error ? { code: r.error.code, message: r.error.message } : null,
    provider: r.provider,
    suppressed_reason: r.suppressed_reason,
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
    attempts: attempts.map(toAttempt),
  };
}

/** The notification object of notification.* event payloads (SPEC Events). */
export function eventNotification(r: Pick<NotificationRow, "id" | "status" | "channel" | "recipient" | "template_slug" | "content">, externalId?: string | null) {
  const out: Record<string, unknown> = { id: r.id, status: r.status, channel: r.channel, to: r.recipient };
  const subject = (r.content as { subject?: unknown } | null)?.subject;
  if (typeof subject === "string") out.subject = subject;
  if (r.template_slug) out.template = r.template_slug;
  if (externalId) out.external_id = externalId;
  return out;
}

// ---------------------------------------------------------------------------------------------
// Provider receipts and engagement (domain/receipts.ts): one notification at a time, locked with
// FOR NO KEY UPDATE (a single row needs no ordering against the sender's id-ordered batches).

/** The notification a provider callback names: by its provider message id within one configuration's scope. */
export async function lockByProviderMessageId(
  tx: Tx,
  where: { tenantId: string; environment: string; channel: string; messageId: string },
): Promise<NotificationRow | null> {
  const rows = await tx<NotificationRow[]>`select * from notifications
    where provider_message_id = ${where.messageId} and tenant_id = ${where.tenantId}
      and environment = ${where.environment} and channel = ${where.channel}
    limit 1 for no key update`;
  return rows[0] ?? null;
}

/** The notification a signed tracking token names (the token carries no tenant: the row does). */
export async function lockNotification(tx: Tx, id: string): Promise<NotificationRow | null> {
  const rows = await tx<NotificationRow[]>`select * from notifications where id = ${id} for no key update`;
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
    where id = ${id}`;
}

/** The stored (rendered) content of a notification named by a signed tracking token. */
export async function findNotificationContent(id: string): Promise<Pick<NotificationRow, "id" | "channel" | "content"> | null> {
  const rows = await sql<Pick<NotificationRow, "id" | "channel" | "content">[]>`select id, channel, content from notifications where id = ${id}`;
  return rows[0] ?? null;
}
