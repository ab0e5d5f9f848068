// The workflow run's verdicts as pure functions (SPEC "Workflow run" state table): when a wait is due,
// how a fallback judges the previous send and its own channels, which status a finished step leaves.
import type { WorkflowRunMessage } from "./workflow-run-mail";
import type { RunStatus, StepResultRecord, WaitState } from "../../store/workflow-runs";

/** The run's timer for this wait fired, or its due time has passed (a lost timer, a late message). */
export function isDue(wait: Pick<WaitState, "token" | "due_at">, msg: WorkflowRunMessage, nowMs: number = Date.now()): boolean {
  if (msg.type === "timer" && msg.token === wait.token) return true;
  return nowMs >= Date.parse(wait.due_at);
}

export type Verdict = "delivered" | "not_delivered" | "wait";

/** The previous step's notification (DESIGN.md 6): delivered skips; failed, bounced or suppressed tries the channels; pending or sent waits. */
export function judgePrevious(status: string | null): Verdict {
  if (status === "delivered") return "delivered";
  if (status === "pending" || status === "sent") return "wait";
  return "not_delivered";
}

/** A fallback channel's own notification: delivered or sent is success; pending waits. */
export function judgeChannel(status: string | null): "success" | "failure" | "wait" {
  if (status === "delivered" || status === "sent") return "success";
  if (status === "pending") return "wait";
  return "failure";
}

/** The outcome a fallback step looks at: the nearest earlier send or fallback (null: there is none). */
export function previousOutcome(results: StepResultRecord[], i: number): { delivered: true } | { notificationId: string } | null {
  for (let k = results.length - 1; k >= 0; k--) {
    const r = results[k]!;
    if (r.step >= i) continue;
    if (r.reason === "condition_false") continue; // a step skipped by its `if` sent nothing: look further back
    if (r.type === "send" && typeof r.notification_id === "string") return { notificationId: r.notification_id };
    if (r.type === "fallback") {
      if (r.status === "skipped") return { delivered: true };
      if (typeof r.notification_id === "string") return { notificationId: r.notification_id };
    }
  }
  return null;
}

/** The run's status once step `step` is done: completed after the last step, else still running. */
export function statusAfterStep(step: number, stepCount: number): RunStatus {
  return step + 1 >= stepCount ? "completed" : "running";
}

/** Whether a run in this status still moves (a job, timer or cancel acts on it); terminal runs never change. */
export function isLive(status: RunStatus): boolean {
  return status === "running";
}
