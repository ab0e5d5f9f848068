// STUB on the `receipts` branch: the workflows engineer's real domain/workflow-wakeups.ts replaces this
// file at merge. It wakes workflow runs waiting on a notification's outcome once its status moved.

export interface WorkflowWakeup {
  notificationId: string;
  workflowRunId: string;
  /** the notification's new status: sent, delivered, failed or bounced */
  status: string;
}

/**
 * Called by domain/receipts.ts after a provider receipt's transaction committed, with every status
 * move of a notification that belongs to a workflow run. A no-op until workflows land.
 */
export async function wakeWorkflowRuns(_moves: WorkflowWakeup[]): Promise<void> {
  // intentionally empty: replaced by the workflows branch
}
