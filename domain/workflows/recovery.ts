// Recovery of workflow runs whose job or timer is gone (Redis restarted empty, a crash between COMMIT
// and XADD): the reconciler's scan re-enqueues running runs that are overdue in PostgreSQL.
import { workflowRunAddress, type WorkflowRunMessage } from "./workflow-run-mail";
import { getRuntime } from "../../store/runtime-handle";
import { overdueRuns, touchRuns } from "../../store/workflow-runs";

/** A running run whose wait ended (or that was last written) this long ago has lost its job. */
const RUN_STALE_AFTER_MS = 60_000;

export interface RunRecovery {
  requeued: number;
  /** overdue runs left alone: their message may still wait in a backlog of the workflow-run stream */
  inBacklog: number;
}

/**
 * Re-enqueues overdue running runs. Safe when the job still exists (the handler is idempotent),
 * but a run whose partition has unfinished entries older than its due time may just be queued
 * behind a backlog: it is left alone rather than doubling the backlog.
 */
export async function requeueOverdueRuns(opts: { staleAfterMs?: number; limit?: number; tenantId?: string } = {}): Promise<RunRecovery> {
  const rows = await overdueRuns({ staleMs: opts.staleAfterMs ?? RUN_STALE_AFTER_MS, limit: opts.limit ?? 5000, tenantId: opts.tenantId });
  if (!rows.length) return { requeued: 0, inBacklog: 0 };
  const runtime = getRuntime();
  const message = (id: string): WorkflowRunMessage => ({ v: 1, type: "run", runId: id });
  const queued = await runtime.stillQueued(workflowRunAddress, rows.map((r) => ({ msg: message(r.id), sentAtMs: r.due_ms })));
  const lost = rows.filter((_, i) => !queued[i]);
  const touched = await touchRuns(lost.map((r) => r.id));
  if (touched.length) await runtime.sendMany(workflowRunAddress, touched.map(message));
  return { requeued: touched.length, inBacklog: rows.length - lost.length };
}
