// The workflow-run actor's mail: its messages (versioned, ids only, never state), its address and its
// timer id; trigger, wake-ups and recovery enqueue with these (actors/workflow-run.ts is defined from them).
import type { ActorAddress } from "../../runtime";

/**
 * Every message means "look at this run in PostgreSQL and move it on as far as it can go"; the
 * kinds only say why, and what may be treated as due:
 * - `run`: after trigger, or re-enqueued by the reconciler (the run's job or timer was lost);
 * - `timer`: the run's one timer (a delay's end, or the fallback's wait bound); `token` names the
 *   wait it was scheduled for, so a timer left over from an earlier wait is not taken for this one;
 * - `notification`: a notification of the run changed status (an optimisation: the timer bound
 *   and the reconciler make the run correct without it).
 * `v` is the shape's version (docs/runtime.md, "Changing a message shape"); a message read without
 * one was written before the tag and is version 1.
 */
export type WorkflowRunMessage =
  | { v: 1; type: "run"; runId: string }
  | { v: 1; type: "timer"; runId: string; token: string }
  | { v: 1; type: "notification"; runId: string; notificationId: string; status: string };

/** Keyed by run id (DESIGN.md 3): one run's messages are handled one at a time, in order. */
export const workflowRunAddress: ActorAddress<WorkflowRunMessage> = {
  name: "workflow-run",
  keyOf: (m) => m.runId,
};

/** The run's single timer: scheduling a new wait replaces the previous one (same id). */
export function workflowRunTimerId(runId: string): string {
  return `wfrun:${runId}`;
}
