// The reconciler's scan of notifications: re-enqueues pending ones whose message is gone (Redis restarted
// without persistence, a crash between COMMIT and XADD, a lost retry timer); jobs/reconciler.ts runs it.
import { config } from "../../config";
import { pendingByIds, stalePending, touchPending, type StaleCandidate } from "../../store/attempts";
import { getRuntime } from "../../store/runtime-handle";
import { byLane, senderAddressOf, senderMessage, type SendMessage } from "./channel-sender-mail";
import { recordLostAttempt } from "./lost-attempts";
import { recordOutcome } from "./outcomes";
import { MAX_ATTEMPTS, senderTimers } from "./policy";

/** A pending notification untouched this long (and not waiting for a retry) has lost its message. */
export const STALE_AFTER_MS = config.reconcilerStaleAfterMs;

export interface ReconcileResult {
  requeued: number;
  failed: number;
  /** claimed attempts without an outcome, recorded as outcome_unknown */
  lost: number;
  /** stale rows left alone because their message may still wait in a sender backlog */
  inBacklog: number;
}

type Candidate = Omit<StaleCandidate, "lost">;

/**
 * Rows whose message may still be waiting behind a backlog of its partition (overload, not lost
 * work) are left alone: requeueing those only doubles the backlog and, before this check,
 * collapsed the sender. The runtime answers which (stillQueued).
 */
async function withoutBacklog(rows: Candidate[]): Promise<{ lost: Candidate[]; inBacklog: number }> {
  const items = rows.map((r) => ({
    row: r,
    msg: senderMessage({ id: r.id, tenantId: r.tenant_id, environment: r.environment, channel: r.channel, priority: r.priority }, r.attempt_count + 1),
    sentAtMs: r.enqueued_ms,
  }));
  // each lane's streams are asked about their own messages
  const queued = new Set<Candidate>();
  for (const lane of byLane(items, (i) => i.msg)) {
    const answers = await getRuntime().stillQueued(lane.address, lane.items.map((i) => ({ msg: i.msg, sentAtMs: i.sentAtMs })));
    lane.items.forEach((i, k) => answers[k] && queued.add(i.row));
  }
  return { lost: rows.filter((r) => !queued.has(r)), inBacklog: queued.size };
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
  const rows = await stalePending({ staleMs: opts.staleAfterMs ?? STALE_AFTER_MS, limit: opts.limit ?? 5000, tenantId: opts.tenantId });
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
    const full = await pendingByIds(exhausted.map((r) => r.id));
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
    // touched first, so the next scan does not pick them again before the sender gets to them
    const ids = await touchPending(retry.map((r) => r.id));
    const send = retry.filter((r) => ids.has(r.id));
    if (send.length) await (opts.send ?? sendRequeued)(send);
    requeued = send.length;
  }
  return { requeued, failed: exhausted.length + lostFailed, lost: lostRecorded, inBacklog };
}

async function scheduleRetry(msg: SendMessage, delayMs: number) {
  await getRuntime().schedule(senderAddressOf(msg), senderTimers.retry(msg.notificationId), delayMs, msg, { unscaled: true });
}

async function sendRequeued(rows: { id: string; tenant_id: string; environment: string; channel: string; attempt_count: number; priority?: string }[]) {
  const msgs = rows.map((r) => senderMessage({ id: r.id, tenantId: r.tenant_id, environment: r.environment, channel: r.channel, priority: r.priority }, r.attempt_count + 1));
  for (const lane of byLane(msgs, (m) => m)) await getRuntime().sendMany(lane.address, lane.items);
}

