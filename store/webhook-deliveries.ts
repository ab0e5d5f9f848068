// Webhook delivery records (DESIGN.md 6: one row per attempt) and the dispatcher's batched reads and
// writes: what an attempt needs to run, its outcome with the webhook's failing streak and auto-disable.
import type { Cursor } from "./cursor";
import { writeAudit } from "./audit";
import { sql, type Scope, type Tx } from "./db";
import { DAY_MS, dayStart, ID_TIME_SKEW_MS, keyDays, keyHorizon, keyRange, v7Time } from "./history-keys";
import { MicroBatcher } from "./micro-batcher";
import { settleDue } from "./webhook-attempt-markers";
import { iso } from "./time";

export type DeliveryStatus = "success" | "failed" | "pending";
export type DeliveryKind = "auto" | "manual" | "test";

export interface DeliveryRow {
  id: string;
  webhook_id: string;
  tenant_id: string;
  event_id: string;
  event_type: string;
  attempt: number;
  status: DeliveryStatus;
  response_status: number | null;
  response_body: string | null;
  duration_ms: number | null;
  error: { code: string; message: string } | null;
  next_retry_at: Date | null;
  kind: DeliveryKind;
  created_at: Date;
}

/**
 * The partition-key (event_id) bounds of deliveries with ids below `belowId` (null: any): a delivery is
 * written after its event, so the event's id lies below the day after the delivery id's moment (plus
 * the margin for another host's clock); without `belowId`, below tomorrow's end. There is no lower
 * bound: a retry or replay of an event kept for weeks writes a new delivery into that old event's day
 * (docs/operations.md#partitioning), so the newest deliveries may sit in any kept day.
 */
function deliveryEventKeys(column: string, belowId: string | null) {
  return keyRange(column, null, belowId === null ? keyHorizon() : dayStart(v7Time(belowId) + ID_TIME_SKEW_MS) + DAY_MS);
}

export interface DeliveriesPage {
  limit: number;
  cursor: Cursor | null;
  status?: DeliveryStatus;
  eventId?: string;
}

/** Newest first (ids are UUID v7): `limit + 1` rows for pageOf(). */
export async function listDeliveries(webhookId: string, q: DeliveriesPage): Promise<DeliveryRow[]> {
  return await sql<DeliveryRow[]>`${deliveriesQuery(webhookId, q)}`;
}

/** The statement of listDeliveries (exported for its plan: scripts/explain-history-reads.ts and a test). */
export function deliveriesQuery(webhookId: string, q: DeliveriesPage) {
  return sql`
    select * from webhook_deliveries
    where webhook_id = ${webhookId} ${deliveryEventKeys("event_id", q.cursor?.id ?? null)}
      ${q.cursor ? sql`and id < ${q.cursor.id}::uuid` : sql``}
      ${q.status ? sql`and status = ${q.status}` : sql``}
      ${q.eventId ? sql`and event_id = ${q.eventId}::uuid ${keyDays("event_id", [q.eventId])}` : sql``}
    order by id desc
    limit ${q.limit + 1}`;
}

export async function findDelivery(tx: Tx, webhookId: string, id: string): Promise<DeliveryRow | undefined> {
  const [row] = await tx<DeliveryRow[]>`select * from webhook_deliveries
    where id = ${id} and webhook_id = ${webhookId} ${deliveryEventKeys("event_id", id)}`;
  return row;
}

// ---------------------------------------------------------------------------------------------
// Manual deliveries (retry, replay): a pending record numbered after the event's last attempt,
// queued through the outbox in the same transaction (store/webhooks.ts addToOutbox).

export async function insertPendingDeliveries(
  tx: Tx,
  w: { id: string; tenantId: string },
  items: { id: string; eventId: string; eventType: string }[],
): Promise<DeliveryRow[]> {
  if (!items.length) return [];
  const doc = JSON.stringify(items.map((i) => ({ id: i.id, event_id: i.eventId, event_type: i.eventType })));
  return await tx<DeliveryRow[]>`
    insert into webhook_deliveries (id, webhook_id, tenant_id, event_id, event_type, attempt, status, kind)
    select v.id, ${w.id}, ${w.tenantId}, v.event_id, v.event_type,
      coalesce((select max(d.attempt) from webhook_deliveries d
        where d.webhook_id = ${w.id} and d.event_id = v.event_id ${keyDays("d.event_id", items.map((i) => i.eventId))}), 0) + 1,
      'pending', 'manual'
    from jsonb_to_recordset(${doc}::text::jsonb) as v(id uuid, event_id uuid, event_type text)
    on conflict (webhook_id, event_id, attempt) do nothing
    returning *`;
}

/**
 * Events of the window a replay sends again: of the webhook's scope and the given types, created
 * in [since, until), with no successful (or already pending) delivery to this webhook. Oldest first.
 */
export async function replayCandidates(
  scope: Scope,
  webhookId: string,
  q: { types: string[]; since: Date; until: Date; limit: number },
): Promise<{ id: string; type: string; created_at: Date }[]> {
  // an event's id lies within the margin of its created_at (domain/events/outbox.ts makes both together),
  // and its deliveries sit in its day: the window's days bound both partition keys
  const days = (column: string) =>
    keyRange(column, dayStart(q.since.getTime() - ID_TIME_SKEW_MS), dayStart(q.until.getTime() + ID_TIME_SKEW_MS) + DAY_MS);
  return await sql<{ id: string; type: string; created_at: Date }[]>`
    select e.id, e.type, e.created_at from events e
    where e.tenant_id = ${scope.tenantId} and e.environment = ${scope.environment}
      and e.created_at >= ${q.since} and e.created_at < ${q.until}
      ${days("e.id")}
      and e.type = any(${q.types}::text[]) and e.type <> 'notification.test'
      and not exists (
        select 1 from webhook_deliveries d
        where d.webhook_id = ${webhookId} and d.event_id = e.id
          ${days("d.event_id")}
          and d.status in ('success', 'pending'))
    order by e.created_at, e.id
    limit ${q.limit}`;
}

// ---------------------------------------------------------------------------------------------
// What one attempt needs, read for many handlers at once: the webhook (null: deleted), the event
// (null: gone), and what was already recorded for this event and webhook.

export interface AttemptContext {
  webhook: { id: string; tenant_id: string; environment: string; url: string; events: string[]; active: boolean; secret_enc: string } | null;
  event: { id: string; tenant_id: string; environment: string; type: string; created_at: Date; data: Record<string, unknown> } | null;
  succeeded: boolean;
  maxAttempt: number;
  /** the record of this automatic attempt number, if one exists (a redelivered message) */
  sameAttempt: { status: DeliveryStatus; next_retry_at: string | null; kind: DeliveryKind } | null;
  /** the pending record a manual message carries */
  manual: { status: DeliveryStatus; attempt: number } | null;
}

interface ContextQuery {
  webhookId: string;
  eventId: string;
  attempt: number | null;
  deliveryId: string | null;
}

const contextBatcher = new MicroBatcher<ContextQuery, AttemptContext>(
  async (items) => {
    const doc = JSON.stringify(items.map((q, i) => ({ i, webhook_id: q.webhookId, event_id: q.eventId, attempt: q.attempt, delivery_id: q.deliveryId })));
    // the batch's event days as literal bounds on both partition keys (events.id, webhook_deliveries.event_id):
    // the plan holds those days' partitions only (store/history-keys.ts); a manual delivery sits in its event's day
    const eventIds = items.map((q) => q.eventId);
    const rows = await sql<any[]>`
      select v.i,
        w.id as w_id, w.tenant_id as w_tenant_id, w.environment as w_environment, w.url as w_url, w.events as w_events, w.active as w_active, w.secret_enc as w_secret_enc,
        e.id as e_id, e.tenant_id as e_tenant_id, e.environment as e_environment, e.type as e_type, e.created_at as e_created_at, e.data as e_data,
        exists (select 1 from webhook_deliveries d where d.webhook_id = v.webhook_id and d.event_id = v.event_id ${keyDays("d.event_id", eventIds)} and d.status = 'success') as succeeded,
        coalesce((select max(d.attempt) from webhook_deliveries d where d.webhook_id = v.webhook_id and d.event_id = v.event_id ${keyDays("d.event_id", eventIds)}), 0) as max_attempt,
        (select jsonb_build_object('status', d.status, 'next_retry_at', d.next_retry_at, 'kind', d.kind) from webhook_deliveries d
          where d.webhook_id = v.webhook_id and d.event_id = v.event_id ${keyDays("d.event_id", eventIds)} and d.attempt = v.attempt) as same_attempt,
        (select jsonb_build_object('status', d.status, 'attempt', d.attempt) from webhook_deliveries d
          where d.id = v.delivery_id and d.webhook_id = v.webhook_id and d.event_id = v.event_id ${keyDays("d.event_id", eventIds)}) as manual
      from jsonb_to_recordset(${doc}::text::jsonb) as v(i int, webhook_id uuid, event_id uuid, attempt int, delivery_id uuid)
      left join webhooks w on w.id = v.webhook_id
      left join events e on e.id = v.event_id ${keyDays("e.id", eventIds)}`;
    const out: AttemptContext[] = new Array(items.length);
    for (const r of rows) {
      out[r.i] = {
        webhook: r.w_id
          ? { id: r.w_id, tenant_id: r.w_tenant_id, environment: r.w_environment, url: r.w_url, events: r.w_events, active: r.w_active, secret_enc: r.w_secret_enc }
          : null,
        event: r.e_id ? { id: r.e_id, tenant_id: r.e_tenant_id, environment: r.e_environment, type: r.e_type, created_at: r.e_created_at, data: r.e_data } : null,
        succeeded: r.succeeded,
        maxAttempt: Number(r.max_attempt),
        sameAttempt: r.same_attempt,
        manual: r.manual,
      };
    }
    return out;
  },
  { maxSize: 500, maxWaitMs: 1, maxConcurrent: 2 },
);

export function loadAttemptContext(q: ContextQuery): Promise<AttemptContext> {
  return contextBatcher.submit(q);
}

// ---------------------------------------------------------------------------------------------
// Outcomes: the attempt's record and the webhook's health, in one transaction per batch.

export interface AttemptRecord {
  id: string;
  webhookId: string;
  tenantId: string;
  eventId: string;
  eventType: string;
  attempt: number;
  kind: DeliveryKind;
  status: "success" | "failed";
  responseStatus: number | null;
  responseBody: string | null;
  durationMs: number;
  error: { code: string; message: string } | null;
  nextRetryAt: Date | null;
}

export interface DisablePolicy {
  /** a failure when the webhook's failing streak is at least this old deactivates it */
  afterMs: number;
  reason: string;
}

/**
 * Writes the records: automatic and test attempts are inserted (a redelivered attempt that was
 * recorded already is not: unique webhook, event, attempt), manual ones complete their pending row;
 * the markers of the recorded attempts are settled (store/webhook-attempt-markers.ts settleDue).
 * Then the health of each webhook with a non-test outcome: a success ends its failing streak, a
 * failure starts one, and a failure past `policy.afterMs` of streak deactivates the webhook and
 * audits it as `webhook.updated` by `system`, in the same transaction. Returns per record whether
 * it was written.
 */
export async function writeAttemptRecords(tx: Tx, records: AttemptRecord[], policy: DisablePolicy): Promise<boolean[]> {
  const inserted = records.filter((r) => r.kind !== "manual");
  const completed = records.filter((r) => r.kind === "manual");
  const row = (r: AttemptRecord) => ({
    id: r.id,
    webhook_id: r.webhookId,
    tenant_id: r.tenantId,
    event_id: r.eventId,
    event_type: r.eventType,
    attempt: r.attempt,
    kind: r.kind,
    status: r.status,
    response_status: r.responseStatus,
    response_body: r.responseBody,
    duration_ms: r.durationMs,
    error: r.error,
    next_retry_at: r.nextRetryAt ? r.nextRetryAt.toISOString() : null,
  });
  const written = new Set<string>();
  if (inserted.length) {
    const ids = await tx<{ id: string }[]>`
      insert into webhook_deliveries (id, webhook_id, tenant_id, event_id, event_type, attempt, kind, status, response_status,
                                      response_body, duration_ms, error, next_retry_at)
      select id, webhook_id, tenant_id, event_id, event_type, attempt, kind, status, response_status, response_body, duration_ms, error, next_retry_at
      from jsonb_to_recordset(${JSON.stringify(inserted.map(row))}::text::jsonb) as v(id uuid, webhook_id uuid, tenant_id uuid, event_id uuid,
        event_type text, attempt int, kind text, status text, response_status int, response_body text, duration_ms int, error jsonb, next_retry_at timestamptz)
      on conflict (webhook_id, event_id, attempt) do nothing
      returning id`;
    for (const r of ids) written.add(r.id);
  }
  if (completed.length) {
    const ids = await tx<{ id: string }[]>`
      update webhook_deliveries d set status = v.status, response_status = v.response_status, response_body = v.response_body,
        duration_ms = v.duration_ms, error = v.error
      from jsonb_to_recordset(${JSON.stringify(completed.map(row))}::text::jsonb) as v(id uuid, webhook_id uuid, event_id uuid, status text,
        response_status int, response_body text, duration_ms int, error jsonb)
      -- the partition key (event_id) prunes, its days as literals while planning; (webhook_id, id) is indexed in every partition
      where d.event_id = v.event_id ${keyDays("d.event_id", completed.map((r) => r.eventId))} and d.webhook_id = v.webhook_id and d.id = v.id
        and d.status = 'pending'
      returning d.id`;
    for (const r of ids) written.add(r.id);
  }
  const recorded = records.filter((r) => r.kind !== "test" && written.has(r.id));
  // the recorded attempts' markers go with their records, and a retry leaves the next one's
  await settleDue(
    tx,
    recorded.map((r) => ({ webhookId: r.webhookId, eventId: r.eventId, attempt: r.attempt, nextRetryAt: r.kind === "auto" ? r.nextRetryAt : null })),
  );
  await updateHealth(tx, recorded, policy);
  return records.map((r) => written.has(r.id));
}

async function updateHealth(tx: Tx, records: AttemptRecord[], policy: DisablePolicy): Promise<void> {
  if (!records.length) return;
  const ok = new Map<string, boolean>();
  for (const r of records) ok.set(r.webhookId, (ok.get(r.webhookId) ?? false) || r.status === "success");
  const doc = JSON.stringify([...ok].map(([id, success]) => ({ id, ok: success })));
  const window = `${Math.max(0, Math.round(policy.afterMs))} milliseconds`;
  // Only rows whose state changes are locked (a healthy webhook's success writes nothing), in id
  // order like every multi-row writer here, so concurrent batches cannot deadlock.
  const changed = await tx<{ id: string; tenant_id: string; url: string; events: string[]; just_disabled: boolean }[]>`
    with v as (select * from jsonb_to_recordset(${doc}::text::jsonb) as v(id uuid, ok boolean)),
    cand as (
      select w.id from webhooks w join v on v.id = w.id
      where (v.ok and w.failing_since is not null)
         or (not v.ok and (w.failing_since is null or (w.active and w.failing_since <= now() - ${window}::interval)))
      order by w.id for no key update of w
    )
    update webhooks w set
      failing_since = case when v.ok then null else coalesce(w.failing_since, now()) end,
      active = case when not v.ok and w.active and w.failing_since <= now() - ${window}::interval then false else w.active end,
      disabled_reason = case when not v.ok and w.active and w.failing_since <= now() - ${window}::interval then ${policy.reason} else w.disabled_reason end,
      disabled_at = case when not v.ok and w.active and w.failing_since <= now() - ${window}::interval then now() else w.disabled_at end,
      updated_at = case when not v.ok and w.active and w.failing_since <= now() - ${window}::interval then now() else w.updated_at end
    from v, cand
    where w.id = v.id and cand.id = w.id
    returning w.id, w.tenant_id, w.url, w.events, (not w.active and w.disabled_at = now()) as just_disabled`;
  for (const w of changed) {
    if (!w.just_disabled) continue;
    await writeAudit(tx, {
      tenantId: w.tenant_id,
      actorType: "system",
      actorId: null,
      action: "webhook.updated",
      resourceType: "webhook",
      resourceId: w.id,
      metadata: { url: w.url, events: w.events, active: false, disabled_reason: policy.reason },
    });
  }
}

/**
 * writeAttemptRecords for concurrent handlers, one transaction per batch; a batch that fails is
 * retried record by record so one bad row does not fail its neighbours.
 */
export function attemptRecorder(policy: () => DisablePolicy) {
  const write = (items: AttemptRecord[]) => sql.begin((tx) => writeAttemptRecords(tx, items, policy()));
  const batcher = new MicroBatcher<AttemptRecord, boolean>(write, { maxSize: 500, maxWaitMs: 1, maxConcurrent: 2, retryEachAlone: true, name: "webhook attempts" });
  return (record: AttemptRecord): Promise<boolean> => batcher.submit(record);
}
