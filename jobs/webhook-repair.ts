// The webhook repair job: a periodic scan, one process at a time under the runtime's named lease
// `webhook-repair`, that re-enqueues webhook attempts whose message Redis lost (domain/webhooks/repair.ts).
import { logger } from "../basics/log";
import { repairWebhookWork, REPAIR_LIMIT } from "../domain/webhooks/repair";
import { FAILOVER_STALE_MS, startLeasedLoop, urgentAfterFailover, type Runtime } from "../runtime";
import { getRuntime } from "../store/runtime-handle";

export interface RepairLoopOptions {
  everyMs?: number;
  graceMs?: number;
  limit?: number;
  runtime?: Runtime;
  tenantId?: string;
}

export interface RunningRepair {
  stop(): Promise<void>;
  readonly failures: number;
  /** scans made by this process (it scans only while it holds the lease) */
  readonly scans: number;
}

const REPAIR_EVERY_MS = 15_000;
const REPAIR_DEADLINE_MS = 30_000;

/**
 * Every 15 s, one process at a time (the lease is held for two periods, so a successor takes over
 * 30 s after a holder died), it re-enqueues webhook attempts whose message Redis lost. It runs where
 * webhook work runs (the webhook-dispatcher Procfile line), not in the reconciler: without a
 * dispatcher there is nothing to re-enqueue for, and a slow webhook scan never delays the
 * notifications' one. Two scans at once (a scan longer than the lease) are harmless: a marker is
 * re-enqueued by whichever marks it first.
 */
export function startWebhookRepair(opts: RepairLoopOptions = {}): RunningRepair {
  const runtime = opts.runtime ?? getRuntime();
  const everyMs = opts.everyMs ?? REPAIR_EVERY_MS;
  const log = logger.child({ component: "webhook-repair" });
  const limit = opts.limit ?? REPAIR_LIMIT;
  // after Redis lost acknowledged writes (failover, restart), scans look at markers due 1 s ago, every second for 5 s;
  // the watch answers asynchronously, so `loop` exists before `wake` is ever called
  const failover = urgentAfterFailover(runtime.redis, { log, wake: () => loop.wake() });
  const loop = startLeasedLoop(
    runtime,
    { name: "webhook repair", lease: "webhook-repair", everyMs, leaseTtlMs: 2 * everyMs, runDeadlineMs: REPAIR_DEADLINE_MS, log },
    async () => {
      const urgent = failover.urgent();
      const graceMs = urgent ? Math.min(FAILOVER_STALE_MS, opts.graceMs ?? FAILOVER_STALE_MS) : opts.graceMs;
      const r = await repairWebhookWork({ graceMs, limit, runtime, tenantId: opts.tenantId });
      if (r.requeued) log.warn(r, "webhook repair re-enqueued attempts whose message was gone");
      else if (r.dropped || r.timerGone) log.info(r, "webhook repair settled markers");
      else if (r.inBacklog) log.debug(r, "webhook repair left markers to the dispatcher's backlog");
      // a full page of lost or settled markers: look at the next one at once (a backlog waits for the tick)
      if (r.scanned >= limit && r.requeued + r.dropped > 0) return true;
      return urgent ? 1000 : undefined;
    },
  );
  return {
    get failures() {
      return loop.failures;
    },
    get scans() {
      return loop.runs;
    },
    async stop() {
      await failover.stop();
      await loop.stop();
    },
  };
}
