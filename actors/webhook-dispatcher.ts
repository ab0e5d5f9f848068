// The webhook-dispatcher actor: the runtime binding of webhook attempts (address, per-webhook fair
// slots, deadline, handler retries); an attempt's rules are domain/webhooks/dispatch.ts (docs/webhooks.md).
import { config } from "../config";
import { handleWebhookMessage } from "../domain/webhooks/dispatch";
import { RECEIVER_TIMEOUT_MS } from "../domain/webhooks/transport";
import { webhookDispatcherAddress, type WebhookMessage } from "../domain/webhooks/webhook-dispatcher-mail";
import { defineActor, retryDelayFor, type HostOptions, type RetryPolicy } from "../runtime";

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
 * message is dead-lettered (its marker stays: the repair scan re-enqueues it later).
 */
const HANDLER_RETRY: RetryPolicy = { baseMs: 1000, factor: 2, maxMs: 60_000, jitter: 0.2 };
const HANDLER_RUNS = 8;

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

