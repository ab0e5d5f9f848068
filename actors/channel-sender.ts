// The channel-sender actor: the runtime binding of one notification's delivery attempts (its address,
// its tenant fairness and its deadline); the attempt's stages are domain/delivery/send-attempt.ts.
import { config } from "../config";
import { channelSenderAddress, channelSenderLanes, type SendMessage } from "../domain/delivery/channel-sender-mail";
import { PROVIDER_DEADLINE_MS } from "../domain/delivery/policy";
import { sendAttempt } from "../domain/delivery/send-attempt";
import { defineActor } from "../runtime";

/**
 * Handler slots one tenant (tenant + environment) may hold in a sender process once the process
 * is busy. Without it one tenant's slow provider fills every runtime slot (the host's concurrency,
 * SENDER_CONCURRENCY) through its SENDER_SHARDS lanes and every other tenant waits behind it. The share is work-conserving:
 * while fewer than SENDER_BUSY_THRESHOLD slots are in use, a lone tenant may use them all; past it,
 * a tenant at its share waits in memory for a slot (runtime/fair-semaphore.ts), holding none, and
 * the slots above the threshold stay for other tenants. (This used to put such messages back on a
 * timer before their claim: under overload a lone tenant is always over its share, and the whole
 * backlog circulated between the stream and the timers; see docs/notifications.md, overload.)
 */
export const SENDER_TENANT_CONCURRENCY = config.senderTenantConcurrency;
// 16 of the host's SENDER_CONCURRENCY slots stay free for other tenants: enough for a newcomer to start at once,
// few enough that a lone tenant's burst keeps most of the host
export const SENDER_BUSY_THRESHOLD = config.senderBusyThreshold;

const senderDefinition = {
  handle: (msg: SendMessage, ctx: Parameters<typeof sendAttempt>[1]) => sendAttempt(msg, ctx),
  fairness: { groupOf: (m: SendMessage) => `${m.tenantId}:${m.environment}`, share: SENDER_TENANT_CONCURRENCY, busyThreshold: SENDER_BUSY_THRESHOLD },
  // a little above the provider deadline: a handler stuck past it (a claim or outcome write that
  // never returns) gives its lane and slot back and is retried; the attempt claim keeps it single
  deadlineMs: PROVIDER_DEADLINE_MS + 5_000,
};

/** The normal lane (its historical name and streams: `nms:{channel-sender:<p>}`). */
export const channelSender = defineActor<SendMessage>({ ...channelSenderAddress, ...senderDefinition });
/**
 * The high and low lanes (docs/routing.md): the same handler and tenant fairness on streams of their
 * own, each in a runtime host of its own (actors/index.ts), so their slots and back-pressure are theirs.
 */
export const channelSenderHigh = defineActor<SendMessage>({ ...channelSenderLanes.high, ...senderDefinition });
export const channelSenderLow = defineActor<SendMessage>({ ...channelSenderLanes.low, ...senderDefinition });

/**
 * Host options of the lanes: high has SENDER_CONCURRENCY slots, as normal does; low is capped at SENDER_LOW_CONCURRENCY
 * handler slots, so a flood keeps its share of the process (it never starves) without taking the
 * CPU and database connections that high and normal work need.
 */
export const SENDER_LANE_HOST_OPTIONS = {
  high: { timerPollMs: 50, concurrency: config.senderConcurrency },
  low: { timerPollMs: 100, concurrency: config.senderLowConcurrency, maxInFlight: config.senderLowConcurrency * 2 },
};
