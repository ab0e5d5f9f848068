// Pub/sub channels of the service (inbox events, cache invalidation; names in store/redis-keys.ts):
// PUBLISH/SUBSCRIBE on a single Redis, sharded SPUBLISH/SSUBSCRIBE on a Redis Cluster.
//
// On a cluster a plain PUBLISH is copied to every node over the cluster bus; a sharded message only
// goes to the master (and replicas) serving the channel's slot, and ioredis keeps one subscriber
// connection per master, re-subscribing when a failover moves the slot.
import { createRedisClient, isCluster, type RedisClient } from "../runtime";
import { config } from "../config";
import { redis } from "./redis";

export type ChannelHandler = (message: string) => void;

export interface PubSub {
  /** Publishes the messages on the channel, in order. */
  publish(channel: string, messages: string[]): Promise<void>;
  /** Sends every later message of `channel` to `handler` (one per channel: a new one replaces it); resolves once subscribed. */
  subscribe(channel: string, handler: ChannelHandler): Promise<void>;
  /** Stops the channel's handler; the UNSUBSCRIBE follows any earlier SUBSCRIBE of it on the same connection. */
  unsubscribe(channel: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * Pub/sub over `publisher` (its kind decides plain or sharded) and one subscriber connection of
 * `url`, opened on the first subscribe. `unref`: the subscriber does not keep the process alive.
 */
export function createPubSub(publisher: RedisClient, url: string, opts: { unref?: boolean } = {}): PubSub {
  const sharded = isCluster(publisher);
  const handlers = new Map<string, ChannelHandler>();
  let subscriber: RedisClient | null = null;

  const connection = (): RedisClient => {
    if (subscriber) return subscriber;
    // subscriber mode: no pipelining; on a cluster, one sharded subscriber connection per master
    const conn = createRedisClient(url, { enableAutoPipelining: false, shardedSubscribers: sharded, maxRetriesPerRequest: null });
    conn.on("error", () => {}); // ioredis reconnects and re-subscribes by itself
    conn.on(sharded ? "smessage" : "message", (channel: string, message: string) => {
      const handler = handlers.get(channel);
      if (!handler) return;
      try {
        handler(message);
      } catch {
        /* a handler's failure is its own */
      }
    });
    if (opts.unref && !sharded) (conn as { unref?: () => void }).unref?.();
    subscriber = conn;
    return conn;
  };

  return {
    async publish(channel, messages) {
      if (!messages.length) return;
      // one channel = one slot, so this pipeline is valid on a cluster too
      const pipeline = publisher.pipeline();
      for (const m of messages) {
        if (sharded) pipeline.spublish(channel, m);
        else pipeline.publish(channel, m);
      }
      const replies = (await pipeline.exec()) ?? [];
      for (const [err] of replies) if (err) throw err;
    },
    async subscribe(channel, handler) {
      handlers.set(channel, handler);
      const conn = connection();
      await (sharded ? conn.ssubscribe(channel) : conn.subscribe(channel));
    },
    async unsubscribe(channel) {
      handlers.delete(channel);
      if (!subscriber) return;
      await (sharded ? subscriber.sunsubscribe(channel) : subscriber.unsubscribe(channel));
    },
    async close() {
      handlers.clear();
      const conn = subscriber;
      subscriber = null;
      await conn?.quit().catch(() => conn.disconnect());
    },
  };
}

/** This process's pub/sub, on REDIS_URL. */
export const pubsub: PubSub = createPubSub(redis, config.redisUrl, { unref: true });
