// Broadcasts repository (migration 0710): the broadcast row, one page of its fan-out (members after
// the cursor, their runs and the cursor's move, in the caller's transaction), cancel, and the scan
// of fan-outs whose message may be lost.
import type { PendingQuery, Row } from "postgres";
import { sql, type Scope, type Tx } from "./db";

export type BroadcastStatus = "fanning_out" | "completed" | "cancelled";

export interface BroadcastRow {
  id: string;
  tenant_id: string;
  environment: string;
  topic_id: string | null;
  topic_key: string;
  workflow_id: string;
  workflow_version: number;
  workflow_slug: string;
  data: Record<string, unknown>;
  /** the trigger's `locale`, given to every run it fans out */
  locale: string | null;
  status: BroadcastStatus;
  recipients: number | null;
  runs_created: number;
  cursor: string | null;
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
}

export async function insertBroadcast(
  tx: Tx,
  b: Pick<BroadcastRow, "id" | "tenant_id" | "environment" | "topic_id" | "topic_key" | "workflow_id" | "workflow_version" | "workflow_slug" | "data" | "locale">,
): Promise<BroadcastRow> {
  const [row] = await tx<BroadcastRow[]>`
    insert into broadcasts (id, tenant_id, environment, topic_id, topic_key, workflow_id, workflow_version, workflow_slug, data, locale)
    values (${b.id}, ${b.tenant_id}, ${b.environment}, ${b.topic_id}, ${b.topic_key}, ${b.workflow_id}, ${b.workflow_version}, ${b.workflow_slug}, ${tx.json(b.data as any)}, ${b.locale})
    returning *`;
  return row!;
}

export async function getBroadcast(scope: Scope, id: string): Promise<BroadcastRow | null> {
  const [row] = await sql<BroadcastRow[]>`
    select * from broadcasts where id = ${id} and tenant_id = ${scope.tenantId} and environment = ${scope.environment}`;
  return row ?? null;
}

/** The broadcast locked for one page of its fan-out (every writer of a fan-out takes this lock first). */
export async function lockBroadcast(tx: Tx, id: string): Promise<BroadcastRow | null> {
  const [row] = await tx<BroadcastRow[]>`select * from broadcasts where id = ${id} for update`;
  return row ?? null;
}

/** Members at the trigger: added no later than the broadcast, live. */
export async function countAudience(tx: Tx, b: BroadcastRow): Promise<number> {
  if (!b.topic_id) return 0;
  const [row] = await tx<{ n: number }[]>`
    select count(*)::int as n from topic_subscribers m join subscribers s on s.id = m.subscriber_id
    where m.topic_id = ${b.topic_id} and m.added_at <= ${b.created_at} and s.deleted_at is null`;
  return row!.n;
}

/** The next page of members after the cursor, in subscriber id order (added no later than the broadcast, live). */
export async function audiencePage(tx: Tx, b: BroadcastRow, limit: number): Promise<{ id: string; external_id: string }[]> {
  if (!b.topic_id) return [];
  return await tx<{ id: string; external_id: string }[]>`
    select s.id, s.external_id from topic_subscribers m join subscribers s on s.id = m.subscriber_id
    where m.topic_id = ${b.topic_id} ${b.cursor ? tx`and m.subscriber_id > ${b.cursor}` : tx``}
      and m.added_at <= ${b.created_at} and s.deleted_at is null
    order by m.subscriber_id limit ${limit}`;
}

/** One page's runs as the fan-out made them: parallel arrays, member i's run id is runIds[i]. */
export interface PageRuns {
  runIds: string[];
  subscriberIds: string[];
  recipients: string[];
  startedAt: Date;
}

/**
 * One page in ONE statement: the page's runs (unnested arrays; the broadcast's fields once, each
 * run's idempotency key `bcast:<broadcast id>:<subscriber id>` built here, a key already used inserts
 * nothing), `events` (an events INSERT ... SELECT written only for runs inserted: domain/events/outbox.ts
 * prepareEvents with onlyIfInserted, reading the CTE `ins`), and the cursor and count moved. In the
 * caller's transaction (which holds the broadcast's lock). Resolves to the ids inserted.
 */
export async function insertPage(tx: Tx, b: BroadcastRow, page: PageRuns, events: PendingQuery<Row[]>, recipients: number | null): Promise<string[]> {
  const cursor = page.subscriberIds[page.subscriberIds.length - 1]!;
  const rows = await tx<{ id: string }[]>`
    with ins as (
      insert into workflow_runs (id, tenant_id, environment, workflow_id, workflow_version, workflow_slug, recipient, subscriber_id, data, locale, started_at, updated_at, idempotency_key)
      select t.id, ${b.tenant_id}, ${b.environment}, ${b.workflow_id}, ${b.workflow_version}, ${b.workflow_slug}, t.recipient, t.subscriber_id,
        ${tx.json(b.data as any)}, ${b.locale}, ${page.startedAt}, ${page.startedAt}, ${"bcast:" + b.id + ":"} || t.subscriber_id::text
      from unnest(${page.runIds}::uuid[], ${page.subscriberIds}::uuid[], ${page.recipients}::text[]) as t(id, subscriber_id, recipient)
      on conflict (tenant_id, environment, idempotency_key) where idempotency_key is not null do nothing
      returning id
    ), ev as (${events}), adv as (
      update broadcasts set cursor = ${cursor}, runs_created = runs_created + (select count(*) from ins),
        recipients = coalesce(recipients, ${recipients}), updated_at = now() where id = ${b.id}
    )
    select id from ins`;
  return rows.map((r) => r.id);
}

export async function completeBroadcast(tx: Tx, id: string): Promise<BroadcastRow> {
  const [row] = await tx<BroadcastRow[]>`
    update broadcasts set status = 'completed', completed_at = now(), updated_at = now(), recipients = runs_created
    where id = ${id} returning *`;
  return row!;
}

/** Cancels a fan-out still running (runs already created stay); null when it was not fanning out. */
export async function cancelBroadcastRow(scope: Scope, id: string): Promise<BroadcastRow | null> {
  return (await sql.begin(async (tx) => {
    const [row] = await tx<BroadcastRow[]>`
      select * from broadcasts where id = ${id} and tenant_id = ${scope.tenantId} and environment = ${scope.environment} for update`;
    if (!row || row.status !== "fanning_out") return null;
    const [out] = await tx<BroadcastRow[]>`
      update broadcasts set status = 'cancelled', completed_at = now(), updated_at = now() where id = ${id} returning *`;
    return out!;
  })) as BroadcastRow | null;
}

/** Fan-outs untouched for `staleMs`: their message may be gone (Redis emptied); the repair scan re-enqueues them. */
export async function staleFanOuts(staleMs: number, limit = 500): Promise<{ id: string }[]> {
  return await sql<{ id: string }[]>`
    select id from broadcasts where status = 'fanning_out' and updated_at < now() - ${staleMs + " milliseconds"}::interval
    order by updated_at limit ${limit}`;
}

export async function touchBroadcasts(ids: string[]): Promise<void> {
  if (ids.length) await sql`update broadcasts set updated_at = now() where id = any(${ids}::uuid[]) and status = 'fanning_out'`;
}
