// The webhook-dispatcher actor: one signed attempt of one event to one webhook, SPEC's retry
// schedule on runtime timers, and the relay loop that feeds it from the outbox (docs/webhooks.md).
import { logger } from "../basics/log";
import { config } from "../config";
import { defineActor, Loop, retryDelayFor, type ActorContext, type HostOptions, type RetryPolicy, type Runtime } from "../runtime";
import { retryTimerId, webhookDispatcherAddress, type WebhookMessage } from "../schemas/webhook-messages";
import { loadAttemptContext, type AttemptContext } from "../store/webhook-deliveries";
import { newId } from "../store/ids";
import { iso } from "../store/time";
import { secretOf, sendEvent } from "../domain/webhook-delivery";
import { relayOnce, RELAY_BATCH } from "../domain/webhook-relay";
import { webhookRetryDelayMs } from "../domain/webhook-retry";
import { RECEIVER_TIMEOUT_MS } from "../domain/webhook-transport";
import { recordAttempt } from "../domain/webhooks";

/**
 * Above the receiver's 30 s: a run past it (a record write that never returns) gives back its key
 * and slot and is retried; the attempt record keeps a retried run from recording twice.
 */
export const WEBHOOK_DEADLINE_MS = RECEIVER_TIMEOUT_MS + 15_000;

/**
 * The dispatcher runs in a host of its own (actors/index.ts), so receivers never hold the channel
 * sender's slots. A hanging receiver's backlog waits in memory for its webhook's slots; room for
 * 10,000 such messages keeps other webhooks' messages read meanwhile, and past it the runtime
 * defers the waiting ones (fair slots, docs/runtime.md) instead of blocking every reader.
 */
export const WEBHOOK_HOST_OPTIONS: Omit<HostOptions, "actors"> = { concurrency: 256, maxInFlight: 10_000 };

/**
 * When a handler fails (the database is down, not a receiver: receivers' failures are records), it
 * runs again after 1 s doubling up to a minute, 8 runs in all: about two minutes of outage before the
 * message is dead-lettered (replay resends what that lost).
 */
const HANDLER_RETRY: RetryPolicy = { baseMs: 1000, factor: 2, maxMs: 60_000, jitter: 0.2 };
const HANDLER_RUNS = 8;

type Ctx = Pick<ActorContext, "schedule" | "signal">;

function outgoing(e: NonNullable<AttemptContext["event"]>) {
  return { id: e.id, type: e.type, created_at: iso(e.created_at)!, data: e.data };
}

async function scheduleAttempt(ctx: Ctx, webhookId: string, eventId: string, attempt: number, delayMs: number) {
  const msg: WebhookMessage = { type: "attempt", webhookId, eventId, attempt };
  // delays are computed in real time (the schedule already times TIME_SCALE, Retry-After is real)
  await ctx.schedule(retryTimerId(webhookId, eventId), Math.max(0, delayMs), msg, { unscaled: true });
}

/** Automatic attempt n of SPEC's schedule. Every early return is a message with nothing left to do. */
async function automatic(msg: Extract<WebhookMessage, { type: "attempt" }>, ctx: Ctx): Promise<void> {
  const c = await loadAttemptContext({ webhookId: msg.webhookId, eventId: msg.eventId, attempt: msg.attempt, deliveryId: null });
  const w = c.webhook;
  const e = c.event;
  // deleted or inactive webhooks receive nothing more, scheduled retries included
  if (!w || !w.active || !e || c.succeeded) return;
  if (e.tenant_id !== w.tenant_id || e.environment !== w.environment || !w.events.includes(e.type)) return;
  if (c.sameAttempt) {
    // a redelivered message: the attempt is recorded; make sure its retry timer exists (same id)
    if (c.sameAttempt.kind === "auto" && c.sameAttempt.status === "failed" && c.sameAttempt.next_retry_at) {
      await scheduleAttempt(ctx, w.id, e.id, msg.attempt + 1, Date.parse(c.sameAttempt.next_retry_at) - Date.now());
    }
    return;
  }
  if (c.maxAttempt >= msg.attempt) return; // a manual retry or replay took over this event

  const out = await sendEvent(w.url, secretOf(w), outgoing(e), { signal: ctx.signal });
  const delay = out.ok ? null : webhookRetryDelayMs(msg.attempt, { retryAfterMs: out.retryAfterMs, timeScale: config.timeScale });
  const written = await recordAttempt({
    id: newId(),
    webhookId: w.id,
    tenantId: w.tenant_id,
    eventId: e.id,
    eventType: e.type,
    attempt: msg.attempt,
    kind: "auto",
    status: out.ok ? "success" : "failed",
    responseStatus: out.status,
    responseBody: out.body,
    durationMs: out.durationMs,
    error: out.error,
    nextRetryAt: delay === null ? null : new Date(Date.now() + delay),
  });
  if (written && delay !== null) await scheduleAttempt(ctx, w.id, e.id, msg.attempt + 1, delay);
}

/** One extra attempt the retry or replay route recorded as pending. */
async function manual(msg: Extract<WebhookMessage, { type: "manual" }>, ctx: Ctx): Promise<void> {
  const c = await loadAttemptContext({ webhookId: msg.webhookId, eventId: msg.eventId, attempt: null, deliveryId: msg.deliveryId });
  const w = c.webhook;
  const e = c.event;
  if (!w || !c.manual || c.manual.status !== "pending") return;
  const base = { id: msg.deliveryId, webhookId: w.id, tenantId: w.tenant_id, eventId: msg.eventId, attempt: c.manual.attempt, kind: "manual" as const, nextRetryAt: null };
  if (!w.active || !e) {
    const error = !w.active ? { code: "webhook_inactive", message: "the webhook was deactivated before this attempt ran" } : { code: "event_gone", message: "the event no longer exists" };
    await recordAttempt({ ...base, eventType: e?.type ?? "unknown", status: "failed", responseStatus: null, responseBody: null, durationMs: 0, error });
    return;
  }
  const out = await sendEvent(w.url, secretOf(w), outgoing(e), { signal: ctx.signal });
  await recordAttempt({
    ...base,
    eventType: e.type,
    status: out.ok ? "success" : "failed",
    responseStatus: out.status,
    responseBody: out.body,
    durationMs: out.durationMs,
    error: out.error,
  });
}

export async function handleWebhookMessage(msg: WebhookMessage, ctx: Ctx): Promise<void> {
  if (msg.type === "attempt") return await automatic(msg, ctx);
  if (msg.type === "manual") return await manual(msg, ctx);
}

export const webhookDispatcher = defineActor<WebhookMessage>({
  ...webhookDispatcherAddress,
  handle: handleWebhookMessage,
  // One group per webhook with a hard cap: busyThreshold 1 means "always busy", so a webhook never
  // holds more than its share of slots, however idle the host; a hanging receiver holds at most
  // WEBHOOK_CONCURRENCY slots and every other webhook's messages go past it.
  fairness: { groupOf: (m) => m.webhookId, share: config.webhookConcurrency, busyThreshold: 1 },
  deadlineMs: WEBHOOK_DEADLINE_MS,
  maxDeliveries: HANDLER_RUNS,
  retryDelayMs: (deliveries) => retryDelayFor(deliveries, HANDLER_RETRY),
});

// ---------------------------------------------------------------------------------------------

export interface RunningRelay {
  stop(): Promise<void>;
  readonly failures: number;
}

/**
 * The relay loop of one dispatcher process: every `everyMs` (at once again while batches come back
 * full) it moves committed outbox rows onto the dispatcher's stream. Several processes may run it.
 */
export function startWebhookRelay(opts: { everyMs?: number; runtime?: Runtime } = {}): RunningRelay {
  const log = logger.child({ component: "webhook-relay" });
  const loop = new Loop({ name: "webhook relay", everyMs: opts.everyMs ?? 100, runDeadlineMs: 30_000, log }, async () => {
    const moved = await relayOnce({ runtime: opts.runtime });
    return moved >= RELAY_BATCH;
  }).start();
  return {
    get failures() {
      return loop.failures;
    },
    stop: () => loop.stop(),
  };
}
