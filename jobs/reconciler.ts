// The reconciler job: one process at a time (the runtime's named lease `reconciler`) re-enqueues lost
// notifications (domain/delivery/reconcile.ts) and overdue workflow runs, and compacts the analytics rollups.
import { config } from "../config";
import { logger } from "../basics/log";
import { reconcileOnce, STALE_AFTER_MS } from "../domain/delivery/reconcile";
import { requeueOverdueRuns } from "../domain/workflows/recovery";
import { FAILOVER_STALE_MS, startLeasedLoop, urgentAfterFailover } from "../runtime";
import { compactCounters } from "../store/analytics";
import { getRuntime } from "../store/runtime-handle";

const SCAN_EVERY_MS = config.reconcilerEveryMs;
const LEASE_MS = 30_000;

export interface RunningReconciler {
  stop(): Promise<void>;
  /** Scans that failed (each is retried at the next tick). */
  readonly failures: number;
}

/** Starts the periodic scan; only the holder of the runtime lease `reconciler` scans, so many processes may run it. */
export function startReconciler(opts: { everyMs?: number; staleAfterMs?: number; tenantId?: string } = {}): RunningReconciler {
  const log = logger.child({ component: "reconciler" });
  const everyMs = opts.everyMs ?? SCAN_EVERY_MS;
  // the watch answers asynchronously, so `loop` exists before `wake` is ever called
  const failover = urgentAfterFailover(getRuntime().redis, { log, wake: () => loop.wake() });
  const loop = startLeasedLoop(getRuntime(), { name: "reconciler scan", lease: "reconciler", everyMs, leaseTtlMs: LEASE_MS, log }, async () => {
    const urgent = failover.urgent();
    const staleAfterMs = urgent ? Math.min(FAILOVER_STALE_MS, opts.staleAfterMs ?? STALE_AFTER_MS) : opts.staleAfterMs;
    const r = await reconcileOnce({ staleAfterMs, tenantId: opts.tenantId });
    if (urgent && (r.requeued || r.lost)) log.warn(r, "reconciler re-enqueued work Redis lost (failover)");
    if (r.requeued || r.failed || r.lost) log.info(r, "reconciler re-enqueued pending notifications");
    else if (r.inBacklog) log.debug(r, "reconciler left stale rows to the sender backlog");
    // the same lease also keeps the analytics rollups compact (store/analytics.ts)
    await compactCounters();
    // and restarts workflow runs whose job or timer is gone (domain/workflows/recovery.ts)
    const runs = await requeueOverdueRuns({ staleAfterMs: staleAfterMs ?? STALE_AFTER_MS, tenantId: opts.tenantId });
    if (runs.requeued) log.info(runs, "reconciler re-enqueued overdue workflow runs");
    // within a failover window: again in a second (accepts whose enqueue failed during the election)
    return urgent ? 1000 : undefined;
  });
  return {
    get failures() {
      return loop.failures;
    },
    async stop() {
      await failover.stop();
      await loop.stop();
    },
  };
}
