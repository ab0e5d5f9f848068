// The step engine of a workflow run (SPEC "Workflow run" state table, DESIGN.md 6 fallback): reads the
// run from PostgreSQL and moves it on as far as it can go; the workflow-run actor calls it per message.
import { config } from "../config";
import { AppError } from "../basics/errors";
import type { Channel } from "../schemas/channels";
import { workflowRunTimerId, type WorkflowRunMessage } from "../schemas/workflow-messages";
import { sql } from "../store/db";
import { newId } from "../store/ids";
import { findByIdempotencyKey } from "../store/notifications";
import {
  loadRun,
  notificationStatus,
  writeRun,
  type FallbackAttemptRecord,
  type RunPatch,
  type RunRow,
  type StepResultRecord,
  type WaitState,
} from "../store/workflow-runs";
import { stepsOfVersion, type WorkflowStepDef } from "../store/workflows";
import { prepareEvents } from "./events";
import { acceptNotification } from "./notifications";
import { durationSeconds } from "./workflow-definitions";
import { stepAddress } from "./workflow-recipients";

/** The runtime's timers as the engine needs them (the handler's ctx.schedule: TIME_SCALE applies). */
export interface RunTimer {
  /** Schedules msg after delayMs (times TIME_SCALE), replacing the run's previous timer; resolves to the due time (epoch ms). */
  schedule(timerId: string, delayMs: number, msg: WorkflowRunMessage): Promise<number>;
}

/** The step is waiting (a delay, or an outcome): this job is done; a timer or a wake-up continues it. */
const WAIT = Symbol("wait");
/** Another writer moved the run since it was read (a job that ran twice, a cancel): read it again. */
const STALE = Symbol("stale");
type StepOutcome = RunRow | typeof WAIT | typeof STALE;

// A run has at most 10 steps and each moves it at most a few times per job; more means a bug.
const MAX_MOVES_PER_JOB = 100;

// ---------------------------------------------------------------------------------------------
// Events (DESIGN.md 6 data), written in the transaction of the state change that causes them.

type WorkflowEvent = "workflow.triggered" | "workflow.step.completed" | "workflow.step.failed" | "workflow.completed";

export function workflowEvent(
  run: Pick<RunRow, "id" | "tenant_id" | "environment" | "workflow_id" | "workflow_slug" | "workflow_version" | "recipient" | "status">,
  type: WorkflowEvent,
  step?: { step: number; result: StepResultRecord },
) {
  const data: Record<string, unknown> = {
    run_id: run.id,
    workflow_id: run.workflow_id,
    workflow_slug: run.workflow_slug,
    workflow_version: run.workflow_version,
    recipient: run.recipient,
  };
  if (step) {
    data.step = step.step;
    data.step_result = step.result;
  }
  data.status = run.status;
  return { tenantId: run.tenant_id, environment: run.environment, type, data };
}

/** A guarded write of the run and the events it causes, in one statement; null when the guard failed. */
async function commit(run: RunRow, patch: RunPatch, events: (next: RunRow) => ReturnType<typeof workflowEvent>[]): Promise<RunRow | null> {
  // the events describe the run as this write leaves it: its status is the one thing they read from it
  const evs = events({ ...run, status: patch.status ?? run.status });
  return await writeRun(run, patch, evs.length ? prepareEvents(sql, evs).insert : undefined);
}

/** Records step i as done (appending `result` unless it was recorded when the step began) and moves on. */
async function completeStep(run: RunRow, steps: WorkflowStepDef[], result: StepResultRecord, append: boolean): Promise<StepOutcome> {
  const i = result.step;
  const last = i + 1 >= steps.length;
  const patch: RunPatch = { currentStep: i + 1, wait: null };
  if (append) patch.result = result;
  if (last) patch.status = "completed";
  const next = await commit(run, patch, (r) => {
    const ev = [workflowEvent(r, "workflow.step.completed", { step: i, result })];
    if (last) ev.push(workflowEvent(r, "workflow.completed"));
    return ev;
  });
  return next ?? STALE;
}

/** Step i cannot succeed: the run fails, with the error on the step's result. */
async function failStep(run: RunRow, result: StepResultRecord): Promise<StepOutcome> {
  const next = await commit(run, { result, wait: null, status: "failed" }, (r) => [
    workflowEvent(r, "workflow.step.failed", { step: result.step, result }),
    workflowEvent(r, "workflow.completed"),
  ]);
  return next ?? STALE;
}

/**
 * Starts a wait: schedules the run's timer (replacing any earlier one), then records the wait and
 * its due time. The timer goes first so a committed wait always has one; a timer whose write then
 * lost the guard carries a token no wait has, and only counts by the clock.
 */
async function startWait(run: RunRow, timer: RunTimer, delayMs: number, wait: DistributiveOmit<WaitState, "token" | "due_at">, result?: StepResultRecord & { scheduled_at?: string }): Promise<StepOutcome> {
  const token = newId();
  const dueMs = await timer.schedule(workflowRunTimerId(run.id), delayMs, { type: "timer", runId: run.id, token });
  const dueAt = new Date(dueMs).toISOString();
  const patch: RunPatch = { wait: { ...wait, token, due_at: dueAt } as WaitState };
  if (result) patch.result = { ...result, scheduled_at: dueAt };
  const next = await commit(run, patch, () => []);
  return next ? WAIT : STALE;
}

type DistributiveOmit<T, K extends keyof any> = T extends unknown ? Omit<T, K> : never;

/** The run's timer for this wait fired, or its due time has passed (a lost timer, a late message). */
function isDue(wait: WaitState, msg: WorkflowRunMessage): boolean {
  if (msg.type === "timer" && msg.token === wait.token) return true;
  return Date.now() >= Date.parse(wait.due_at);
}

// ---------------------------------------------------------------------------------------------
// Notifications of steps: idempotent by key, so a job that runs again finds the one it created.

type Created = { ok: true; id: string; status: string } | { ok: false; error: { code: string; message: string } };

function errorMessage(err: AppError): string {
  const details = err.details ? Object.entries(err.details).map(([k, v]) => `${k} ${v.join(", ")}`) : [];
  return details.length ? `${err.message}: ${details.join("; ")}` : err.message;
}

async function createNotification(run: RunRow, channel: Channel, template: string, key: string, anyTemplateChannel: boolean): Promise<Created> {
  const address = await stepAddress(run, channel);
  if (!address.ok) return address;
  try {
    const n = await acceptNotification({
      tenantId: run.tenant_id,
      environment: run.environment,
      channel,
      recipient: address.recipient,
      template,
      data: run.data,
      idempotencyKey: key,
      workflowRunId: run.id,
      subscriber: address.subscriber,
      templateForAnyChannel: anyTemplateChannel,
    });
    return { ok: true, id: n.id, status: n.status };
  } catch (err) {
    if (!(err instanceof AppError)) throw err; // infrastructure: the job is retried
    // created by an earlier run of this job before something changed (a template deleted since)
    const existing = await findByIdempotencyKey(run.tenant_id, run.environment, key);
    if (existing) return { ok: true, id: existing.id, status: existing.status };
    return { ok: false, error: { code: err.code, message: errorMessage(err) } };
  }
}

// ---------------------------------------------------------------------------------------------
// Steps

async function runSend(run: RunRow, steps: WorkflowStepDef[], i: number, step: WorkflowStepDef): Promise<StepOutcome> {
  const channel = step.channel as Channel;
  const n = await createNotification(run, channel, step.template!, `wfrun:${run.id}:step:${i}`, false);
  if (!n.ok) return await failStep(run, { type: "send", step: i, channel, notification_id: null, status: "failed", error: n.error });
  return await completeStep(run, steps, { type: "send", step: i, channel, notification_id: n.id, status: "enqueued" }, true);
}

async function runDelay(run: RunRow, steps: WorkflowStepDef[], i: number, step: WorkflowStepDef, wait: WaitState | null, msg: WorkflowRunMessage, timer: RunTimer): Promise<StepOutcome> {
  if (wait?.kind === "delay") {
    if (!isDue(wait, msg)) return WAIT;
    const recorded = run.step_results.find((r) => r.step === i) ?? { type: "delay", step: i };
    return await completeStep(run, steps, recorded, false);
  }
  const seconds = durationSeconds(step.duration!)!;
  // SPEC: the delay result is recorded when the step executes; the step completes when it ends
  const result: StepResultRecord = { type: "delay", step: i, duration: step.duration, duration_seconds: seconds };
  return await startWait(run, timer, seconds * 1000, { kind: "delay", step: i }, result);
}

type Verdict = "delivered" | "not_delivered" | "wait";

/** The previous step's notification (DESIGN.md 6): delivered skips; failed, bounced or suppressed tries the channels; pending or sent waits. */
function judgePrevious(status: string | null): Verdict {
  if (status === "delivered") return "delivered";
  if (status === "pending" || status === "sent") return "wait";
  return "not_delivered";
}

/** A fallback channel's own notification: delivered or sent is success; pending waits. */
function judgeChannel(status: string | null): "success" | "failure" | "wait" {
  if (status === "delivered" || status === "sent") return "success";
  if (status === "pending") return "wait";
  return "failure";
}

/** The outcome a fallback step looks at: the nearest earlier send or fallback (null: there is none). */
function previousOutcome(results: StepResultRecord[], i: number): { delivered: true } | { notificationId: string } | null {
  for (let k = results.length - 1; k >= 0; k--) {
    const r = results[k]!;
    if (r.step >= i) continue;
    if (r.type === "send" && typeof r.notification_id === "string") return { notificationId: r.notification_id };
    if (r.type === "fallback") {
      if (r.status === "skipped") return { delivered: true };
      if (typeof r.notification_id === "string") return { notificationId: r.notification_id };
    }
  }
  return null;
}

async function runFallback(run: RunRow, steps: WorkflowStepDef[], i: number, step: WorkflowStepDef, wait: WaitState | null, msg: WorkflowRunMessage, timer: RunTimer): Promise<StepOutcome> {
  const skip = () => completeStep(run, steps, { type: "fallback", step: i, status: "skipped", reason: "previous_step_delivered" }, true);
  const channels = step.channels as Channel[];

  const tryChannels = async (from: number, attempts: FallbackAttemptRecord[]): Promise<StepOutcome> => {
    for (let c = from; c < channels.length; c++) {
      const channel = channels[c]!;
      const n = await createNotification(run, channel, step.template!, `wfrun:${run.id}:step:${i}:ch:${channel}`, true);
      if (!n.ok) {
        attempts = [...attempts, { channel, notification_id: null, status: "failed", error: n.error }];
        continue;
      }
      const verdict = judgeChannel(n.status);
      const attempt = { channel, notification_id: n.id, status: n.status };
      if (verdict === "success") {
        return await completeStep(run, steps, { type: "fallback", step: i, status: "sent", channel, notification_id: n.id, attempts: [...attempts, attempt] }, true);
      }
      if (verdict === "failure") {
        attempts = [...attempts, attempt];
        continue;
      }
      return await startWait(run, timer, config.fallbackWaitMs, { kind: "await_channel", step: i, channel_index: c, channel, notification_id: n.id, attempts });
    }
    return await failStep(run, {
      type: "fallback",
      step: i,
      status: "failed",
      channel: null,
      notification_id: null,
      attempts,
      error: { code: "all_channels_failed", message: "No channel of the fallback step was delivered or sent" },
    });
  };

  if (!wait) {
    const prev = previousOutcome(run.step_results, i);
    if (!prev) return await tryChannels(0, []); // nothing earlier was sent: nothing was delivered
    if ("delivered" in prev) return await skip();
    const verdict = judgePrevious(await notificationStatus(prev.notificationId));
    if (verdict === "delivered") return await skip();
    if (verdict === "not_delivered") return await tryChannels(0, []);
    return await startWait(run, timer, config.fallbackWaitMs, { kind: "await_previous", step: i, notification_id: prev.notificationId });
  }
  if (wait.kind === "await_previous") {
    const verdict = judgePrevious(await notificationStatus(wait.notification_id));
    if (verdict === "delivered") return await skip();
    if (verdict === "wait" && !isDue(wait, msg)) return WAIT;
    return await tryChannels(0, []); // failed, or still not final at the bound: not delivered
  }
  if (wait.kind === "await_channel") {
    const status = await notificationStatus(wait.notification_id);
    const verdict = judgeChannel(status);
    const attempt = { channel: wait.channel, notification_id: wait.notification_id, status: status ?? "failed" };
    if (verdict === "success") {
      return await completeStep(run, steps, { type: "fallback", step: i, status: "sent", channel: wait.channel, notification_id: wait.notification_id, attempts: [...wait.attempts, attempt] }, true);
    }
    if (verdict === "wait" && !isDue(wait, msg)) return WAIT;
    return await tryChannels(wait.channel_index + 1, [...wait.attempts, attempt]);
  }
  return WAIT;
}

async function stepOnce(run: RunRow, steps: WorkflowStepDef[], msg: WorkflowRunMessage, timer: RunTimer): Promise<StepOutcome> {
  const i = run.current_step;
  const step = steps[i];
  if (!step) {
    // every step is done (a job that stopped between its last write and now): finish
    const next = await commit(run, { wait: null, status: "completed" }, (r) => [workflowEvent(r, "workflow.completed")]);
    return next ?? STALE;
  }
  const wait = run.step_state && run.step_state.step === i ? run.step_state : null;
  switch (step.type) {
    case "send":
      return await runSend(run, steps, i, step);
    case "delay":
      return await runDelay(run, steps, i, step, wait, msg, timer);
    case "fallback":
      return await runFallback(run, steps, i, step, wait, msg, timer);
  }
}

// Versions never change (a PUT makes a new one): their steps are kept, bounded.
const stepsCache = new Map<string, WorkflowStepDef[]>();
const STEPS_CACHE_MAX = 10_000;

async function stepsOf(workflowId: string): Promise<WorkflowStepDef[] | null> {
  const hit = stepsCache.get(workflowId);
  if (hit) return hit;
  const steps = await stepsOfVersion(workflowId);
  if (!steps) return null;
  if (stepsCache.size >= STEPS_CACHE_MAX) stepsCache.clear();
  stepsCache.set(workflowId, steps);
  return steps;
}

/**
 * Handles one message of the run: idempotent (at least once). Every write is guarded by the run's
 * rev, every notification keyed by step (and channel), so a job that runs twice, concurrently or
 * after a crash, records each step once and creates each notification once.
 */
export async function advanceRun(msg: WorkflowRunMessage, timer: RunTimer): Promise<void> {
  let run = await loadRun(msg.runId);
  if (!run || run.status !== "running") return; // unknown, finished or cancelled: a late timer or wake-up does nothing
  // a notification's wake-up matters only to the wait on that notification
  if (msg.type === "notification" && (!run.step_state || !("notification_id" in run.step_state) || run.step_state.notification_id !== msg.notificationId)) return;
  const steps = await stepsOf(run.workflow_id);
  if (!steps) throw new Error(`workflow version ${run.workflow_id} of run ${run.id} is missing`);
  for (let moves = 0; moves < MAX_MOVES_PER_JOB; moves++) {
    const out = await stepOnce(run, steps, msg, timer);
    if (out === WAIT) return;
    const next: RunRow | null = out === STALE ? await loadRun(run.id) : out;
    if (!next || next.status !== "running") return;
    run = next;
  }
  throw new Error(`run ${run.id} made more than ${MAX_MOVES_PER_JOB} moves in one job`);
}
