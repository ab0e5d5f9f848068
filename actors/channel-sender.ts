// The channel-sender actor: delivers one notification attempt through its channel's provider,
// at most one provider call per attempt number, and records what came of it.
import { config } from "../config";
import { recordOutcome } from "../domain/delivery-outcomes";
import { DELIVERY_RETRY_POLICY, MAX_ATTEMPTS, PROVIDER_DEADLINE_MS, senderTimers } from "../domain/delivery-policy";
import { onClaimTaken, type SendContext } from "../domain/lost-attempts";
import { resolveDelivery } from "../domain/notifications";
import { outboundMessageOf } from "../domain/outbound-message";
import { providerFor, rateLimitOf } from "../domain/provider-cache";
import { checkSuppression } from "../domain/suppression";
import { prepareOutbound } from "../domain/receipt-links";
import { withSendingDomain } from "../domain/domain-mail";
import type { OutboundMessage, Provider, SendResult } from "../providers/types";
import { defineActor, retryDelayFor } from "../runtime";
import { channelSenderAddress, type SendMessage } from "../schemas/messages";
import { claimAttempt, releaseClaim } from "../store/attempts";
import { rateLimitNames } from "../store/redis-keys";
import { getRuntime } from "../store/runtime";

// The sender's public names, wherever they now live.
export { MAX_ATTEMPTS, OUTCOME_UNKNOWN, STALE_CLAIM_MS } from "../domain/delivery-policy";
export { recordOutcome, type Outcome } from "../domain/delivery-outcomes";

/**
 * Handler slots one tenant (tenant + environment) may hold in a sender process once the process
 * is busy. Without it one tenant's slow provider fills every runtime slot (the host's concurrency,
 * 200) through its 256 lanes and every other tenant waits behind it. The share is work-conserving:
 * while fewer than SENDER_BUSY_THRESHOLD slots are in use, a lone tenant may use them all; past it,
 * a tenant at its share waits in memory for a slot (runtime/fair-semaphore.ts), holding none, and
 * the slots above the threshold stay for other tenants. (This used to put such messages back on a
 * timer before their claim: under overload a lone tenant is always over its share, and the whole
 * backlog circulated between the stream and the timers; see docs/notifications.md, overload.)
 */
export const SENDER_TENANT_CONCURRENCY = config.senderTenantConcurrency;
// 16 of the host's 200 slots stay free for other tenants: enough for a newcomer to start at once,
// few enough that a lone tenant's burst keeps most of the host
export const SENDER_BUSY_THRESHOLD = config.senderBusyThreshold;

/**
 * One attempt, in order: find the channel's provider; take its rate limit together with the claim of
 * the attempt (store/attempts.ts); check suppression; call the provider under a deadline; record the
 * outcome (domain/delivery-outcomes.ts: attempt row, status, events, rollups in one transaction);
 * after a retryable failure schedule the next attempt (domain/delivery-policy.ts). A message whose
 * claim is taken goes to lost-attempt recovery (domain/lost-attempts.ts).
 */
export async function handleSend(msg: SendMessage, ctx: SendContext): Promise<void> {
  if (msg.type !== "send" || !(msg.attempt >= 1)) return;
  await sendAttempt(msg, ctx);
}

async function sendAttempt(msg: SendMessage, ctx: SendContext): Promise<void> {
  const target = await resolveDelivery(msg.tenantId, msg.environment, msg.channel);
  const providerName = target?.provider ?? null;

  // The provider rate limit and the claim go out together (one round trip less per send); a
  // limited message gives its claim back, so it keeps its attempt number for the rescheduled run.
  const limitP = target
    ? getRuntime().rateLimiter.take(rateLimitNames.provider(msg.tenantId, msg.environment, target.provider), { limit: rateLimitOf(target), periodMs: 1000 })
    : null;
  const [limited, n] = await Promise.all([
    limitP,
    claimAttempt({ id: msg.notificationId, tenantId: msg.tenantId, environment: msg.environment, attempt: msg.attempt, provider: providerName ?? "" }),
  ]);
  if (!n) return await onClaimTaken(msg, ctx); // terminal, claimed by another delivery (live or lost), or gone
  if (limited && !limited.allowed) {
    await releaseClaim(n.id, msg.attempt);
    const wait = Number.isFinite(limited.retryAfterMs) ? Math.max(1, limited.retryAfterMs) : 1000;
    await ctx.schedule(senderTimers.rateLimited(msg.notificationId, msg.attempt), wait, msg, { unscaled: true });
    return;
  }

  const { reason, subscriberId } = await checkSuppression(n);
  if (reason) {
    await recordOutcome({ n, attempt: msg.attempt, provider: providerName, status: "suppressed", suppressedReason: reason });
    return;
  }
  if (!target) {
    await recordOutcome({
      n,
      attempt: msg.attempt,
      provider: null,
      status: "failed",
      error: { code: "channel_not_configured", message: `The ${n.channel} channel is not configured` },
    });
    return;
  }

  let provider: Provider;
  try {
    provider = providerFor(`${msg.tenantId}:${msg.environment}:${msg.channel}`, target);
  } catch (err) {
    await recordOutcome({
      n,
      attempt: msg.attempt,
      provider: target.provider,
      status: "failed",
      error: { code: (err as { code?: string }).code ?? "provider_unavailable", message: String((err as Error).message) },
    });
    return;
  }

  // the From domain's DKIM key, a warning, or a hold while the domain fails its checks (domain/domain-mail.ts)
  const prepared = await withSendingDomain(prepareOutbound(outboundMessageOf(n, subscriberId), target), target.settings);
  const { result, durationMs } = prepared.ok ? await callProvider(provider, prepared.message) : { result: prepared.failure, durationMs: 0 };

  if (result.ok) {
    await recordOutcome({
      n,
      attempt: msg.attempt,
      provider: target.provider,
      status: result.finalStatus ?? "sent",
      providerMessageId: result.providerMessageId,
      error: result.finalStatus === "bounced" ? { code: "bounced", message: String((result.response as any)?.bounce_reason ?? "recipient bounced") } : null,
      attemptRow: { status: "success", response: result.response ?? {}, error: null, durationMs },
    });
    return;
  }

  const willRetry = result.retryable && msg.attempt < MAX_ATTEMPTS;
  const backoffMs = retryDelayFor(msg.attempt, DELIVERY_RETRY_POLICY);
  const waitMs = result.retryAfterMs !== undefined ? Math.max(result.retryAfterMs, 0) : null;
  const moved = await recordOutcome({
    n,
    attempt: msg.attempt,
    provider: target.provider,
    status: willRetry ? "pending" : "failed",
    error: result.error,
    willRetry,
    nextAttemptAt: willRetry ? new Date(Date.now() + (waitMs ?? backoffMs * config.timeScale)) : null,
    attemptRow: { status: "failure", response: result.response ?? {}, error: result.error, durationMs },
    recipientUnregistered: result.recipientUnregistered,
  });
  if (willRetry && moved) {
    const next = { ...msg, attempt: msg.attempt + 1 };
    // The provider's Retry-After is real time; our own back-off is scaled by TIME_SCALE.
    if (waitMs !== null) await ctx.schedule(senderTimers.retry(msg.notificationId), waitMs, next, { unscaled: true });
    else await ctx.schedule(senderTimers.retry(msg.notificationId), backoffMs, next);
  }
}

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

export const channelSender = defineActor<SendMessage>({
  ...channelSenderAddress,
  handle: (msg, ctx) => handleSend(msg, ctx),
  fairness: { groupOf: (m) => `${m.tenantId}:${m.environment}`, share: SENDER_TENANT_CONCURRENCY, busyThreshold: SENDER_BUSY_THRESHOLD },
  // a little above the provider deadline: a handler stuck past it (a claim or outcome write that
  // never returns) gives its lane and slot back and is retried; the attempt claim keeps it single
  deadlineMs: PROVIDER_DEADLINE_MS + 5_000,
});
