// Workflow runs repository: insert at trigger, the guarded state write every step makes (rev), cancel,
// scoped reads and the paged list, the reconciler's overdue scan, and the outcome a run waits on.
import type { PendingQuery, Row } from "postgres";
import { sql, type Scope, type Tx } from "./db";
import { isUuid } from "./ids";
import { MicroBatcher } from "./micro-batcher";
import { iso } from "./time";
import { keyDays } from "./history-keys";

/** What a run waits for while its status is running (internal; never returned by the API). */
export type WaitState =
  | { kind: "delay"; step: number; token: string; due_at: string }
  | { kind: "await_previous"; step: number; token: string; due_at: string; notification_id: string }
  | {
      kind: "await_channel";
      step: number;
      token: string;
      due_at: string;
      channel_index: number;
      channel: string;
      notification_id: string;
      attempts: FallbackAttemptRecord[];
    }
  /** a digest's leader waiting for its window to close (store/workflow-digests.ts holds the digest) */
  | { kind: "digest"; step: number; token: string; due_at: string; digest_id: string };

export interface FallbackAttemptRecord {
  channel: string;
  notification_id: string | null;
  status: string;
  error?: { code: string; message: string };
}

/** One element of step_results (SPEC "Workflow run" step result shapes; DESIGN.md 6 for fallback). */
export type StepResultRecord = Record<string, unknown> & { type: string; step: number };

export type RunStatus = "running" | "completed" | "failed" | "cancelled";

export interface RunRow {
  id: string;
  tenant_id: string;
  environment: string;
  workflow_id: string;
  workflow_version: number;
  workflow_slug: string;
  recipient: string;
  subscriber_id: string | null;
  data: Record<string, unknown>;
  status: RunStatus;
  current_step: number;
  step_results: StepResultRecord[];
  step_state: WaitState | null;
  next_due_at: Date | null;
  rev: number;
  started_at: Date;
  updated_at: Date;
  completed_at: Date | null;
  /** a broadcast's run: `bcast:<broadcast id>:<subscriber id>` (null for a trigger's) */
  idempotency_key?: string | null;
  /** the trigger's `locale` (stored spelling): its sends render in it when the subscriber has none */
  locale: string | null;
}

export interface NewRun {
  id: string;
  tenantId: string;
  environment: string;
  workflowId: string;
  workflowVersion: number;
  workflowSlug: string;
  recipient: string;
  subscriberId: string | null;
  data: Record<string, unknown>;
  /** the trigger's `locale`, already normalized (domain/templates/locale.ts) */
  locale?: string | null;
}

/** The row a new run starts as (what insertRuns writes). */
export function newRunRow(r: NewRun, now = new Date()): RunRow {
  return {
    id: r.id,
    tenant_id: r.tenantId,
    environment: r.environment,
    workflow_id: r.workflowId,
    workflow_version: r.workflowVersion,
    workflow_slug: r.workflowSlug,
    recipient: r.recipient,
    subscriber_id: r.subscriberId,
    data: r.data,
    locale: r.locale ?? null,
    status: "running",
    current_step: 0,
    step_results: [],
    step_state: null,
    next_due_at: null,
    rev: 0,
    started_at: now,
    updated_at: now,
    completed_at: null,
  };
}

/**
 * Inserts new runs (fresh ids: nothing can conflict) and `events` (an events INSERT ... SELECT, such
 * as domain/events/outbox.ts prepareEvents) in one statement: atomic, one round trip for the batch.
 * A row may start finished (a digest member merged at trigger: status, current_step, step_results,
 * rev and completed_at as given); `q` is the caller's transaction, if any.
 */
export async function insertRuns(rows: RunRow[], events: Statement, q: Tx = sql): Promise<void> {
  const doc = JSON.stringify(
    rows.map((r) => ({
      id: r.id,
      tenant_id: r.tenant_id,
      environment: r.environment,
      workflow_id: r.workflow_id,
      workflow_version: r.workflow_version,
      workflow_slug: r.workflow_slug,
      recipient: r.recipient,
      subscriber_id: r.subscriber_id,
      data: r.data,
      locale: r.locale,
      status: r.status,
      current_step: r.current_step,
      step_results: r.step_results,
      rev: r.rev,
      started_at: r.started_at.toISOString(),
      completed_at: r.completed_at?.toISOString() ?? null,
    })),
  );
  await q`
    with ins as (
      insert into workflow_runs (id, tenant_id, environment, workflow_id, workflow_version, workflow_slug, recipient, subscriber_id, data, locale,
        status, current_step, step_results, rev, started_at, updated_at, completed_at)
      select id, tenant_id, environment, workflow_id, workflow_version, workflow_slug, recipient, subscriber_id, data, locale,
        status, current_step, step_results, rev, started_at, coalesce(completed_at, started_at), completed_at
      from jsonb_to_recordset(${doc}::text::jsonb) as t(id uuid, tenant_id uuid, environment text, workflow_id uuid, workflow_version int,
        workflow_slug text, recipient text, subscriber_id uuid, data jsonb, locale text, status text, current_step int, step_results jsonb,
        rev int, started_at timestamptz, completed_at timestamptz)
      returning id
    ), ev as (${events})
    select count(*) from ins`;
}

// Concurrent jobs share their reads: one statement per batch of run ids.
const loadBatcher = new MicroBatcher<string, RunRow | null>(
  async (ids) => {
    const rows = await sql<RunRow[]>`select * from workflow_runs where id = any(${ids}::uuid[])`;
    const byId = new Map(rows.map((r) => [r.id, r]));
    return ids.map((id) => byId.get(id) ?? null);
  },
  { maxSize: 500, maxWaitMs: 1, maxConcurrent: 2 },
);

/** The run as the engine sees it (by id alone: messages carry only the id). */
export async function loadRun(id: string): Promise<RunRow | null> {
  return await loadBatcher.submit(id);
}

export async function getRun(scope: Scope, id: string): Promise<RunRow | null> {
  const [row] = await sql<RunRow[]>`select * from workflow_runs
    where id = ${id} and tenant_id = ${scope.tenantId} and environment = ${scope.environment}`;
  return row ?? null;
}

/** Newest first (UUID v7 ids); `limit + 1` rows for the page meta. */
export async function listRuns(
  scope: Scope,
  q: { limit: number; afterId: string | null; status?: string; workflowId?: string; subscriberId?: string },
): Promise<RunRow[]> {
  return await sql<RunRow[]>`
    select * from workflow_runs
    where tenant_id = ${scope.tenantId} and environment = ${scope.environment}
      ${q.status ? sql`and status = ${q.status}` : sql``}
      ${q.workflowId ? sql`and workflow_id = ${q.workflowId}::uuid` : sql``}
      ${q.subscriberId ? sql`and subscriber_id = ${q.subscriberId}::uuid` : sql``}
      ${q.afterId ? sql`and id < ${q.afterId}::uuid` : sql``}
    order by id desc
    limit ${q.limit + 1}`;
}

export interface RunPatch {
  /** appended to step_results, in order */
  results: StepResultRecord[];
  currentStep: number;
  /** the wait in progress after this write (null: none) and when it is due */
  wait: WaitState | null;
  /** set when the write ends the run */
  status?: Exclude<RunStatus, "running">;
}

/** A statement to embed as a data-modifying WITH item (an events INSERT ... SELECT). */
export type Statement = PendingQuery<Row[]>;

/**
 * Writes of many runs' state in one statement, each guarded by its rev: a write applies only if
 * nobody wrote that run since it was read (a job that runs twice, or a cancel, makes the second
 * writer's update match no row) and the run is still running. `events` (an INSERT ... SELECT into
 * events whose rows carry `data.run_id`) is written by the same statement, for the runs whose guard
 * passed only. Ids must be distinct within a call. Returns the new rows of the runs written.
 */
export async function writeRuns(writes: { id: string; rev: number; patch: RunPatch }[], events?: Statement): Promise<RunRow[]> {
  const doc = JSON.stringify(
    writes.map((w) => ({
      id: w.id,
      rev: w.rev,
      results: w.patch.results,
      current_step: w.patch.currentStep,
      state: w.patch.wait,
      due: w.patch.wait?.due_at ?? null,
      status: w.patch.status ?? null,
    })),
  );
  // Rows are locked in id order, like every multi-row writer, so two batches cannot deadlock.
  return await sql<RunRow[]>`
    with v as (
      select * from jsonb_to_recordset(${doc}::text::jsonb)
        as v(id uuid, rev int, results jsonb, current_step int, state jsonb, due timestamptz, status text)
    ), locked as (
      select r.id from workflow_runs r join v on v.id = r.id order by r.id for no key update
    ), upd as (
      update workflow_runs r set
        step_results = r.step_results || v.results,
        current_step = v.current_step,
        step_state = v.state,
        next_due_at = v.due,
        status = coalesce(v.status, r.status),
        completed_at = case when v.status is null then r.completed_at else now() end,
        rev = r.rev + 1,
        updated_at = now()
      from v, locked l
      where l.id = v.id and r.id = v.id and r.rev = v.rev and r.status = 'running'
      returning r.*
    )${events ? sql`, ev as (${events} where (data->>'run_id')::uuid in (select id from upd))` : sql``}
    select * from upd`;
}

/**
 * Cancels a running run of the scope, with `events(row)` in the same statement. Null when it is not
 * running (or not there); a job that wrote the run meanwhile makes the guarded write miss: read again.
 */
export async function cancelRunRow(scope: Scope, id: string, events: (row: RunRow) => Statement): Promise<RunRow | null> {
  for (;;) {
    const [cur] = await sql<RunRow[]>`select * from workflow_runs
      where id = ${id} and tenant_id = ${scope.tenantId} and environment = ${scope.environment} and status = 'running'`;
    if (!cur) return null;
    const [row] = await writeRuns(
      [{ id: cur.id, rev: cur.rev, patch: { results: [], currentStep: cur.current_step, wait: null, status: "cancelled" } }],
      events({ ...cur, status: "cancelled" }),
    );
    if (row) return row;
  }
}

/**
 * Current status of notifications, and for in_app ones whether their inbox item was read (false while
 * there is none yet): read fresh, for step conditions.
 */
export async function notificationStates(ids: string[]): Promise<Map<string, { status: string; read: boolean }>> {
  if (!ids.length) return new Map();
  const rows = await sql<{ id: string; status: string; read: boolean }[]>`
    select n.id, n.status, coalesce(i.read_at is not null, false) as read
    from notifications n left join inbox_items i on i.notification_id = n.id
    where n.id = any(${ids}::uuid[]) ${keyDays("n.id", ids)}`;
  return new Map(rows.map((r) => [r.id, { status: r.status, read: r.read }]));
}

/** Status of the notification a run waits on. */
export async function notificationStatus(id: string): Promise<string | null> {
  const [row] = await sql<{ status: string }[]>`select status from notifications where id = ${id} ${keyDays("id", [id])}`;
  return row?.status ?? null;
}

/**
 * What a trigger needs, in one query: the version of `slug` active now (null: none) and the
 * subscriber the recipient names: a live one by id or external_id, else an erased one by the hash
 * of its former id or external_id (see domain/subscribers/erasure.ts); null for a literal address.
 */
export async function triggerLookup(
  scope: Scope,
  slug: string,
  recipient: string,
  identifierHash: string,
): Promise<{ workflow: { id: string; version: number; slug: string } | null; subscriberId: string | null }> {
  const byId = isUuid(recipient);
  const [row] = await sql<{ id: string | null; version: number | null; slug: string | null; subscriber_id: string | null }[]>`
    select w.id, w.version, w.slug, coalesce(
      -- by id first (it wins), then by external_id: index lookups each (an OR of them can be
      -- planned as a walk over the tenant's subscribers; store/subscribers.ts findSubscriber)
      ${
        byId
          ? sql`(select id from subscribers
              where id = ${recipient}::uuid and tenant_id = ${scope.tenantId} and environment = ${scope.environment} and deleted_at is null),`
          : sql``
      }
      (select id from subscribers
        where tenant_id = ${scope.tenantId} and environment = ${scope.environment} and external_id = ${recipient} and deleted_at is null),
      (select subscriber_id from subscriber_erasures
        where tenant_id = ${scope.tenantId} and environment = ${scope.environment} and identifier_hash = ${identifierHash}
          and kind in ('id', 'external_id'))) as subscriber_id
    from (select 1) as one
      left join workflows w on w.tenant_id = ${scope.tenantId} and w.environment = ${scope.environment} and w.slug = ${slug} and w.active`;
  const workflow = row?.id ? { id: row.id, version: row.version!, slug: row.slug! } : null;
  return { workflow, subscriberId: row?.subscriber_id ?? null };
}

// ---------------------------------------------------------------------------------------------
// Recovery (the reconciler): running runs overdue by staleMs, i.e. whose wait ended (next_due_at)
// or whose last write (updated_at) was that long ago, whichever is later.

export interface OverdueRun {
  id: string;
  /** when its message was due to exist: the later of next_due_at and updated_at (epoch ms) */
  due_ms: number;
}

export async function overdueRuns(q: { staleMs: number; limit: number; tenantId?: string }): Promise<OverdueRun[]> {
  return await sql<OverdueRun[]>`
    select id, (extract(epoch from greatest(next_due_at, updated_at)) * 1000)::float8 as due_ms
    from workflow_runs
    where status = 'running' ${q.tenantId ? sql`and tenant_id = ${q.tenantId}` : sql``}
      and greatest(next_due_at, updated_at) < now() - ${q.staleMs + " milliseconds"}::interval
    order by greatest(next_due_at, updated_at)
    limit ${q.limit}`;
}

/** Marks runs as just re-enqueued (updated_at), so the next scan leaves them a full staleness period. */
export async function touchRuns(ids: string[]): Promise<string[]> {
  if (!ids.length) return [];
  const rows = await sql<{ id: string }[]>`
    update workflow_runs set updated_at = now()
    where id in (select id from workflow_runs where id = any(${ids}::uuid[]) and status = 'running' order by id for no key update skip locked)
    returning id`;
  return rows.map((r) => r.id);
}

