// The reconciler: re-enqueues pending notifications whose message is gone (Redis restarted without
// persistence, a crash between COMMIT and XADD, a lost retry timer), and compacts the analytics
// rollups. One process does it at a time, under the runtime's named lease.
import { logger } from "../basics/log";
import { createLease, Loop } from "../runtime";
import { compactCounters } from "../store/analytics";
import { requeueOverdueRuns } from "../domain/workflow-recovery";
import { sql } from "../store/db";
import type { NotificationRow } from "../store/notifications";
import { senderMessage, type SendMessage } from "../schemas/messages";
import { getRuntime } from "../store/runtime";
import { channelSender, MAX_ATTEMPTS, recordLostAttempt, recordOutcome } from "./channel-sender";

/** A pending notification untouched this long (and not waiting for a retry) has lost its message. */
export const STALE_AFTER_MS = 60_000;
const SCAN_EVERY_MS = 15_000;
const LEASE_MS = 30_000;
/** Clock difference tolerated between PostgreSQL/app timestamps and Redis stream ids. */
const CLOCK_SLACK_MS = 5_000;

export interface ReconcileResult {
  requeued: number;
  failed: number;
  /** claimed attempts without an outcome, recorded as outcome_unknown */
  lost: number;
  /** stale rows left alone because their message may still wait in a sender backlog */
  inBacklog: number;
}

type Candidate = { id: string; tenant_id: string; environment: string; channel: string; attempt_count: number; enqueued_ms: number };

/**
 * Rows whose message may still be waiting: the stream partition that would hold it has entries not
 * yet handled from before the row's enqueue time (a backlog under overload, not lost work).
 * Requeueing those only doubles the backlog and, before this check, collapsed the sender.
 */
async function withoutBacklog(rows: Candidate[]): Promise<{ lost: Candidate[]; inBacklog: number }> {
  if (!rows.length) return { lost: [], inBacklog: 0 };
  const runtime = getRuntime();
  const since = await runtime.unfinishedSince(channelSender);
  const lost: Candidate[] = [];
  let inBacklog = 0;
  for (const r of rows) {
    const p = runtime.partitionFor(channelSender, senderMessage({ id: r.id, tenantId: r.tenant_id, environment: r.environment, channel: r.channel }, r.attempt_count + 1));
    const unfinished = since[p];
    // Its message (sent at about enqueued_ms) is older than everything unfinished: it was handled and lost.
    if (unfinished === null || unfinished === undefined || r.enqueued_ms + CLOCK_SLACK_MS < unfinished) lost.push(r);
    else inBacklog++;
  }
  return { lost, inBacklog };
}

/**
 * One scan: pending rows older than staleAfterMs whose next attempt (if any) is overdue by as
 * much. Re-enqueueing is safe even when the original message still exists: the attempt claim
 * in the sender lets only one of them reach the provider; rows whose message may still wait in a
 * backlog are left alone. A row whose claimed attempt has no attempt row lost its sender
 * mid-attempt: that attempt is recorded as outcome_unknown first (recordLostAttempt, as the sender
 * does for a redelivered message), then retried, or failed when it was the last. Rows are touched
 * with SKIP LOCKED, so the scan never waits on (or deadlocks with) a sender's batch.
 */
export async function reconcileOnce(
  opts: { staleAfterMs?: number; limit?: number; send?: typeof sendRequeued; /** tests scope a scan to their own tenant */ tenantId?: string } = {},
): Promise<ReconcileResult> {
  const staleMs = opts.staleAfterMs ?? STALE_AFTER_MS;
  const rows = await sql<(Candidate & { lost: boolean })[]>`
    select id, tenant_id, environment, channel, attempt_count,
      (extract(epoch from greatest(updated_at, coalesce(next_attempt_at, updated_at))) * 1000)::float8 as enqueued_ms,
      attempt_count > 0 and not exists (
        select 1 from notification_attempts a where a.notification_id = notifications.id and a.attempt_number = notifications.attempt_count) as lost
    from notifications
    where status = 'pending' ${opts.tenantId ? sql`and tenant_id = ${opts.tenantId}` : sql``}
      and updated_at < now() - ${staleMs + " milliseconds"}::interval
      and (next_attempt_at is null or next_attempt_at < now() - ${staleMs + " milliseconds"}::interval)
    order by updated_at
    limit ${opts.limit ?? 5000}`;
  const lost = rows.filter((r) => r.lost);
  const exhausted = rows.filter((r) => !r.lost && r.attempt_count >= MAX_ATTEMPTS);
  const { lost: gone, inBacklog } = await withoutBacklog(rows.filter((r) => !r.lost && r.attempt_count < MAX_ATTEMPTS));
  const retry: Candidate[] = [...gone];
  let lostRecorded = 0;
  let lostFailed = 0;
  for (const r of lost) {
    const { recorded, next } = await recordLostAttempt({ id: r.id, tenantId: r.tenant_id, environment: r.environment }, r.attempt_count);
    if (!recorded) continue; // recorded elsewhere meanwhile, locked by a sender, or its claim is younger than the sender's deadline
    lostRecorded++;
    if (!next) lostFailed++;
    else if (next.delayMs <= 0) retry.push({ ...r, attempt_count: next.msg.attempt - 1 });
    else await scheduleRetry(next.msg, next.delayMs);
  }
  if (exhausted.length) {
    // through the sender's outcome path, so the failure has its event and its rollup count
    const full = await sql<NotificationRow[]>`select * from notifications where id = any(${exhausted.map((r) => r.id)}::uuid[]) and (status = 'pending') is true`; // primary key, not the partial index
    await Promise.all(
      full.map((n) =>
        recordOutcome({
          n,
          attempt: n.attempt_count,
          provider: n.provider,
          status: "failed",
          error: { code: "attempts_exhausted", message: "the outcome of the last attempt was lost" },
        }),
      ),
    );
  }
  let requeued = 0;
  if (retry.length) {
    // Touch first so the next scan does not pick them again before the sender gets to them. Rows a
    // sender holds are skipped (it is working on them); locks are taken in id order like everyone's.
    const touched = await sql<{ id: string }[]>`
      update notifications set updated_at = now()
      where id in (
        select id from notifications where id = any(${retry.map((r) => r.id)}::uuid[]) and (status = 'pending') is true
        order by id for no key update skip locked)
      returning id`;
    const ids = new Set(touched.map((t) => t.id));
    const send = retry.filter((r) => ids.has(r.id));
    if (send.length) await (opts.send ?? sendRequeued)(send);
    requeued = send.length;
  }
  return { requeued, failed: exhausted.length + lostFailed, lost: lostRecorded, inBacklog };
}

async function scheduleRetry(msg: SendMessage, delayMs: number) {
  await getRuntime().schedule(channelSender, `retry:${msg.notificationId}`, delayMs, msg, { unscaled: true });
}

async function sendRequeued(rows: { id: string; tenant_id: string; environment: string; channel: string; attempt_count: number }[]) {
  await getRuntime().sendMany(
    channelSender,
    rows.map((r) => senderMessage({ id: r.id, tenantId: r.tenant_id, environment: r.environment, channel: r.channel }, r.attempt_count + 1)),
  );
}

export interface RunningReconciler {
  stop(): Promise<void>;
  /** Scans that failed (each is retried at the next tick). */
  readonly failures: number;
}

/** Starts the periodic scan; only the holder of the runtime lease `reconciler` scans, so many processes may run it. */
export function startReconciler(opts: { everyMs?: number; staleAfterMs?: number; tenantId?: string } = {}): RunningReconciler {
  const runtime = getRuntime();
  const lease = createLease(runtime, "reconciler", { ttlMs: LEASE_MS });
  const log = logger.child({ component: "reconciler" });
  const loop = new Loop({ name: "reconciler scan", everyMs: opts.everyMs ?? SCAN_EVERY_MS, runDeadlineMs: LEASE_MS, log }, async () => {
    if (!(await lease.hold())) return;
    const r = await reconcileOnce({ staleAfterMs: opts.staleAfterMs, tenantId: opts.tenantId });
    if (r.requeued || r.failed || r.lost) log.info(r, "reconciler re-enqueued pending notifications");
    else if (r.inBacklog) log.debug(r, "reconciler left stale rows to the sender backlog");
    // the same lease also keeps the analytics rollups compact (store/analytics.ts)
    await compactCounters();
    // and restarts workflow runs whose job or timer is gone (domain/workflow-recovery.ts)
    const runs = await requeueOverdueRuns({ staleAfterMs: opts.staleAfterMs, tenantId: opts.tenantId });
    if (runs.requeued) log.info(runs, "reconciler re-enqueued overdue workflow runs");
  }).start(opts.everyMs ?? SCAN_EVERY_MS);
  return {
    get failures() {
      return loop.failures;
    },
    async stop() {
      await loop.stop();
      await lease.release().catch(() => {});
    },
  };
}
