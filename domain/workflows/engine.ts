// The step engine of a workflow run (SPEC "Workflow run" state table, DESIGN.md 6 fallback): reads the
// run from PostgreSQL, moves it on as far as it can go, and writes the outcome; the actor calls it per message.
import { createHash } from "node:crypto";
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
  notificationStates,
  notificationStatus,
  writeRuns,
  type FallbackAttemptRecord,
  type RunPatch,
  type RunRow,
  type RunStatus,
  type StepResultRecord,
  type WaitState,
} from "../../store/workflow-runs";
import { versionForRun, type WorkflowStepDef } from "../../store/workflows";
import { findSubscriber, type SubscriberRow } from "../../store/subscribers";
import { closeDigest, digestEventsOfLeader, digestLedBy, joinOrOpenDigest, throttlePass, windowRunsQueued, type ClosedDigest, type DigestRow } from "../../store/workflow-digests";
import { cachedDeliverySettings } from "../../store/delivery-settings";
import { logger } from "../../basics/log";
import { renderTemplate } from "../templates/render";
import { evaluateCondition } from "./conditions";
import { isTimeZone, nextLocalTime } from "./local-time";
import { prepareEvents } from "../events/outbox";
import { acceptNotification } from "../notifications/accept";
import { durationSeconds } from "./definitions";
import { stepAddress } from "./recipients";
import { isDue, isLive, judgeChannel, judgePrevious, previousOutcome, statusAfterStep } from "./verdicts";

/** The runtime's timers as the engine needs them (the handler's ctx.schedule: TIME_SCALE applies). */
export interface RunTimer {
  /** Schedules msg after delayMs (times TIME_SCALE unless unscaled), replacing the run's previous timer; resolves to the due time (epoch ms). */
  schedule(timerId: string, delayMs: number, msg: WorkflowRunMessage, opts?: { unscaled?: boolean }): Promise<number>;
  /** The runtime's TIME_SCALE (digest and throttle windows are scaled like delays). */
  readonly timeScale: number;
  /** Enqueues a message for another run (a digest's leader, woken when its digest filled). */
  send(msg: WorkflowRunMessage): Promise<unknown>;
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

  /** later steps' template data (the trigger data, plus `digest` after a digest this run led) */
  renderData: Record<string, unknown> | null = null;
  private subscriberRow: Promise<SubscriberRow | null> | null = null;

  constructor(readonly run: RunRow, readonly steps: WorkflowStepDef[], readonly lineageId: string) {
    this.currentStep = run.current_step;
    this.wait = run.step_state;
    this.status = run.status;
  }

  /** The run's subscriber as it is now (null: a literal address, or gone); read once per job. */
  subscriber(): Promise<SubscriberRow | null> {
    if (!this.run.subscriber_id) return Promise.resolve(null);
    this.subscriberRow ??= findSubscriber({ tenantId: this.run.tenant_id, environment: this.run.environment }, this.run.subscriber_id, undefined, {
      includeDeleted: true,
    }).then((s) => (s && !s.deleted_at ? s : null));
    return this.subscriberRow;
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

  /** Step i ends the run here, completed: a digest's member (merged) or a throttled run; no later step runs. */
  endAt(result: StepResultRecord) {
    this.changed = true;
    this.results.push(result);
    this.currentStep = this.steps.length;
    this.wait = null;
    this.status = "completed";
    this.events.push(workflowEvent(this.facts(), "workflow.step.completed", { step: result.step, result }));
    this.events.push(workflowEvent(this.facts(), "workflow.completed"));
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
  async startWait(
    timer: RunTimer,
    delayMs: number,
    wait: DistributiveOmit<WaitState, "token" | "due_at">,
    result?: StepResultRecord,
    opts?: { unscaled?: boolean },
  ) {
    const token = newId();
    const dueMs = await timer.schedule(workflowRunTimerId(this.run.id), delayMs, { v: 1, type: "timer", runId: this.run.id, token }, opts);
    const dueAt = new Date(dueMs).toISOString();
    this.changed = true;
    this.wait = { ...wait, token, due_at: dueAt } as WaitState;
    // a delay until a local time records that local time's instant; a duration its due time
    if (result) this.results.push({ ...result, scheduled_at: typeof result.scheduled_at === "string" ? result.scheduled_at : dueAt });
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

/** The data later steps render with: the trigger data, and `digest` {events, count} once this run led a digest. */
async function stepData(d: Draft): Promise<Record<string, unknown>> {
  if (d.renderData) return d.renderData;
  const led = d.allResults().some((r) => r.type === "digest" && r.status === "completed");
  if (!led) return d.run.data;
  const events = await digestEventsOfLeader(d.run.id);
  d.renderData = { ...d.run.data, digest: { events, count: events.length } };
  return d.renderData;
}

async function createNotification(
  run: RunRow,
  channel: Channel,
  template: string,
  key: string,
  opts: {
    anyTemplateChannel: boolean;
    wakesRun: boolean;
    data: Record<string, unknown>;
    category?: string | null;
    priority?: WorkflowStepDef["priority"];
    critical?: boolean;
  },
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
      data: opts.data,
      idempotencyKey: key,
      workflowRunId: opts.wakesRun ? run.id : null,
      subscriber: address.subscriber,
      // the trigger's locale, used when the subscriber has none (domain/templates/locale.ts)
      locale: run.locale ?? null,
      templateForAnyChannel: opts.anyTemplateChannel,
      category: opts.category ?? null,
      critical: opts.critical === true,
      // a step without priority: a broadcast's runs go in the low lane (marketing-sized fan-outs never
      // delay anyone's OTP; docs/routing.md), every other run's in the normal lane
      priority: opts.priority ?? (run.idempotency_key?.startsWith("bcast:") ? "low" : "normal"),
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
    data: await stepData(d),
    category: step.category,
    priority: step.priority,
    critical: step.critical,
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
  if (step.until) {
    const timezone = await timezoneOf(d);
    const now = Date.now();
    const at = nextLocalTime(now, step.until, timezone);
    const result = { type: "delay", step: i, until: step.until, timezone, scheduled_at: new Date(at).toISOString(), duration_seconds: Math.round((at - now) / 1000) };
    await d.startWait(timer, at - now, { kind: "delay", step: i }, result);
    return "wait";
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
      const n = await createNotification(d.run, channel, step.template!, `wfrun:${d.run.id}:step:${i}:ch:${channel}`, { anyTemplateChannel: true, wakesRun: true, data: await stepData(d), category: step.category, priority: step.priority, critical: step.critical });
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

/** The recipient's timezone for `delay until`: the subscriber's, else the tenant's delivery setting, else UTC. */
async function timezoneOf(d: Draft): Promise<string> {
  const s = await d.subscriber();
  if (isTimeZone(s?.timezone)) return s!.timezone!;
  const settings = await cachedDeliverySettings({ tenantId: d.run.tenant_id, environment: d.run.environment });
  if (isTimeZone(settings.timezone)) return settings.timezone;
  return "UTC";
}

/** A digest or throttle key: the step's Liquid over the trigger data, rendered ("" when the step has none). */
function renderedKey(d: Draft, step: WorkflowStepDef): string {
  return stepKey(step, d.run.data);
}

/** A digest or throttle step's key rendered over trigger data ("" when the step has none), bounded by boundedKey. */
export function stepKey(step: WorkflowStepDef, data: Record<string, unknown>): string {
  if (!step.key) return "";
  return boundedKey(renderTemplate({ content: step.key, channel: "in_app" }, { data }).rendered.body);
}

// Longest key stored as written (UTF-8 bytes). The keys are columns of btree indexes (one open digest
// per key, a throttle's window), whose rows PostgreSQL refuses past 2,704 bytes, and trigger data is
// only bounded by the body limit: a longer key is stored as its SHA-256, which keeps one digest (or
// throttle window) per distinct key.
const KEY_MAX_BYTES = 255;

/** The key as written, or `sha256:<hex>` of it when longer than KEY_MAX_BYTES (docs/workflows.md). */
export function boundedKey(key: string): string {
  if (Buffer.byteLength(key, "utf8") <= KEY_MAX_BYTES) return key;
  return `sha256:${createHash("sha256").update(key, "utf8").digest("hex")}`;
}

async function runThrottle(d: Draft, i: number, step: WorkflowStepDef, timer: RunTimer): Promise<Next> {
  const windowMs = durationSeconds(step.window!)! * 1000 * timer.timeScale;
  const key = boundedKey(`${d.lineageId}:${d.run.recipient}:${renderedKey(d, step)}`);
  const passed = await throttlePass({ tenantId: d.run.tenant_id, environment: d.run.environment, key }, { id: d.run.id, step: i }, step.limit!, windowMs);
  if (passed) d.complete({ type: "throttle", step: i, status: "passed" }, true);
  else d.endAt({ type: "throttle", step: i, status: "throttled" });
  return "next";
}

/**
 * Digest (docs/workflows.md): the run joins the open digest of its key and ends merged, or opens one
 * and leads it, waiting until its window closes (or max_events closes it), then goes on with the
 * digest's events. Its place is decided once in PostgreSQL, so a job run again finds the same role.
 */
async function runDigest(d: Draft, i: number, step: WorkflowStepDef, msg: WorkflowRunMessage, timer: RunTimer): Promise<Next> {
  const wait = d.wait?.step === i && d.wait.kind === "digest" ? d.wait : null;
  let digest: DigestRow | null = null;
  let closed: ClosedDigest | undefined = handedOver.get(d.run.id);
  if (wait) {
    digest = closed?.digest ?? (await digestLedBy(d.run.id));
    if (!digest) throw new Error(`run ${d.run.id} waits on digest ${wait.digest_id}, which is missing`);
    if (digest.status === "open") {
      if (!isDue(wait, msg)) return "wait";
      // runs triggered within the window but still queued (a backlog) join before it closes (LATE_RUNS_GRACE_MS)
      if (Date.now() - digest.closes_at.getTime() < LATE_RUNS_GRACE_MS && (await windowRunsQueued(digest, d.run))) {
        await d.startWait(timer, LATE_RUNS_RECHECK_MS, { kind: "digest", step: i, digest_id: digest.id }, undefined, { unscaled: true });
        return "wait";
      }
    }
  } else {
    const windowMs = durationSeconds(step.window!)! * 1000 * timer.timeScale;
    const k = { tenantId: d.run.tenant_id, environment: d.run.environment, lineageId: d.lineageId, recipient: boundedKey(d.run.recipient), key: renderedKey(d, step) };
    // a run never written since its trigger reached this step when it was triggered (only instant
    // steps, if any, came before): its place follows that time, not when a worker got to it
    const arrivedAt = d.run.rev === 0 ? d.run.started_at : null;
    const role = await joinOrOpenDigest({ k, run: d.run, windowMs, maxEvents: step.max_events ?? null, arrivedAt });
    if (role.role === "member") {
      d.endAt({ type: "digest", step: i, status: "merged", digest_run_id: role.digest.leader_run_id });
      // the join that filled the digest moves its leader on now rather than at the window's end
      if (role.closedNow) await driveLeader(timer, role.digest.leader_run_id, role.closed);
      return "next";
    }
    digest = role.digest;
    closed ??= role.closed;
    if (digest.status === "open") {
      const remaining = Math.max(0, digest.closes_at.getTime() - Date.now());
      await d.startWait(timer, remaining, { kind: "digest", step: i, digest_id: digest.id }, undefined, { unscaled: true });
      return "wait";
    }
  }
  if (!closed || closed.digest.id !== digest.id) closed = await closeDigest(digest);
  d.complete(
    {
      type: "digest",
      step: i,
      status: "completed",
      event_count: closed.members.length,
      run_ids: closed.members.map((m) => m.run_id),
      window_started_at: closed.digest.opened_at.toISOString(),
      window_ended_at: (closed.digest.closed_at ?? closed.digest.closes_at).toISOString(),
    },
    true,
  );
  const events = closed.members.map((m) => m.data);
  d.renderData = { ...d.run.data, digest: { events, count: events.length } };
  return "next";
}

// How long past its window's end a leader waits for runs of its window still queued (a backlog in the
// workflow-run actor, or a job lost and re-enqueued by the reconciler after a minute), and how often it
// looks again (real ms): a run queued longer than that opens a digest of its own.
const LATE_RUNS_GRACE_MS = 15 * 60_000;
const LATE_RUNS_RECHECK_MS = 100;

/**
 * Moves a digest's leader on at once, in this job (its digest just filled): a message would queue
 * behind every job before it. Safe beside the leader's own jobs (the run's write is guarded, its
 * notifications keyed); if this fails, the leader's timer closes the digest at its window's end.
 */
async function driveLeader(timer: RunTimer, runId: string, closed: ClosedDigest | undefined): Promise<void> {
  try {
    if (closed) handedOver.set(runId, closed);
    await advanceRun({ v: 1, type: "run", runId }, timer);
  } catch (err) {
    logger.warn({ err, runId }, "digest leader not moved on; its timer closes the digest at its window's end");
    await timer.send({ v: 1, type: "run", runId }).catch(() => {});
  } finally {
    if (handedOver.get(runId) === closed) handedOver.delete(runId);
  }
}

// A digest closed by the join that filled it, read in that join's transaction, for its leader's job
// in the same process (by leader run id), so the leader does not read it again.
const handedOver = new Map<string, ClosedDigest>();

/** The data of a step's `if`: trigger data, the subscriber now, and earlier steps' results with their notifications now. */
async function conditionData(d: Draft, i: number): Promise<Record<string, unknown>> {
  const results = d.allResults().filter((r) => r.step < i);
  const ids = results.map((r) => r.notification_id).filter((x): x is string => typeof x === "string");
  const states = await notificationStates(ids);
  const steps: (Record<string, unknown> | null)[] = Array.from({ length: i }, () => null);
  for (const r of results) {
    const entry: Record<string, unknown> = { ...r };
    if (typeof r.notification_id === "string") {
      const st = states.get(r.notification_id);
      entry.notification_status = st?.status ?? null;
      if (r.channel === "in_app") entry.read = st?.read ?? false;
    }
    steps[r.step] = entry;
  }
  const s = await d.subscriber();
  const subscriber = s
    ? { id: s.id, external_id: s.external_id, email: s.email, phone: s.phone, name: s.name, locale: s.locale, timezone: s.timezone, custom_properties: s.custom_properties ?? {} }
    : null;
  return { data: d.run.data, subscriber, steps };
}

/** A step's `if`, evaluated when the step begins: "run" it, or it was recorded skipped or failed. */
async function checkCondition(d: Draft, i: number, step: WorkflowStepDef): Promise<"run" | "done"> {
  if (!step.if || d.wait?.step === i) return "run"; // a step already begun (a wait) is not judged again
  const outcome = evaluateCondition(step.if, await conditionData(d, i));
  if (!outcome.ok) {
    d.fail({ type: step.type, step: i, status: "failed", error: { code: "condition_error", message: outcome.message } });
    return "done";
  }
  if (outcome.value) return "run";
  d.complete({ type: step.type, step: i, status: "skipped", reason: "condition_false" }, true);
  return "done";
}

// A run has at most 10 steps: more moves than this in one job means a bug.
const MAX_MOVES_PER_JOB = 50;

async function runStep(d: Draft, i: number, step: WorkflowStepDef, msg: WorkflowRunMessage, timer: RunTimer): Promise<Next> {
  switch (step.type) {
    case "send":
      return await runSend(d, i, step);
    case "delay":
      return await runDelay(d, i, step, msg, timer);
    case "fallback":
      return await runFallback(d, i, step, msg, timer);
    case "digest":
      return await runDigest(d, i, step, msg, timer);
    case "throttle":
      return await runThrottle(d, i, step, timer);
  }
}

/** Moves the draft on until it waits or the run ends. */
async function drive(d: Draft, msg: WorkflowRunMessage, timer: RunTimer): Promise<void> {
  for (let moves = 0; moves < MAX_MOVES_PER_JOB; moves++) {
    if (!isLive(d.status)) return;
    const i = d.currentStep;
    const step = d.steps[i];
    if (!step) return d.finish();
    if ((await checkCondition(d, i, step)) === "done") continue;
    const next = await runStep(d, i, step, msg, timer);
    if (next === "wait") return;
  }
  throw new Error(`run ${d.run.id} made more than ${MAX_MOVES_PER_JOB} moves in one job`);
}

// Versions never change (a PUT makes a new one): their steps are kept, bounded.
type Version = { steps: WorkflowStepDef[]; lineage_id: string };
const stepsCache = new Map<string, Version>();
const STEPS_CACHE_MAX = 10_000;

/** A version's steps and lineage (cached: versions never change). */
export async function versionOf(workflowId: string): Promise<Version | null> {
  const hit = stepsCache.get(workflowId);
  if (hit) return hit;
  const version = await versionForRun(workflowId);
  if (!version) return null;
  if (stepsCache.size >= STEPS_CACHE_MAX) stepsCache.clear();
  stepsCache.set(workflowId, version);
  return version;
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
    const version = await versionOf(run.workflow_id);
    if (!version) throw new Error(`workflow version ${run.workflow_id} of run ${run.id} is missing`);
    const draft = new Draft(run, version.steps, version.lineage_id);
    await drive(draft, msg, timer);
    if (!draft.changed) return;
    if (await writeBatcher.submit({ draft })) return;
  }
  throw new Error(`run ${msg.runId}: its write lost the guard ${MAX_STARTS} times`);
}
