// Messages of the workflow-run actor (actors/workflow-run.ts) and its address: domain/ enqueues with
// these (trigger, wake-ups, recovery) without importing the actor. Messages carry ids, never state.
import type { ActorAddress } from "../runtime/actor";

/**
 * Every message means "look at this run in PostgreSQL and move it on as far as it can go"; the
 * kinds only say why, and what may be treated as due:
 * - `run`: after trigger, or re-enqueued by the reconciler (the run's job or timer was lost);
 * - `timer`: the run's one timer (a delay's end, or the fallback's wait bound); `token` names the
 *   wait it was scheduled for, so a timer left over from an earlier wait is not taken for this one;
 * - `notification`: a notification of the run changed status (an optimisation: the timer bound
 *   and the reconciler make the run correct without it).
 */
export type WorkflowRunMessage =
  | { type: "run"; runId: string }
  | { type: "timer"; runId: string; token: string }
  | { type: "notification"; runId: string; notificationId: string; status: string };

/** Keyed by run id (DESIGN.md 3): one run's messages are handled one at a time, in order. */
export const workflowRunAddress: ActorAddress<WorkflowRunMessage> = {
  name: "workflow-run",
  keyOf: (m) => m.runId,
};

/** The run's single timer: scheduling a new wait replaces the previous one (same id). */
export function workflowRunTimerId(runId: string): string {
  return `wfrun:${runId}`;
}
