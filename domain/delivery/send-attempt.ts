// One delivery attempt of one notification as named stages with typed results (claim -> prepare ->
// call the provider -> record a success or a failure); the channel-sender actor runs it per message.
import { logProviderFailure } from "./failure-log";
import { config } from "../../config";
import type { OutboundMessage, Provider, SendFailure, SendResult } from "../../providers/types";
import { retryDelayFor } from "../../runtime";
import { claimAttempt, releaseClaim } from "../../store/attempts";
import type { NotificationRow } from "../../store/notifications";
import { rateLimitNames } from "../../store/redis-keys";
import { getRuntime } from "../../store/runtime-handle";
import { withSendingDomain } from "../sending-domains/mail-signing";
import type { SendMessage } from "./channel-sender-mail";
import { onClaimTaken, type SendContext } from "./lost-attempts";
import { outboundMessageOf } from "./outbound-message";
import { recordOutcome, type Outcome } from "./outcomes";
import { DELIVERY_RETRY_POLICY, MAX_ATTEMPTS, PROVIDER_DEADLINE_MS, senderTimers } from "./policy";
import { providerFor, rateLimitOf } from "./provider-cache";
import { prepareOutbound } from "./receipt-links";
import { checkSuppression } from "./suppression";
import { applyDeliveryPolicy } from "../delivery-policy/policy";
import { noteCall } from "../routing/circuit-breaker";
import { chooseEntry, failoverAfter, type RouteChoice, type RouteEntry } from "../routing/route";
import { resolveDelivery, type DeliveryTarget } from "./target";

export type { SendContext };

/** The attempt's notification and the provider configuration it goes through (null: not configured). */
interface Claimed {
  n: NotificationRow;
  target: DeliveryTarget | null;
}

/**
 * Ready for the provider call; refused before it (a failure recorded as a call's failure would be,
 * attempt row included: a sending domain on hold); or settled here with the outcome to record.
 */
type Prepared =
  | { kind: "call"; target: DeliveryTarget; provider: Provider; message: OutboundMessage; route: Extract<RouteChoice, { kind: "entry" }> }
  /** every provider entry's circuit is open: the same attempt waits, calling nobody (domain/routing/) */
  | { kind: "circuits_open"; waitMs: number }
  | { kind: "refused"; target: DeliveryTarget; failure: SendFailure }
  | { kind: "settled"; outcome: Outcome }
  | { kind: "held" };

/**
 * One attempt: `claim` (the rate limit and the attempt claim together), `prepare` (suppression, the delivery policy, the
 * provider, the sending domain), `callProvider` under a deadline, then `recordSuccess` or
 * `recordFailure` (domain/delivery/outcomes.ts writes attempt row, status, events and rollups in one
 * transaction; a retryable failure schedules the next attempt). A message whose claim is taken goes
 * to lost-attempt recovery (domain/delivery/lost-attempts.ts).
 */
export async function sendAttempt(msg: SendMessage, ctx: SendContext): Promise<void> {
  if (msg.type !== "send" || !(msg.attempt >= 1)) return;
  const claimed = await claim(msg, ctx);
  if (!claimed) return;
  const prepared = await prepare(msg, claimed, ctx);
  if (prepared.kind === "held") return; // quiet hours: a timer re-sends this message when they end
  if (prepared.kind === "settled") {
    await recordOutcome(prepared.outcome);
    return;
  }
  if (prepared.kind === "circuits_open") {
    await releaseClaim(claimed.n.id, msg.attempt);
    await ctx.schedule(senderTimers.circuitsOpen(msg.notificationId, msg.attempt), prepared.waitMs, msg, { unscaled: true });
    return;
  }
  const { result, durationMs } = prepared.kind === "call" ? await callProvider(prepared.provider, prepared.message) : { result: prepared.failure, durationMs: 0 };
  // the entry's circuit hears every answer; a retryable failure goes on to the next provider at once
  let failoverTo: number | null = null;
  if (prepared.kind === "call" && prepared.route.circuit) {
    await noteCall(prepared.route.circuit, result);
    failoverTo = failoverAfter(claimed.target!.entries, prepared.route.entry, result);
  }
  if (result.ok) await recordSuccess(msg, claimed.n, prepared.target, result, durationMs);
  else await recordFailure(msg, claimed.n, prepared.target, result, durationMs, ctx, failoverTo);
}

/** The delivery target of one provider entry: its provider, credentials and settings, the channel's id and version. */
function entryTarget(target: DeliveryTarget, e: RouteEntry): DeliveryTarget {
  return e.index === 0 ? target : { ...target, provider: e.provider, credentials: e.credentials, settings: e.settings };
}

/**
 * The provider rate limit and the claim of attempt `msg.attempt` go out together (one round trip less
 * per send). Null when there is nothing to send now: the claim was taken (terminal, another delivery
 * live or lost, or gone: lost-attempt recovery decides), or the rate limit said wait (the claim is
 * given back, so the rescheduled message keeps its attempt number).
 */
async function claim(msg: SendMessage, ctx: SendContext): Promise<Claimed | null> {
  const target = await resolveDelivery(msg.tenantId, msg.environment, msg.channel);
  const limitP = target
    ? getRuntime().rateLimiter.take(rateLimitNames.provider(msg.tenantId, msg.environment, target.provider), { limit: rateLimitOf(target), periodMs: 1000 })
    : null;
  const [limited, n] = await Promise.all([
    limitP,
    claimAttempt({ id: msg.notificationId, tenantId: msg.tenantId, environment: msg.environment, attempt: msg.attempt, provider: target?.provider ?? "", host: ctx.hostId }),
  ]);
  if (!n) {
    await onClaimTaken(msg, ctx);
    return null;
  }
  if (limited && !limited.allowed) {
    await releaseClaim(n.id, msg.attempt);
    const wait = Number.isFinite(limited.retryAfterMs) ? Math.max(1, limited.retryAfterMs) : 1000;
    await ctx.schedule(senderTimers.rateLimited(msg.notificationId, msg.attempt), wait, msg, { unscaled: true });
    return null;
  }
  return { n, target };
}

/** Everything that may settle the attempt before any provider call: suppression, no channel, no provider, a domain hold. */
async function prepare(msg: SendMessage, { n, target }: Claimed, ctx: SendContext): Promise<Prepared> {
  const settled = (o: Omit<Outcome, "n" | "attempt">): Prepared => ({ kind: "settled", outcome: { n, attempt: msg.attempt, ...o } });
  const { reason, subscriberId } = await checkSuppression(n);
  if (reason) return settled({ provider: target?.provider ?? null, status: "suppressed", suppressedReason: reason });
  // quiet hours and frequency caps across workflows (domain/delivery-policy/policy.ts)
  const policy = await applyDeliveryPolicy(msg, n, subscriberId, ctx);
  if (policy.kind === "held") return { kind: "held" };
  if (policy.kind === "capped") return settled({ provider: target?.provider ?? null, status: "suppressed", suppressedReason: "frequency_capped" });
  if (!target) {
    return settled({ provider: null, status: "failed", error: { code: "channel_not_configured", message: `The ${n.channel} channel is not configured` } });
  }
  const route = await chooseEntry(msg, target.entries, msg.entry);
  if (route.kind === "all_open") return { kind: "circuits_open", waitMs: route.waitMs };
  const via = entryTarget(target, route.entry);
  let provider: Provider;
  try {
    provider = providerFor(`${msg.tenantId}:${msg.environment}:${msg.channel}:${route.entry.id}`, via);
  } catch (err) {
    const code = (err as { code?: string }).code ?? "provider_unavailable";
    return settled({ provider: via.provider, status: "failed", error: { code, message: String((err as Error).message) } });
  }
  // the From domain's DKIM key, a warning, or a hold while the domain fails its checks (domain/sending-domains/mail-signing.ts)
  const domain = await withSendingDomain(prepareOutbound(outboundMessageOf(n, subscriberId), via), via.settings);
  if (!domain.ok) return { kind: "refused", target: via, failure: domain.failure };
  return { kind: "call", target: via, provider, message: domain.message, route };
}

/** The provider's answer, bounded by PROVIDER_DEADLINE_MS; a throw or a hang is a retryable failure. */
async function callProvider(provider: Provider, msg: OutboundMessage): Promise<{ result: SendResult; durationMs: number }> {
  const started = performance.now();
  let result: SendResult;
  try {
    // Adapters enforce their own deadline; this one bounds an adapter that never settles, so a live
    // handler's claim never outlasts STALE_CLAIM_MS because of its provider call.
    const signal = AbortSignal.timeout(PROVIDER_DEADLINE_MS);
    const deadline = new Promise<never>((_, reject) =>
      signal.addEventListener("abort", () => reject(new Error(`no answer within ${PROVIDER_DEADLINE_MS} ms`)), { once: true }),
    );
    deadline.catch(() => {});
    result = await Promise.race([provider.send(msg, signal), deadline]);
  } catch (err) {
    result = { ok: false, retryable: true, error: { code: "provider_error", message: String((err as Error)?.message ?? err).slice(0, 500) } };
  }
  return { result, durationMs: Math.round(performance.now() - started) };
}

async function recordSuccess(msg: SendMessage, n: NotificationRow, target: DeliveryTarget, result: Extract<SendResult, { ok: true }>, durationMs: number): Promise<void> {
  await recordOutcome({
    n,
    attempt: msg.attempt,
    provider: target.provider,
    status: result.finalStatus ?? "sent",
    providerMessageId: result.providerMessageId,
    error: result.finalStatus === "bounced" ? { code: "bounced", message: String((result.response as any)?.bounce_reason ?? "recipient bounced") } : null,
    attemptRow: { status: "success", response: result.response ?? {}, error: null, durationMs },
  });
}

/** The outcome of a failed call: pending with the next attempt due while attempts remain and it may be retried, else failed. */
function failureOutcome(msg: SendMessage, target: DeliveryTarget, result: SendFailure, durationMs: number, failoverTo: number | null): Omit<Outcome, "n" | "attempt"> & { waitMs: number | null; backoffMs: number } {
  const willRetry = result.retryable && msg.attempt < MAX_ATTEMPTS;
  const backoffMs = retryDelayFor(msg.attempt, DELIVERY_RETRY_POLICY);
  // failing over to the next provider waits for nothing
  const waitMs = failoverTo !== null ? 0 : result.retryAfterMs !== undefined ? Math.max(result.retryAfterMs, 0) : null;
  return {
    provider: target.provider,
    status: willRetry ? "pending" : "failed",
    error: result.error,
    willRetry,
    nextAttemptAt: willRetry ? new Date(Date.now() + (waitMs ?? backoffMs * config.timeScale)) : null,
    attemptRow: { status: "failure", response: result.response ?? {}, error: result.error, durationMs },
    waitMs,
    backoffMs,
  };
}

async function recordFailure(
  msg: SendMessage,
  n: NotificationRow,
  target: DeliveryTarget,
  result: SendFailure,
  durationMs: number,
  ctx: SendContext,
  failoverTo: number | null = null,
): Promise<void> {
  const { waitMs, backoffMs, ...outcome } = failureOutcome(msg, target, result, durationMs, failoverTo);
  logProviderFailure(n, target.provider, msg.attempt, result, outcome.willRetry === true);
  // an unregistered recipient is listed in the transaction of the status move (domain/delivery/outcomes.ts)
  const moved = await recordOutcome({ n, attempt: msg.attempt, ...outcome, recipientUnregistered: result.recipientUnregistered });
  if (!outcome.willRetry || !moved) return;
  const next: SendMessage = { ...msg, attempt: msg.attempt + 1, entry: failoverTo ?? undefined };
  // The provider's Retry-After is real time; our own back-off is scaled by TIME_SCALE.
  if (waitMs !== null) await ctx.schedule(senderTimers.retry(msg.notificationId), waitMs, next, { unscaled: true });
  else await ctx.schedule(senderTimers.retry(msg.notificationId), backoffMs, next);
}
