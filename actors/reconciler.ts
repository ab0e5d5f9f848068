// The reconciler: re-enqueues pending notifications whose message is gone (Redis restarted without
// persistence, a crash between COMMIT and XADD, a lost retry timer), and compacts the analytics
// rollups. One process does it at a time, under a Redis lease.
import { logger } from "../basics/log";
import { compactCounters } from "../store/analytics";
import { sql } from "../store/db";
import { redis } from "../store/redis";
import { redisKey } from "../store/redis-keys";
import type { NotificationRow } from "../store/notifications";
import { senderMessage, type SendMessage } from "../schemas/messages";
import { getRuntime } from "../store/runtime";
import { channelSender, MAX_ATTEMPTS, recordLostAttempt, recordOutcome } from "./channel-sender";

/** A pending notification untouched this long (and not waiting for a retry) has lost its message. */
export const STALE_AFTER_MS = 60_000;
const SCAN_EVERY_MS = 15_000;
const LEASE_MS = 30_000;

export interface ReconcileResult {
  requeued: number;
  failed: number;
  /** claimed attempts without an outcome, recorded as outcome_unknown */
  lost: number;
}

/**
 * One scan: pending rows older than staleAfterMs whose next attempt (if any) is overdue by as
 * much. Re-enqueueing is safe even when the original message still exists: the attempt claim
 * in the sender lets only one of them reach the provider. A row whose claimed attempt has no
 * attempt row lost its sender mid-attempt: that attempt is recorded as outcome_unknown first
 * (recordLostAttempt, as the sender does for a redelivered message), then retried, or failed
 * when it was the last.
 */
export async function reconcileOnce(
  opts: { staleAfterMs?: number; limit?: number; send?: typeof sendRequeued; /** tests scope a scan to their own tenant */ tenantId?: string } = {},
): Promise<ReconcileResult> {
  const staleMs = opts.staleAfterMs ?? STALE_AFTER_MS;
  const rows = await sql<{ id: string; tenant_id: string; environment: string; channel: string; attempt_count: number; lost: boolean }[]>`
    select id, tenant_id, environment, channel, attempt_count,
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
  const retry = rows.filter((r) => !r.lost && r.attempt_count < MAX_ATTEMPTS);
  let lostRecorded = 0;
  let lostFailed = 0;
  for (const r of lost) {
    const { recorded, next } = await recordLostAttempt({ id: r.id, tenantId: r.tenant_id, environment: r.environment }, r.attempt_count);
    if (!recorded) continue; // recorded elsewhere meanwhile, or its claim is younger than the sender's deadline
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
  if (retry.length) {
    // touch first so the next scan does not pick them again before the sender gets to them
    await sql`update notifications set updated_at = now() where id = any(${retry.map((r) => r.id)}::uuid[]) and (status = 'pending') is true`;
    await (opts.send ?? sendRequeued)(retry);
  }
  return { requeued: retry.length, failed: exhausted.length + lostFailed, lost: lostRecorded };
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

/** Starts the periodic scan; only the holder of the Redis lease scans, so many processes may run it. */
export function startReconciler(opts: { everyMs?: number; staleAfterMs?: number; tenantId?: string } = {}): { stop(): Promise<void> } {
  const leaseKey = redisKey("reconciler", "lease");
  const me = `${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  let stopped = false;
  let running: Promise<void> | null = null;
  const tick = async () => {
    try {
      const got = await redis.set(leaseKey, me, "PX", LEASE_MS, "NX");
      const mine = got === "OK" || (await redis.get(leaseKey)) === me;
      if (!mine) return;
      await redis.pexpire(leaseKey, LEASE_MS);
      const r = await reconcileOnce({ staleAfterMs: opts.staleAfterMs, tenantId: opts.tenantId });
      if (r.requeued || r.failed || r.lost) logger.info(r, "reconciler re-enqueued pending notifications");
      // the same lease also keeps the analytics rollups compact (store/analytics.ts)
      await compactCounters();
    } catch (err) {
      logger.warn({ err }, "reconciler scan failed");
    }
  };
  const timer = setInterval(() => {
    if (!stopped && !running) running = tick().finally(() => (running = null));
  }, opts.everyMs ?? SCAN_EVERY_MS);
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
      // release only our own lease
      await redis.eval("if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0", 1, leaseKey, me).catch(() => {});
    },
  };
}

