// Waking workflow runs when a notification of theirs changes status: one message per moved
// notification to the workflow-run actor, so a fallback step waiting on an outcome goes on at once.
import { logger } from "../../basics/log";
import { workflowRunAddress, type WorkflowRunMessage } from "./workflow-run-mail";
import { getRuntime } from "../../store/runtime-handle";

export interface WorkflowWakeup {
  notificationId: string;
  /** notifications.workflow_run_id (the run waiting on its outcome); moves without a run are ignored */
  workflowRunId: string | null | undefined;
  /** the status it moved to */
  status: string;
}

/** Statuses a run may be waiting for: accepted by the provider, or final. */
const WAKING = new Set(["sent", "delivered", "failed", "bounced", "suppressed"]);

/**
 * Call after the transaction that moved the notifications committed (the run re-reads the status
 * from PostgreSQL). Never throws: the message is an optimisation, and a run whose wake-up is lost
 * still goes on when its wait bound (FALLBACK_WAIT) fires or the reconciler finds it overdue.
 */
export async function wakeWorkflowRuns(moves: WorkflowWakeup[]): Promise<void> {
  const msgs: WorkflowRunMessage[] = [];
  for (const m of moves) {
    if (m.workflowRunId && WAKING.has(m.status)) msgs.push({ v: 1, type: "notification", runId: m.workflowRunId, notificationId: m.notificationId, status: m.status });
  }
  if (!msgs.length) return;
  try {
    await getRuntime().sendMany(workflowRunAddress, msgs);
  } catch (err) {
    logger.warn({ err, count: msgs.length }, "workflow wake-up not sent; the runs go on at their wait bound");
  }
}
