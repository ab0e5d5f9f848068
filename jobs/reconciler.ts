// The reconciler job: one process at a time (the runtime's named lease `reconciler`) re-enqueues lost
// notifications (domain/delivery/reconcile.ts) and overdue workflow runs, and compacts the analytics rollups.
import { config } from "../config";
import { logger } from "../basics/log";
import { reconcileOnce, STALE_AFTER_MS } from "../domain/delivery/reconcile";
import { requeueOverdueRuns } from "../domain/workflows/recovery";
import { startLeasedLoop } from "../runtime";
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
  return startLeasedLoop(getRuntime(), { name: "reconciler scan", lease: "reconciler", everyMs, leaseTtlMs: LEASE_MS, log }, async () => {
    const r = await reconcileOnce({ staleAfterMs: opts.staleAfterMs, tenantId: opts.tenantId });
    if (r.requeued || r.failed || r.lost) log.info(r, "reconciler re-enqueued pending notifications");
    else if (r.inBacklog) log.debug(r, "reconciler left stale rows to the sender backlog");
    // the same lease also keeps the analytics rollups compact (store/analytics.ts)
    await compactCounters();
    // and restarts workflow runs whose job or timer is gone (domain/workflows/recovery.ts)
    const runs = await requeueOverdueRuns({ staleAfterMs: opts.staleAfterMs ?? STALE_AFTER_MS, tenantId: opts.tenantId });
    if (runs.requeued) log.info(runs, "reconciler re-enqueued overdue workflow runs");
  });
}
