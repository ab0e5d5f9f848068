// The webhook-dispatcher actor's mail: its messages (versioned, ids only), its address and its retry
// timer id; the relay, repair, retry and replay enqueue with these (actors/webhook-dispatcher.ts too).
import type { ActorAddress } from "../../runtime";

/**
 * Messages carry ids, never payloads (the event is read when the attempt runs, so an erased
 * subscriber's data is never sent from a stale copy).
 * - `attempt`: attempt `attempt` (1..5) of SPEC's schedule for one event to one webhook; the
 *   relay sends attempt 1, a failed attempt schedules the next as a runtime timer.
 * - `manual`: one extra attempt already recorded as the pending delivery `deliveryId` (the retry
 *   and replay routes); it does not continue the schedule.
 * `v` is the shape's version (docs/runtime.md, "Changing a message shape"); a message read without
 * one was written before the tag and is version 1.
 */
export type WebhookMessage =
  | { v: 1; type: "attempt"; webhookId: string; eventId: string; attempt: number }
  | { v: 1; type: "manual"; webhookId: string; eventId: string; deliveryId: string };

/**
 * Keyed by webhook and event: attempts of one event run one at a time, and every event of a
 * webhook has a key of its own, so a webhook's messages never queue behind each other in a
 * mailbox; they wait for one of the webhook's slots (the actor's fairness group is the webhook),
 * where a hanging receiver's backlog can be deferred instead of holding the host's capacity.
 */
export const webhookDispatcherAddress: ActorAddress<WebhookMessage> = {
  name: "webhook-dispatcher",
  keyOf: (m) => `${m.webhookId}:${m.eventId}`,
};

/** The runtime timer that carries an event's next automatic attempt (one per webhook and event). */
export function retryTimerId(webhookId: string, eventId: string): string {
  return `retry:${webhookId}:${eventId}`;
}
