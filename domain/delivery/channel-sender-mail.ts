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
  /** the notification's lane when not normal (absent: normal); retries stay in the lane they were read from */
  priority?: "high" | "low";
}

export type Priority = "high" | "normal" | "low";
export const PRIORITIES: readonly Priority[] = ["high", "normal", "low"];

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

/**
 * The priority lanes (docs/routing.md): one actor, so one set of streams, per lane, each read by a
 * runtime host of its own (actors/index.ts), so a high-priority message never waits behind normal or
 * low ones, and the low lane keeps its own slots. Normal keeps the historical name `channel-sender`
 * (messages queued before lanes existed are read as they were): `nms:{channel-sender-high:<p>}`,
 * `nms:{channel-sender:<p>}`, `nms:{channel-sender-low:<p>}`.
 */
export const channelSenderLanes: Record<Priority, ActorAddress<SendMessage>> = {
  high: { ...channelSenderAddress, name: "channel-sender-high" },
  normal: channelSenderAddress,
  low: { ...channelSenderAddress, name: "channel-sender-low" },
};

/** The lane a message travels in. */
export function senderAddressOf(msg: SendMessage): ActorAddress<SendMessage> {
  return channelSenderLanes[msg.priority ?? "normal"];
}

/** Messages grouped by lane, for sendMany/stillQueued calls (one per lane). */
export function byLane<T>(items: T[], msgOf: (item: T) => SendMessage): { address: ActorAddress<SendMessage>; items: T[] }[] {
  const groups = new Map<Priority, T[]>();
  for (const item of items) {
    const p = msgOf(item).priority ?? "normal";
    (groups.get(p) ?? groups.set(p, []).get(p)!).push(item);
  }
  return [...groups].map(([p, list]) => ({ address: channelSenderLanes[p], items: list }));
}

/** The message for attempt `attempt` of a notification (its lane from `priority`, normal when absent). */
export function senderMessage(n: { id: string; tenantId: string; environment: string; channel: string; priority?: string | null }, attempt: number): SendMessage {
  const msg: SendMessage = {
    v: 1,
    type: "send",
    notificationId: n.id,
    tenantId: n.tenantId,
    environment: n.environment,
    channel: n.channel,
    attempt,
    shard: fnv1a32(n.id) % config.senderShards,
  };
  if (n.priority === "high" || n.priority === "low") msg.priority = n.priority;
  return msg;
}
