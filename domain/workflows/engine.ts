// The step engine of a workflow run (SPEC "Workflow run" state table, DESIGN.md 6 fallback): reads the
// run from PostgreSQL, moves it on as far as it can go, and writes the outcome; the actor calls it per message.
import { config } from "../../config";
import { AppError } from "../../basics/errors";
import type { Channel } from "../../schemas/channels";
import { workflowRunTimerId, type WorkflowRunMessage } from "./workflow-run-mail";
import { sql } from "../../store/db";
import { newId } from "../../store/ids";
import { MicroBatcher } from "../../store/micro-batcher";
import { findByIdempotencyKey } from "../../store/notifications";
import {
  loadRun,
  notificationStatus,
  writeRuns,
  type FallbackAttemptRecord,
  type RunPatch,
  type RunRow,
  type RunStatus,
  type StepResultRecord,
  type WaitState,
} from "../../store/workflow-runs";
import { stepsOfVersion, type WorkflowStepDef } from "../../store/workflows";
import { prepareEvents } from "../events/outbox";
import { acceptNotification } from "../notifications/accept";
import { durationSeconds } from "./definitions";
import { stepAddress } from "./recipients";
import { isDue, isLive, judgeChannel, judgePrevious, previousOutcome, statusAfterStep } from "./verdicts";

/** The runtime's timers as the engine needs them (the handler's ctx.schedule: TIME_SCALE applies). */
export interface RunTimer {
  /** Schedules msg after delayMs (times TIME_SCALE), replacing the run's previous timer; resolves to the due time (epoch ms). */
  schedule(timerId: string, delayMs: number, msg: WorkflowRunMessage): Promise<number>;
}

// ---------------------------------------------------------------------------------------------
// Events (DESIGN.md 6 data), written by the statement of the state change that causes them.

type WorkflowEventType = "workflow.triggered" | "workflow.step.completed" | "workflow.step.failed" | "workflow.completed";
type RunFacts = Pick<RunRow, "id" | "tenant_id" | "environment" | "workflow_id" | "workflow_slug" | "workflow_version" | "recipient" | "status">;

export function workflowEvent(run: RunFacts, type: WorkflowEventType, step?: { step: number; result: StepResultRecord }) {
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

// ---------------------------------------------------------------------------------------------
// A job works on a draft of the run: the steps it executes change the draft in memory (their side
// effects, notifications and timers, are keyed, so doing them again is harmless), and the job ends
// with ONE guarded write of the draft and its events. A job that lost the guard (another job or a
// cancel wrote the run meanwhile) reads the run again and starts over from what was written.

class Draft {
  readonly results: StepResultRecord[] = [];
  readonly events: ReturnType<typeof workflowEvent>[] = [];
  currentStep: number;
  wait: WaitState | null;
  status: RunStatus;
  changed = false;

  constructor(readonly run: RunRow, readonly steps: WorkflowStepDef[]) {
    this.currentStep = run.current_step;
    this.wait = run.step_state;
    this.status = run.status;
  }

  /** Results so far, written and drafted (the fallback looks back at them). */
  allResults(): StepResultRecord[] {
    return [...this.run.step_results, ...this.results];
  }

  private facts(): RunFacts {
    return { ...this.run, status: this.status };
  }

  /** Step i is done; `append` unless its result was recorded when it began (a delay). */
  complete(result: StepResultRecord, append: boolean) {
    this.changed = true;
    if (append) this.results.push(result);
    this.currentStep = result.step + 1;
    this.wait = null;
    this.status = statusAfterStep(result.step, this.steps.length);
    this.events.push(workflowEvent(this.facts(), "workflow.step.completed", { step: result.step, result }));
    if (this.status === "completed") this.events.push(workflowEvent(this.facts(), "workflow.completed"));
  }

  /** Step i cannot succeed: the run fails, with the error on the step's result. */
  fail(result: StepResultRecord) {
    this.changed = true;
    this.results.push(result);
    this.wait = null;
    this.status = "failed";
    this.events.push(workflowEvent(this.facts(), "workflow.step.failed", { step: result.step, result }));
    this.events.push(workflowEvent(this.facts(), "workflow.completed"));
  }

  /** Every step was done but the run not closed (defensive: a write that ended there). */
  finish() {
    this.changed = true;
    this.wait = null;
    this.status = "completed";
    this.events.push(workflowEvent(this.facts(), "workflow.completed"));
  }

  /**
   * Starts a wait: schedules the run's timer (replacing any earlier one), then drafts the wait and its
   * due time. The timer goes first so a written wait always has one; a timer whose write then lost
   * the guard carries a token no wait has, and counts only by the clock.
   */
  async startWait(timer: RunTimer, delayMs: number, wait: DistributiveOmit<WaitState, "token" | "due_at">, result?: StepResultRecord) {
    const token = newId();
    const dueMs = await timer.schedule(workflowRunTimerId(this.run.id), delayMs, { v: 1, type: "timer", runId: this.run.id, token });
    const dueAt = new Date(dueMs).toISOString();
    this.changed = true;
    this.wait = { ...wait, token, due_at: dueAt } as WaitState;
    if (result) this.results.push({ ...result, scheduled_at: dueAt });
  }

  patch(): RunPatch {
    const p: RunPatch = { results: this.results, currentStep: this.currentStep, wait: this.wait };
    if (this.status !== "running") p.status = this.status;
    return p;
  }
}

type DistributiveOmit<T, K extends keyof any> = T extends unknown ? Omit<T, K> : never;

// Writes of concurrent jobs share one statement (distinct runs per statement).
interface DraftWrite {
  draft: Draft;
}
const writeBatcher = new MicroBatcher<DraftWrite, RunRow | null>(
  async (items) => {
    const out: (RunRow | null)[] = new Array(items.length).fill(null);
    // a run twice in one batch (two jobs of it at once, rare) goes in a later statement
    let rest = items.map((item, k) => ({ item, k }));
    while (rest.length) {
      const seen = new Set<string>();
      const now = rest.filter(({ item }) => !seen.has(item.draft.run.id) && seen.add(item.draft.run.id));
      rest = rest.filter((x) => !now.includes(x));
      const events = now.flatMap(({ item }) => item.draft.events);
      const rows = await writeRuns(
        now.map(({ item }) => ({ id: item.draft.run.id, rev: item.draft.run.rev, patch: item.draft.patch() })),
        events.length ? prepareEvents(sql, events).insert : undefined,
      );
      const byId = new Map(rows.map((r) => [r.id, r]));
      for (const { item, k } of now) out[k] = byId.get(item.draft.run.id) ?? null;
    }
    return out;
  },
  { maxSize: 200, maxWaitMs: 1, maxConcurrent: 3 },
);

// ---------------------------------------------------------------------------------------------
// Notifications of steps: idempotent by key, so a job that runs again finds the one it created.

type Created = { ok: true; id: string; status: string } | { ok: false; error: { code: string; message: string } };

function errorMessage(err: AppError): string {
  const details = err.details ? Object.entries(err.details).map(([k, v]) => `${k} ${v.join(", ")}`) : [];
  return details.length ? `${err.message}: ${details.join("; ")}` : err.message;
}

/**
 * Whether a later step looks at step i's outcome: the next step that is not a delay is a fallback
 * (its "previous send"). Only such notifications carry the run, whose status moves wake it.
 */
function outcomeLookedAt(steps: WorkflowStepDef[], i: number): boolean {
  for (let k = i + 1; k < steps.length; k++) {
    if (steps[k]!.type === "fallback") return true;
    if (steps[k]!.type === "send") return false;
  }
  return false;
}

async function createNotification(
  run: RunRow,
  channel: Channel,
  template: string,
  key: string,
  opts: { anyTemplateChannel: boolean; wakesRun: boolean; priority?: WorkflowStepDef["priority"] },
): Promise<Created> {
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
      workflowRunId: opts.wakesRun ? run.id : null,
      subscriber: address.subscriber,
      templateForAnyChannel: opts.anyTemplateChannel,
      priority: opts.priority ?? "normal",
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
// Steps. Each returns "next" (the draft moved on: run the next step) or "wait" (this job is done).

type Next = "next" | "wait";

async function runSend(d: Draft, i: number, step: WorkflowStepDef): Promise<Next> {
  const channel = step.channel as Channel;
  const n = await createNotification(d.run, channel, step.template!, `wfrun:${d.run.id}:step:${i}`, {
    anyTemplateChannel: false,
    wakesRun: outcomeLookedAt(d.steps, i),
    priority: step.priority,
  });
  if (!n.ok) d.fail({ type: "send", step: i, channel, notification_id: null, status: "failed", error: n.error });
  else d.complete({ type: "send", step: i, channel, notification_id: n.id, status: "enqueued" }, true);
  return "next";
}

async function runDelay(d: Draft, i: number, step: WorkflowStepDef, msg: WorkflowRunMessage, timer: RunTimer): Promise<Next> {
  const wait = d.wait?.step === i ? d.wait : null;
  if (wait?.kind === "delay") {
    if (!isDue(wait, msg)) return "wait";
    d.complete(d.allResults().find((r) => r.step === i) ?? { type: "delay", step: i }, false);
    return "next";
  }
  const seconds = durationSeconds(step.duration!)!;
  // SPEC: the delay result is recorded when the step executes; the step completes when it ends
  await d.startWait(timer, seconds * 1000, { kind: "delay", step: i }, { type: "delay", step: i, duration: step.duration, duration_seconds: seconds });
  return "wait";
}

async function runFallback(d: Draft, i: number, step: WorkflowStepDef, msg: WorkflowRunMessage, timer: RunTimer): Promise<Next> {
  const channels = step.channels as Channel[];
  const skip = (): Next => {
    d.complete({ type: "fallback", step: i, status: "skipped", reason: "previous_step_delivered" }, true);
    return "next";
  };
  const sent = (channel: string, notificationId: string, attempts: FallbackAttemptRecord[]): Next => {
    d.complete({ type: "fallback", step: i, status: "sent", channel, notification_id: notificationId, attempts }, true);
    return "next";
  };

  const tryChannels = async (from: number, attempts: FallbackAttemptRecord[]): Promise<Next> => {
    for (let c = from; c < channels.length; c++) {
      const channel = channels[c]!;
      // the run waits for this one's outcome (and a later fallback may look at it)
      const n = await createNotification(d.run, channel, step.template!, `wfrun:${d.run.id}:step:${i}:ch:${channel}`, { anyTemplateChannel: true, wakesRun: true, priority: step.priority });
      if (!n.ok) {
        attempts = [...attempts, { channel, notification_id: null, status: "failed", error: n.error }];
        continue;
      }
      const verdict = judgeChannel(n.status);
      const attempt = { channel, notification_id: n.id, status: n.status };
      if (verdict === "success") return sent(channel, n.id, [...attempts, attempt]);
      if (verdict === "failure") {
        attempts = [...attempts, attempt];
        continue;
      }
      await d.startWait(timer, config.fallbackWaitMs, { kind: "await_channel", step: i, channel_index: c, channel, notification_id: n.id, attempts });
      return "wait";
    }
    d.fail({
      type: "fallback",
      step: i,
      status: "failed",
      channel: null,
      notification_id: null,
      attempts,
      error: { code: "all_channels_failed", message: "No channel of the fallback step was delivered or sent" },
    });
    return "next";
  };

  const wait = d.wait?.step === i ? d.wait : null;
  if (!wait) {
    const prev = previousOutcome(d.allResults(), i);
    if (!prev) return await tryChannels(0, []); // nothing earlier was sent: nothing was delivered
    if ("delivered" in prev) return skip();
    const verdict = judgePrevious(await notificationStatus(prev.notificationId));
    if (verdict === "delivered") return skip();
    if (verdict === "not_delivered") return await tryChannels(0, []);
    await d.startWait(timer, config.fallbackWaitMs, { kind: "await_previous", step: i, notification_id: prev.notificationId });
    return "wait";
  }
  if (wait.kind === "await_previous") {
    const verdict = judgePrevious(await notificationStatus(wait.notification_id));
    if (verdict === "delivered") return skip();
    if (verdict === "wait" && !isDue(wait, msg)) return "wait";
    return await tryChannels(0, []); // failed, or still not final at the bound: not delivered
  }
  if (wait.kind === "await_channel") {
    const status = await notificationStatus(wait.notification_id);
    const verdict = judgeChannel(status);
    const attempt = { channel: wait.channel, notification_id: wait.notification_id, status: status ?? "failed" };
    if (verdict === "success") return sent(wait.channel, wait.notification_id, [...wait.attempts, attempt]);
    if (verdict === "wait" && !isDue(wait, msg)) return "wait";
    return await tryChannels(wait.channel_index + 1, [...wait.attempts, attempt]);
  }
  return "wait";
}

// A run has at most 10 steps: more moves than this in one job means a bug.
const MAX_MOVES_PER_JOB = 50;

/** Moves the draft on until it waits or the run ends. */
async function drive(d: Draft, msg: WorkflowRunMessage, timer: RunTimer): Promise<void> {
  for (let moves = 0; moves < MAX_MOVES_PER_JOB; moves++) {
    if (!isLive(d.status)) return;
    const i = d.currentStep;
    const step = d.steps[i];
    if (!step) return d.finish();
    const next =
      step.type === "send" ? await runSend(d, i, step) : step.type === "delay" ? await runDelay(d, i, step, msg, timer) : await runFallback(d, i, step, msg, timer);
    if (next === "wait") return;
  }
  throw new Error(`run ${d.run.id} made more than ${MAX_MOVES_PER_JOB} moves in one job`);
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

// Lost guards in a row before the job gives up (and is retried by the runtime).
const MAX_STARTS = 5;

/**
 * Handles one message of the run: idempotent (at least once). The write is guarded by the run's rev
 * and every notification keyed by step (and channel), so a job that runs twice, concurrently or
 * after a crash, records each step once and creates each notification once.
 */
export async function advanceRun(msg: WorkflowRunMessage, timer: RunTimer): Promise<void> {
  for (let start = 0; start < MAX_STARTS; start++) {
    const run = await loadRun(msg.runId);
    if (!run || !isLive(run.status)) return; // unknown, finished or cancelled: a late timer or wake-up does nothing
    // a notification's wake-up matters only to the wait on that notification
    if (msg.type === "notification" && (!run.step_state || !("notification_id" in run.step_state) || run.step_state.notification_id !== msg.notificationId)) return;
    const steps = await stepsOf(run.workflow_id);
    if (!steps) throw new Error(`workflow version ${run.workflow_id} of run ${run.id} is missing`);
    const draft = new Draft(run, steps);
    await drive(draft, msg, timer);
    if (!draft.changed) return;
    if (await writeBatcher.submit({ draft })) return;
  }
  throw new Error(`run ${msg.runId}: its write lost the guard ${MAX_STARTS} times`);
}
