// createRuntime: the client side of the actor runtime (send, sendMany, schedule, cancel, rate
// limiter) and the factory for hosts. Takes its Redis connection and prefix as parameters.
import { silentLogger, type ActorAddress, type RuntimeLogger, type TimerOptions } from "./actor";
import { compareEntryIds, encodeTimerPayload } from "./codec";
import { startHost, wakeLocalTimers } from "./host";
import { GROUP } from "./keys";
import { runtimeKeys } from "./keys";
import { partitionOf } from "./partition";
import { createRateLimiter } from "./rate-limiter";
import { createRedisClient, type RedisClient } from "./redis-client";
import { withScripts } from "./scripts";
import { firstError, SlotBatch } from "./slot-batch";
import type { Runtime, RuntimeObserver } from "./types";

/** Clock difference tolerated between an application or PostgreSQL timestamp and Redis stream ids (stillQueued). */
export const CLOCK_SLACK_MS = 5_000;

export type { Runtime } from "./types";

/** Messages per appendMessages-1.lua call: big enough to amortise, small enough not to stall Redis. */
const SEND_CHUNK = 500;

export interface RuntimeOptions {
  /** redis://, rediss://, or redis+cluster://host:port,host:port (runtime/redis-client.ts). */
  redisUrl?: string;
  /** An ioredis client (Redis or Cluster) to share; the runtime opens its own connections for blocking reads and never closes it. */
  redis?: RedisClient;
  prefix?: string;
  partitions?: number;
  /** Multiplies timer delays and retry back-off (tests set it small); never leases or rate limits. */
  timeScale?: number;
  logger?: RuntimeLogger;
  /** Observation hooks (handler runs, dead letters, deferrals, timer lateness); none by default. */
  observer?: RuntimeObserver;
}

export function createRuntime(opts: RuntimeOptions): Runtime {
  if (!opts.redis && !opts.redisUrl) throw new Error("createRuntime needs redis or redisUrl");
  // Key names are built in keys.ts; a client-level keyPrefix would double-prefix and break Lua KEYS.
  if (opts.redis && keyPrefixOf(opts.redis)) throw new Error("createRuntime: pass a Redis client without keyPrefix; use the prefix option");
  const ownsConnection = !opts.redis;
  // Auto-pipelining batches the sends and timer writes that many handlers make in one tick.
  const redis = withScripts(opts.redis ?? createRedisClient(opts.redisUrl!, { maxRetriesPerRequest: null, enableAutoPipelining: true }));
  const prefix = opts.prefix ?? "nms";
  const partitions = opts.partitions ?? 16;
  const timeScale = opts.timeScale ?? 1;
  if (!(Number.isInteger(partitions) && partitions > 0)) throw new Error("partitions must be a positive integer");
  if (!(timeScale >= 0)) throw new Error("timeScale must be >= 0");
  const keys = runtimeKeys(prefix);
  const logger = opts.logger ?? silentLogger;

  const partitionsOf = (actor: ActorAddress<any>) => actor.partitions ?? partitions;
  const partitionFor = <M>(actor: ActorAddress<M>, msg: M) => partitionOf(actor.keyOf(msg), partitionsOf(actor));

  const runtime: Runtime = {
    prefix,
    partitions,
    timeScale,
    keys,
    redis,
    logger,
    // batched: the channel sender's concurrent takes of one turn on a provider share one script call
    rateLimiter: createRateLimiter({ redis, prefix, batched: true }),
    observer: opts.observer ?? {},
    partitionsOf,
    partitionFor,

    async send(actor, msg) {
      const key = actor.keyOf(msg);
      const id = await redis.xadd(keys.stream(actor.name, partitionOf(key, partitionsOf(actor))), "*", "k", key, "m", JSON.stringify(msg));
      return id as string;
    },

    async sendMany(actor, msgs) {
      if (msgs.length === 0) return [];
      const P = partitionsOf(actor);
      // Group by partition (keeping order) so each chunk is one script call, not one XADD per message.
      const byPartition = new Map<number, { args: string[]; index: number[] }>();
      msgs.forEach((msg, i) => {
        const key = actor.keyOf(msg);
        const p = partitionOf(key, P);
        let group = byPartition.get(p);
        if (!group) byPartition.set(p, (group = { args: [], index: [] }));
        group.args.push(key, JSON.stringify(msg));
        group.index.push(i);
      });
      // One call per partition chunk; on a cluster each partition's calls are a pipeline of their own slot.
      const batch = new SlotBatch(redis);
      const calls: number[][] = [];
      for (const [p, group] of byPartition) {
        const stream = keys.stream(actor.name, p);
        for (let start = 0; start < group.index.length; start += SEND_CHUNK) {
          batch.add(stream, (pipeline) => pipeline.nmsRuntime_appendMessages(stream, ...group.args.slice(start * 2, (start + SEND_CHUNK) * 2)));
          calls.push(group.index.slice(start, start + SEND_CHUNK));
        }
      }
      const results = await batch.exec();
      const ids = new Array<string>(msgs.length);
      results.forEach(([err, reply], c) => {
        if (err) throw err;
        (reply as string[]).forEach((id, j) => (ids[calls[c]![j]!] = id));
      });
      return ids;
    },

    async schedule(actor, timerId, delayMs, msg, timerOpts) {
      const key = actor.keyOf(msg);
      const P = partitionsOf(actor);
      const home = partitionOf(key, P);
      const delay = timerOpts?.unscaled ? delayMs : delayMs * timeScale;
      // Same id = replace, even when the new message's key lives in another partition (unless the
      // caller says the id never changes key: then only its own partition can hold it).
      const batch = new SlotBatch(redis);
      for (let p = 0; p < P; p++) {
        if (p === home || timerOpts?.keyBound) continue;
        batch.add(keys.timers(actor.name, p), (pipeline) => pipeline.zrem(keys.timers(actor.name, p), timerId).hdel(keys.timerData(actor.name, p), timerId));
      }
      const timers = keys.timers(actor.name, home);
      batch.add(timers, (pipeline) =>
        pipeline.nmsRuntime_scheduleTimer(timers, keys.timerData(actor.name, home), timerId, Math.round(delay), encodeTimerPayload(key, msg), keys.timersWake(), `${actor.name}:${home}`),
      );
      const results = await batch.exec();
      const err = firstError(results);
      if (err) throw err;
      wakeLocalTimers(runtime, actor.name, home, delay);
      return Number(results[results.length - 1]![1]);
    },

    async cancel(actor, timerId) {
      const P = partitionsOf(actor);
      const batch = new SlotBatch(redis);
      for (let p = 0; p < P; p++) {
        batch.add(keys.timers(actor.name, p), (pipeline) => pipeline.zrem(keys.timers(actor.name, p), timerId).hdel(keys.timerData(actor.name, p), timerId));
      }
      const results = await batch.exec();
      let removed = false;
      for (let i = 0; i < results.length; i += 2) {
        const [err, n] = results[i]!;
        if (err) throw err;
        if (Number(n) > 0) removed = true;
      }
      return removed;
    },

    async unfinishedSince(actor) {
      const P = partitionsOf(actor);
      const batch = new SlotBatch(redis);
      for (let p = 0; p < P; p++) {
        const stream = keys.stream(actor.name, p);
        batch.add(stream, (pipeline) => pipeline.xinfo("STREAM", stream).xinfo("GROUPS", stream).xpending(stream, GROUP));
      }
      const results = await batch.exec();
      const out: (number | null)[] = [];
      for (let p = 0; p < P; p++) {
        const [[e1, stream], [e2, groups], [e3, pending]] = results.slice(p * 3, p * 3 + 3) as [Error | null, any][];
        // No stream (or group) yet: nothing was ever sent there, nothing is unfinished.
        if (e1 || e2 || e3) {
          if ([e1, e2, e3].some((e) => e && !/no such key|NOGROUP/i.test(e.message))) throw e1 ?? e2 ?? e3;
          out.push(null);
          continue;
        }
        const info = fieldsOf(stream as unknown[]);
        const group = (groups as unknown[][]).map(fieldsOf).find((g) => g.get("name") === GROUP);
        const msOf = (id: unknown) => Number(String(id).split("-")[0]);
        let since: number | null = null;
        const lastGenerated = String(info.get("last-generated-id") ?? "0-0");
        const lastDelivered = String(group?.get("last-delivered-id") ?? "0-0");
        // Unread entries exist when the stream grew past what the group has read.
        if (compareEntryIds(lastGenerated, lastDelivered) > 0) since = msOf(lastDelivered) + 1;
        const [count, oldest] = pending as [number, string | null];
        if (Number(count) > 0 && oldest) since = since === null ? msOf(oldest) : Math.min(since, msOf(oldest));
        out.push(since);
      }
      return out;
    },

    async stillQueued(actor, sent) {
      if (!sent.length) return [];
      const since = await runtime.unfinishedSince(actor);
      return sent.map(({ msg, sentAtMs }) => {
        const unfinished = since[runtime.partitionFor(actor, msg)];
        if (unfinished === null || unfinished === undefined) return false;
        return sentAtMs === null || sentAtMs + CLOCK_SLACK_MS >= unfinished;
      });
    },

    startHost(hostOpts) {
      return startHost(runtime, hostOpts);
    },

    async close() {
      if (ownsConnection) await redis.quit().catch(() => redis.disconnect());
    },
  };
  return runtime;
}

/** A client-level key prefix (which would double-prefix the runtime's keys and break Lua KEYS). */
function keyPrefixOf(redis: RedisClient): string | undefined {
  const options = redis.options as { keyPrefix?: string; redisOptions?: { keyPrefix?: string } };
  return options.keyPrefix || options.redisOptions?.keyPrefix;
}

function fieldsOf(flat: unknown[]): Map<string, unknown> {
  const m = new Map<string, unknown>();
  for (let i = 0; i + 1 < flat.length; i += 2) m.set(String(flat[i]), flat[i + 1]);
  return m;
}
