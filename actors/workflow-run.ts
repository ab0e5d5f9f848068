// The workflow-run actor (DESIGN.md 3): keyed by run id, so one run's messages are handled one at a
// time; each message moves the run on through domain/workflows/engine.ts, its timers on this runtime.
import type { HostOptions } from "../runtime";
import { defineActor } from "../runtime";
import { advanceRun } from "../domain/workflows/engine";
import { workflowRunAddress, type WorkflowRunMessage } from "../domain/workflows/workflow-run-mail";

export const workflowRun = defineActor<WorkflowRunMessage>({
  ...workflowRunAddress,
  // ctx.schedule: the host's TIME_SCALE applies to delays and the fallback bound; the run's one
  // timer id (wfrun:<run id>) always goes with the run's key, so replacing it stays in its partition
  handle: (msg, ctx) =>
    advanceRun(msg, {
      timeScale: ctx.timeScale,
      schedule: (timerId, delayMs, m, opts) => ctx.schedule(timerId, delayMs, m, { keyBound: true, unscaled: opts?.unscaled }),
    }),
});

/**
 * A host of its own (also inside `npm start`): its slots are not shared with the sender's, and due
 * timers (a delay's end) are moved into the stream every 50 ms rather than 200 ms, since a run's
 * lateness starts with that poll.
 */
export const WORKFLOW_HOST_OPTIONS: Omit<HostOptions, "actors"> = { timerPollMs: 50 };
