// One webhook attempt as the dispatcher makes it: an automatic attempt n of SPEC's retry schedule or a
// manual one (retry, replay), each recorded once, the next automatic attempt put on a runtime timer.
import { logWebhookFailure } from "./failure-log";
import { recordWebhookAttempt } from "../../basics/metrics";
import { config } from "../../config";
import type { ActorContext } from "../../runtime";
import { attemptRecorder, loadAttemptContext, type AttemptContext } from "../../store/webhook-deliveries";
import { newId } from "../../store/ids";
import { iso } from "../../store/time";
import { webhookRetryDelayMs } from "./retry-schedule";
import { secretOf, sendEvent } from "./signed-request";
import { retryTimerId, type WebhookMessage } from "./webhook-dispatcher-mail";

export const AUTO_DISABLE_REASON = "every delivery failed for the auto-disable window";

/** The recorder of attempt outcomes, shared by the dispatcher and the test endpoint. */
export const recordAttempt = attemptRecorder(() => ({
  afterMs: config.webhookDisableAfterHours * 3_600_000,
  reason: `${AUTO_DISABLE_REASON} (${config.webhookDisableAfterHours} hours)`,
}));

/** What an attempt needs of its actor context: its timers and its deadline's abort signal. */
export type DispatchContext = Pick<ActorContext, "schedule" | "signal">;

function outgoing(e: NonNullable<AttemptContext["event"]>) {
  return { id: e.id, type: e.type, created_at: iso(e.created_at)!, data: e.data };
}

async function scheduleAttempt(ctx: DispatchContext, webhookId: string, eventId: string, attempt: number, delayMs: number) {
  const msg: WebhookMessage = { v: 1, type: "attempt", webhookId, eventId, attempt };
  // delays are computed in real time (the schedule already times TIME_SCALE, Retry-After is real)
  await ctx.schedule(retryTimerId(webhookId, eventId), Math.max(0, delayMs), msg, { unscaled: true });
}

/** Automatic attempt n of SPEC's schedule. Every early return is a message with nothing left to do. */
async function automatic(msg: Extract<WebhookMessage, { type: "attempt" }>, ctx: DispatchContext): Promise<void> {
  const c = await loadAttemptContext({ webhookId: msg.webhookId, eventId: msg.eventId, attempt: msg.attempt, deliveryId: null });
  const w = c.webhook;
  const e = c.event;
  // deleted or inactive webhooks receive nothing more, scheduled retries included
  if (!w || !w.active || !e || c.succeeded) {
    if (!c.succeeded) recordWebhookAttempt("dropped");
    return;
  }
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
  recordWebhookAttempt(out.ok ? "delivered" : delay === null ? "exhausted" : "retrying", out.durationMs);
  const deliveryId = newId();
  const nextRetryAt = delay === null ? null : new Date(Date.now() + delay);
  if (!out.ok) logWebhookFailure({ tenantId: w.tenant_id, webhookId: w.id, url: w.url, eventId: e.id, eventType: e.type, deliveryId, attempt: msg.attempt, nextRetryAt, out });
  const written = await recordAttempt({
    id: deliveryId,
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
    nextRetryAt,
  });
  if (written && delay !== null) await scheduleAttempt(ctx, w.id, e.id, msg.attempt + 1, delay);
}

/** One extra attempt the retry or replay route recorded as pending. */
async function manual(msg: Extract<WebhookMessage, { type: "manual" }>, ctx: DispatchContext): Promise<void> {
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
  recordWebhookAttempt(out.ok ? "delivered" : "exhausted", out.durationMs);
  if (!out.ok) logWebhookFailure({ tenantId: w.tenant_id, webhookId: w.id, url: w.url, eventId: e.id, eventType: e.type, deliveryId: msg.deliveryId, attempt: c.manual.attempt, nextRetryAt: null, out });
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

export async function handleWebhookMessage(msg: WebhookMessage, ctx: DispatchContext): Promise<void> {
  if (msg.type === "attempt") return await automatic(msg, ctx);
  if (msg.type === "manual") return await manual(msg, ctx);
}
