// The channel-sender actor's mail: its message (versioned, ids only), its address and the constructor
// accept, retries and the reconciler enqueue with; actors/channel-sender.ts is defined from this address.
import { config } from "../../config";
import { fnv1a32, type ActorAddress } from "../../runtime";

/**
 * One attempt at delivering one notification. `v` is the shape's version (docs/runtime.md, "Changing
 * a message shape"): a message read without one was written before the tag and is version 1.
 */
export interface SendMessage {
  v: 1;
  type: "send";
  notificationId: string;
  tenantId: string;
  environment: string;
  channel: string;
  /** the attempt this message may make: attempt_count must be attempt - 1 to claim it */
  attempt: number;
  shard: number;
  /**
   * Optional: the provider entry (0 primary, 1-3 backups) this attempt starts routing from; set when
   * the previous attempt failed retryably and is retried at once on the next provider (domain/routing/).
   */
  entry?: number;
}

/**
 * Keys are `<tenant>:<environment>:<channel>:<shard>`. DESIGN.md 3 keys the sender by
 * tenant:environment:channel; one serial mailbox per channel caps a tenant at roughly
 * 1 / (per-send latency), far below 2,000/s, so each channel is split into SENDER_SHARDS
 * (config.senderShards) serial lanes by notification id (the host's concurrency bounds the lanes
 * running at once). Order between notifications was never promised.
 */
export const channelSenderAddress: ActorAddress<SendMessage> = {
  name: "channel-sender",
  keyOf: (m) => `${m.tenantId}:${m.environment}:${m.channel}:${m.shard}`,
};

/** The message for attempt `attempt` of a notification. */
export function senderMessage(n: { id: string; tenantId: string; environment: string; channel: string }, attempt: number): SendMessage {
  return {
    v: 1,
    type: "send",
    notificationId: n.id,
    tenantId: n.tenantId,
    environment: n.environment,
    channel: n.channel,
    attempt,
    shard: fnv1a32(n.id) % config.senderShards,
  };
}
