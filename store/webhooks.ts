// Webhook endpoints repository: rows per (tenant, environment), the signing secret sealed at rest
// (store/cipher.ts, bound to the webhook id), the per-tenant cap, and the relay's outbox queue.
import { decryptString, encryptString } from "./cipher";
import { sql, type Scope, type Tx } from "./db";
import { newId } from "./ids";
import { deleteDueOf, markManualRelayed } from "./webhook-attempt-markers";
import { iso } from "./time";

export interface WebhookRow {
  id: string;
  tenant_id: string;
  environment: string;
  url: string;
  events: string[];
  active: boolean;
  description: string | null;
  secret_enc: string;
  failing_since: Date | null;
  disabled_reason: string | null;
  disabled_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface WebhookFields {
  url: string;
  events: string[];
  active: boolean;
  description: string | null;
}

const aadOf = (webhookId: string) => `webhook:${webhookId}`;

/** The signing secret of a row (throws DecryptionError, never with the plaintext, when it cannot be opened). */
export function openSecret(row: Pick<WebhookRow, "id" | "secret_enc">): string {
  return decryptString(row.secret_enc, aadOf(row.id));
}

/**
 * Inserts when the tenant has fewer than `max` webhooks (both environments count: SPEC's limit is
 * per tenant). The tenant row is locked first so two concurrent creations cannot both pass.
 */
export async function insertWebhook(tx: Tx, scope: Scope, f: WebhookFields, secret: string, max: number): Promise<WebhookRow | null> {
  await tx`select id from tenants where id = ${scope.tenantId} for update`;
  const [count] = await tx<{ n: number }[]>`select count(*)::int as n from webhooks where tenant_id = ${scope.tenantId}`;
  if (count!.n >= max) return null;
  const id = newId();
  const [row] = await tx<WebhookRow[]>`
    insert into webhooks (id, tenant_id, environment, url, events, active, description, secret_enc)
    values (${id}, ${scope.tenantId}, ${scope.environment}, ${f.url}, ${f.events}, ${f.active}, ${f.description}, ${encryptString(secret, aadOf(id))})
    returning *`;
  return row!;
}

export async function findWebhook(tx: Tx, scope: Scope, id: string, forUpdate = false): Promise<WebhookRow | undefined> {
  const [row] = await tx<WebhookRow[]>`
    select * from webhooks where id = ${id} and tenant_id = ${scope.tenantId} and environment = ${scope.environment}
    ${forUpdate ? tx`for update` : tx``}`;
  return row;
}

export async function listWebhooks(scope: Scope): Promise<WebhookRow[]> {
  return await sql<WebhookRow[]>`
    select * from webhooks where tenant_id = ${scope.tenantId} and environment = ${scope.environment} order by created_at, id`;
}

/** Reactivation clears what the auto-disable left (reason, time, failing streak). */
export async function updateWebhook(tx: Tx, id: string, f: WebhookFields, reactivated: boolean): Promise<WebhookRow> {
  const [row] = await tx<WebhookRow[]>`
    update webhooks set url = ${f.url}, events = ${f.events}, active = ${f.active}, description = ${f.description}, updated_at = now()
      ${reactivated ? tx`, disabled_reason = null, disabled_at = null, failing_since = null` : tx``}
    where id = ${id} returning *`;
  return row!;
}

/** Deletes the webhook, its delivery records and its queued work (outbox rows and markers). */
export async function deleteWebhook(tx: Tx, id: string): Promise<void> {
  await tx`delete from webhook_outbox where webhook_id = ${id}`;
  await deleteDueOf(tx, id);
  await tx`delete from webhook_deliveries where webhook_id = ${id}`;
  await tx`delete from webhooks where id = ${id}`;
}

// ---------------------------------------------------------------------------------------------
// The outbox: rows the fan-out trigger (migration 0450) wrote with their events, and rows the
// retry and replay routes add for pending manual deliveries. Taking them is a DELETE in a
// transaction that commits only after `publish` resolved: a crash in between leaves them for
// the next take (a message published twice is harmless: the dispatcher is idempotent). The same
// transaction writes their durable markers (webhook_due, migration 0460), so work whose message
// Redis loses can be found again (domain/webhooks/repair.ts).

export interface OutboxRow {
  webhook_id: string;
  event_id: string;
  /** set for manual deliveries (the pending record's id) */
  delivery_id: string | null;
}

export async function takeOutbox(limit: number, publish: (rows: OutboxRow[]) => Promise<void>): Promise<number> {
  // the idle case (no webhook anywhere, or nothing new) costs one indexed read, no transaction
  const [any] = await sql`select 1 from webhook_outbox limit 1`;
  if (!any) return 0;
  return await sql.begin(async (tx) => {
    // automatic rows become attempt 1's marker in the same statement (one per webhook and event:
    // the trigger wrote one; a row that came back after a killed relay finds its marker rolled back)
    const rows = await tx<OutboxRow[]>`
      with taken as (
        delete from webhook_outbox where id in (
          select id from webhook_outbox order by id limit ${limit} for update skip locked)
        returning webhook_id, event_id, delivery_id),
      marked as (
        insert into webhook_due (webhook_id, event_id, attempt, due_at, enqueued_at)
        select webhook_id, event_id, 1, now(), now() from taken where delivery_id is null
        on conflict (webhook_id, event_id, attempt) do nothing)
      select webhook_id, event_id, delivery_id from taken`;
    const manual = rows.flatMap((r) => (r.delivery_id ? [{ webhookId: r.webhook_id, eventId: r.event_id, deliveryId: r.delivery_id }] : []));
    if (manual.length) await markManualRelayed(tx, manual);
    if (rows.length) await publish(rows);
    return rows.length;
  });
}

export async function addToOutbox(tx: Tx, rows: { webhookId: string; eventId: string; deliveryId: string }[]): Promise<void> {
  if (!rows.length) return;
  const doc = JSON.stringify(rows.map((r) => ({ webhook_id: r.webhookId, event_id: r.eventId, delivery_id: r.deliveryId })));
  await tx`insert into webhook_outbox (webhook_id, event_id, delivery_id)
    select webhook_id, event_id, delivery_id from jsonb_to_recordset(${doc}::text::jsonb) as v(webhook_id uuid, event_id uuid, delivery_id uuid)`;
}
