// The relay from the outbox to the webhook-dispatcher's stream (docs/webhooks.md "From the outbox
// to receivers"): committed outbox rows become messages, deleted only once the messages are on Redis.
import type { Runtime } from "../../runtime";
import { webhookDispatcherAddress, type WebhookMessage } from "./webhook-dispatcher-mail";
import { getRuntime } from "../../store/runtime-handle";
import { takeOutbox, type OutboxRow } from "../../store/webhooks";

export const RELAY_BATCH = 1000;

function messageOf(r: OutboxRow): WebhookMessage {
  return r.delivery_id
    ? { v: 1, type: "manual", webhookId: r.webhook_id, eventId: r.event_id, deliveryId: r.delivery_id }
    : { v: 1, type: "attempt", webhookId: r.webhook_id, eventId: r.event_id, attempt: 1 };
}

/**
 * Moves up to `limit` outbox rows onto the dispatcher's stream; resolves to how many. Rows are
 * taken with SKIP LOCKED, so several relays (one per dispatcher process) share the work; a relay
 * killed after its XADDs and before its COMMIT leaves the rows for the next one (the dispatcher
 * makes a duplicate message harmless).
 */
export async function relayOnce(opts: { limit?: number; runtime?: Runtime } = {}): Promise<number> {
  const runtime = opts.runtime ?? getRuntime();
  return await takeOutbox(opts.limit ?? RELAY_BATCH, async (rows) => {
    await runtime.sendMany(webhookDispatcherAddress, rows.map(messageOf));
  });
}
