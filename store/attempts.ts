// The channel sender's SQL: the batched claim of attempt n, a batch of outcomes' attempt rows and
// guarded status moves, lost-attempt recovery's reads and writes, and the reconciler's scan.
//
// Every statement here finds notifications by primary key only and locks them in id order: every
// multi-row writer of notifications locks in that order, so batches cannot deadlock. Status and
// attempt are checked on the locked row, never used to find it, and `(status = 'pending') is true`
// keeps the planner off the partial pending index: with statistics lagging behind a burst it chose
// that index and walked every pending row per batch (150/s). Tenant and environment in the join made
// a generic plan walk the (tenant, environment, created_at) index per id, ~3 ms a row at 100k rows.
import { config } from "../config";
import { sql, type Tx } from "./db";
import { keyDays } from "./history-keys";
import { newId } from "./ids";
import { MicroBatcher } from "./micro-batcher";
import type { NotificationRow } from "./notifications";

/** Items sorted by id, the one order in which every writer locks notification rows. */
export function inIdOrder<T>(items: readonly T[], idOf: (item: T) => string): T[] {
  return [...items].sort((a, b) => (idOf(a) < idOf(b) ? -1 : idOf(a) > idOf(b) ? 1 : 0));
}

// ---------------------------------------------------------------------------------------------
// Claim: attempt n belongs to whoever moves attempt_count from n-1 to n. A redelivered message
// finds attempt_count already n and stops before the provider. Batched across handlers.

export interface ClaimItem {
  id: string;
  tenantId: string;
  environment: string;
  attempt: number;
  provider: string;
  /** the claiming host (ActorContext.hostId), kept in claimed_by */
  host?: string;
}

async function claimBatch(items: ClaimItem[]): Promise<(NotificationRow | null)[]> {
  // The FOR UPDATE sits above the sort, so rows are locked in id order.
  const sorted = inIdOrder(items, (i) => i.id);
  const ids = sorted.map((i) => i.id);
  const rows = await sql<NotificationRow[]>`
    with locked as (
      select n.id, n.tenant_id, n.environment, n.status, n.attempt_count from notifications n
      where n.id = any(${ids}::uuid[]) ${keyDays("n.id", ids)} order by n.id for no key update
    )
    update notifications n set attempt_count = v.attempt, provider = v.provider, updated_at = now(), claimed_at = now(), claimed_by = v.host
    from locked l join unnest(${ids}::uuid[], ${sorted.map((i) => i.tenantId)}::uuid[], ${sorted.map((i) => i.environment)}::text[],
                ${sorted.map((i) => i.attempt)}::int[], ${sorted.map((i) => i.provider)}::text[], ${sorted.map((i) => i.host ?? null)}::text[]) as v(id, tenant_id, environment, attempt, provider, host)
      on v.id = l.id
    where n.id = l.id ${keyDays("n.id", ids)} and l.tenant_id = v.tenant_id and l.environment = v.environment
      and l.status = 'pending' and l.attempt_count = v.attempt - 1
    returning n.*`;
  // Results in the caller's order; duplicates of one message in one batch: the row goes to the first of them only.
  const byId = new Map(rows.map((r) => [r.id, r]));
  return items.map((i) => {
    const row = byId.get(i.id) ?? null;
    byId.delete(i.id);
    return row;
  });
}

const claimBatcher = new MicroBatcher<ClaimItem, NotificationRow | null>(claimBatch, {
  maxSize: 500,
  maxWaitMs: 1,
  busyWaitMs: () => config.deliveryBatchBusyWaitMs, // a send's first batched statement: the one that waits for company
  startAt: () => config.deliveryBatchStartAt, // ... until enough company came: thousands a second need not wait the whole wait
  maxConcurrent: 2,
  name: "delivery claims",
});

/**
 * Claims attempt `item.attempt` (sets attempt_count, provider and claimed_at); resolves to the
 * claimed row, or null when the notification is terminal, gone, of another tenant or environment,
 * or its attempt is already claimed.
 */
export function claimAttempt(item: ClaimItem): Promise<NotificationRow | null> {
  return claimBatcher.submit(item);
}

/** Gives a claim back (a rate-limited message keeps its attempt number for the rescheduled run). */
export async function releaseClaim(id: string, attempt: number): Promise<void> {
  await sql`update notifications set attempt_count = ${attempt - 1} where id = ${id} ${keyDays("id", [id])} and attempt_count = ${attempt} and (status = 'pending') is true`;
}

// ---------------------------------------------------------------------------------------------
// Outcome: the attempt row and the guarded status move (domain/delivery/outcomes.ts adds the events
// and rollup counters in the same transaction).

export interface Outcome {
  n: NotificationRow;
  attempt: number;
  provider: string | null;
  status: "sent" | "delivered" | "bounced" | "failed" | "suppressed" | "pending";
  /** the provider was called: record an attempt row */
  attemptRow?: { status: "success" | "failure"; response: Record<string, unknown>; error: { code: string; message: string } | null; durationMs: number };
  providerMessageId?: string | null;
  error?: { code: string; message: string } | null;
  nextAttemptAt?: Date | null;
  suppressedReason?: string | null;
  willRetry?: boolean;
  /** the provider said the recipient is gone (FCM UNREGISTERED, push 404/410): list its address with the status move */
  recipientUnregistered?: boolean;
}

/**
 * Writes the attempt rows of `outs` (already in id order: attempt rows take a KEY SHARE lock on
 * their notification) and moves each notification still pending at that attempt; resolves to the
 * ids that moved. Both statements go out at once; the attempt rows' error, if any, is reported first
 * (it is the cause of the update's).
 */
export async function writeAttemptsAndMoves(tx: Tx, outs: Outcome[], now: Date): Promise<Set<string>> {
  const withAttempt = outs.filter((o) => o.attemptRow);
  // Rows travel as one JSON document each (native JSON.stringify, no per-element array escaping).
  let attemptsWritten: Promise<unknown> = Promise.resolve();
  if (withAttempt.length) {
    const doc = JSON.stringify(
      withAttempt.map((o) => ({
        id: newId(),
        notification_id: o.n.id,
        tenant_id: o.n.tenant_id,
        attempt_number: o.attempt,
        status: o.attemptRow!.status,
        provider: o.provider,
        provider_response: o.attemptRow!.response ?? {},
        error: o.attemptRow!.error,
        duration_ms: o.attemptRow!.durationMs,
      })),
    );
    attemptsWritten = tx`
      insert into notification_attempts (id, notification_id, tenant_id, attempt_number, status, provider, provider_response, error, duration_ms, created_at)
      select id, notification_id, tenant_id, attempt_number, status, provider, provider_response, error, duration_ms, ${now}
      from jsonb_to_recordset(${doc}::text::jsonb) as a(id uuid, notification_id uuid, tenant_id uuid, attempt_number int, status text,
        provider text, provider_response jsonb, error jsonb, duration_ms int)
      on conflict (notification_id, attempt_number) do nothing`.execute();
    attemptsWritten.catch(() => {}); // awaited with the status move below
  }
  const doc = JSON.stringify(
    outs.map((o) => ({
      id: o.n.id,
      attempt: o.attempt,
      status: o.status,
      provider: o.provider,
      pmid: o.providerMessageId ?? null,
      error: o.error ?? null,
      next_at: o.nextAttemptAt ? o.nextAttemptAt.toISOString() : null,
      reason: o.suppressedReason ?? null,
    })),
  );
  const ids = outs.map((o) => o.n.id);
  const movedQuery = tx<{ id: string }[]>`
    with locked as (
      select n.id from notifications n where n.id = any(${ids}::uuid[]) ${keyDays("n.id", ids)} order by n.id for no key update
    )
    update notifications n set
      status = v.status,
      provider = coalesce(v.provider, n.provider),
      provider_message_id = coalesce(v.pmid, n.provider_message_id),
      error = v.error,
      next_attempt_at = v.next_at,
      suppressed_reason = v.reason,
      updated_at = ${now},
      sent_at = case when v.status in ('sent', 'delivered', 'bounced') then coalesce(n.sent_at, ${now}) else n.sent_at end,
      delivered_at = case when v.status = 'delivered' then ${now} else n.delivered_at end,
      bounced_at = case when v.status = 'bounced' then ${now} else n.bounced_at end,
      failed_at = case when v.status = 'failed' then ${now} else n.failed_at end
    from locked l join jsonb_to_recordset(${doc}::text::jsonb) as v(id uuid, attempt int, status text, provider text, pmid text, error jsonb,
      next_at timestamptz, reason text) on v.id = l.id
    where n.id = l.id ${keyDays("n.id", ids)} and (n.status = 'pending') is true and n.attempt_count = v.attempt -- "is true": never the partial pending index
    returning n.id`.execute();
  const [, moved] = await Promise.all([attemptsWritten, movedQuery]);
  return new Set(moved.map((m) => m.id));
}

// ---------------------------------------------------------------------------------------------
// Lost attempts: a claim (attempt_count = n, status pending) without an attempt row n.

const staleInterval = (staleMs: number) => `${staleMs} milliseconds`;

/** A notification's current attempt: has_outcome when its attempt row exists; next_attempt_at is set while a retry is due. */
export type ClaimState = { status: string; attempt_count: number; has_outcome: boolean; stale_in_ms: number; claimed_by: string | null; next_attempt_at: Date | null };

/** Where a notification's claimed attempt stands: null when the notification is gone (or another tenant's). */
export async function claimStateOf(
  ref: { id: string; tenantId: string; environment: string },
  staleMs: number,
): Promise<ClaimState | null> {
  const [s] = await sql<ClaimState[]>`
    select n.status, n.attempt_count, n.claimed_by, n.next_attempt_at,
      exists (select 1 from notification_attempts a where a.notification_id = n.id ${keyDays("a.notification_id", [ref.id])}
        and a.attempt_number = n.attempt_count) as has_outcome,
      greatest(0, ceil(extract(epoch from coalesce(n.claimed_at, n.updated_at) + ${staleInterval(staleMs)}::interval - now()) * 1000))::int as stale_in_ms
    from notifications n
    where n.id = ${ref.id} ${keyDays("n.id", [ref.id])} and n.tenant_id = ${ref.tenantId} and n.environment = ${ref.environment}`;
  return s ?? null;
}

/**
 * Locks the notification when attempt `attempt` is its pending claim and that claim is older than
 * staleMs; `claimed` is the claim's time. A row a sender batch holds is being worked on: it is
 * skipped rather than waited for (or deadlocked with).
 */
export async function lockStaleClaim(
  tx: Tx,
  ref: { id: string; tenantId: string; environment: string },
  attempt: number,
  staleMs: number,
): Promise<(NotificationRow & { claimed: Date }) | null> {
  const [n] = await tx<(NotificationRow & { claimed: Date })[]>`
    select n.*, coalesce(n.claimed_at, n.updated_at) as claimed from notifications n
    where n.id = ${ref.id} ${keyDays("n.id", [ref.id])} and n.tenant_id = ${ref.tenantId} and n.environment = ${ref.environment}
      and (n.status = 'pending') is true and n.attempt_count = ${attempt}
      and coalesce(n.claimed_at, n.updated_at) < now() - ${staleInterval(staleMs)}::interval
    for no key update skip locked`;
  return n ?? null;
}

/**
 * Writes attempt `attempt` as a failure whose outcome is unknown (no duration, no response);
 * resolves to false when the attempt row already exists (another process recorded it).
 */
export async function insertUnknownAttempt(tx: Tx, n: NotificationRow, attempt: number, error: { code: string; message: string }): Promise<boolean> {
  const inserted = await tx`
    insert into notification_attempts (id, notification_id, tenant_id, attempt_number, status, provider, provider_response, error, duration_ms, created_at)
    values (${newId()}, ${n.id}, ${n.tenant_id}, ${attempt}, 'failure', ${n.provider}, '{}'::jsonb, ${JSON.stringify(error)}::text::jsonb, null, now())
    on conflict (notification_id, attempt_number) do nothing
    returning id`;
  return inserted.length > 0;
}

// ---------------------------------------------------------------------------------------------
// The reconciler's scan (jobs/reconciler.ts): pending rows nobody has touched for a while.

export interface StaleCandidate {
  id: string;
  tenant_id: string;
  environment: string;
  channel: string;
  attempt_count: number;
  /** its sender lane (high, normal, low) */
  priority: string;
  /** when its last message was due: the later of updated_at and next_attempt_at, epoch ms */
  enqueued_ms: number;
  /** its claimed attempt has no attempt row (the sender died mid-attempt) */
  lost: boolean;
}

/** Pending rows untouched for staleMs whose next attempt (if any) is overdue by as much, oldest first. */
export async function stalePending(opts: { staleMs: number; limit: number; tenantId?: string }): Promise<StaleCandidate[]> {
  const staleMs = opts.staleMs;
  return await sql<StaleCandidate[]>`
    select id, tenant_id, environment, channel, attempt_count, priority,
      (extract(epoch from greatest(updated_at, coalesce(next_attempt_at, updated_at))) * 1000)::float8 as enqueued_ms,
      attempt_count > 0 and not exists (
        select 1 from notification_attempts a where a.notification_id = notifications.id and a.attempt_number = notifications.attempt_count) as lost
    from notifications
    where status = 'pending' ${opts.tenantId ? sql`and tenant_id = ${opts.tenantId}` : sql``}
      and updated_at < now() - ${staleMs + " milliseconds"}::interval
      and (next_attempt_at is null or next_attempt_at < now() - ${staleMs + " milliseconds"}::interval)
    order by updated_at
    limit ${opts.limit}`;
}

/** The rows of `ids` still pending (by primary key, not the partial pending index). */
export async function pendingByIds(ids: string[]): Promise<NotificationRow[]> {
  return await sql<NotificationRow[]>`select * from notifications where id = any(${ids}::uuid[]) ${keyDays("id", ids)} and (status = 'pending') is true`;
}

/**
 * Sets updated_at on the rows of `ids` still pending, so the next scan does not pick them again
 * before the sender gets to them; resolves to the ids touched. Rows a sender holds are skipped (it
 * is working on them); locks are taken in id order like everyone's.
 */
export async function touchPending(ids: string[]): Promise<Set<string>> {
  const touched = await sql<{ id: string }[]>`
    update notifications set updated_at = now()
    where true ${keyDays("id", ids)} and id in (
      select id from notifications where id = any(${ids}::uuid[]) ${keyDays("id", ids)} and (status = 'pending') is true
      order by id for no key update skip locked)
    returning id`;
  return new Set(touched.map((t) => t.id));
}
