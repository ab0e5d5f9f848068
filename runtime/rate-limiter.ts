// Distributed rate limiter (GCRA in Lua, Redis clock; one script call per key and event-loop turn) shared by every process:
// the HTTP tier limits per API key, the channel sender per provider.
import { runtimeKeys } from "./keys";
import type { RedisClient } from "./redis-client";
import { withScripts } from "./scripts";
import { tickPipeline, type TickPipeline } from "./tick-pipeline";

export interface RateLimitRule {
  /** Units allowed per period; also the burst size. */
  limit: number;
  periodMs: number;
  /** Units this call takes (default 1; 0 only reads the state). */
  cost?: number;
}

export interface RateLimitResult {
  allowed: boolean;
  /** Units still available right now, after this call. */
  remaining: number;
  /** Epoch ms at which the limit is fully replenished (for X-RateLimit-Reset). */
  resetAt: number;
  /** 0 when allowed, else ms to wait before this cost would be allowed (for Retry-After). */
  retryAfterMs: number;
}

export interface RateLimiter {
  take(key: string, rule: RateLimitRule): Promise<RateLimitResult>;
}

/** At most this many takes share one script call (a bound on one call's argument list). */
const MAX_GROUP = 512;

/** Rate limits are never scaled by TIME_SCALE (DESIGN.md 3), so there is no timeScale here. */
/**
 * `batched`: takes of one event-loop turn go out as one pipeline (runtime/tick-pipeline.ts), for a
 * caller with many concurrent takes (the HTTP tier, the channel sender); takes of one turn on the
 * same key and rule share one script call (rateLimitMany-1.lua), each answered as if it had been
 * its own call, in call order. On a Redis Cluster each take still goes alone.
 */
export function createRateLimiter(opts: { redis: RedisClient; prefix?: string; batched?: boolean }): RateLimiter {
  const redis = withScripts(opts.redis);
  const keys = runtimeKeys(opts.prefix ?? "nms");
  const tick = opts.batched ? tickPipeline(redis) : null;
  type Reply = [number, number, number, number, number];
  type Scripted = typeof redis;

  /** Takes of this turn not yet in a pipeline, by rule and key. */
  interface Group {
    costs: number[];
    waiters: { resolve: (r: Reply) => void; reject: (e: unknown) => void }[];
    sent: boolean;
  }
  const open = new Map<string, Group>();
  function takeInTurn(tick: TickPipeline, key: string, limit: number, periodMs: number, cost: number): Promise<Reply> {
    const id = `${limit}:${periodMs}:${key}`;
    const joined = open.get(id);
    if (joined && !joined.sent && joined.costs.length < MAX_GROUP) {
      joined.costs.push(cost);
      return new Promise<Reply>((resolve, reject) => joined.waiters.push({ resolve, reject }));
    }
    const group: Group = { costs: [cost], waiters: [], sent: false };
    open.set(id, group);
    const answer = new Promise<Reply>((resolve, reject) => group.waiters.push({ resolve, reject }));
    // the command is built when the pipeline is sent, with every cost that joined meanwhile
    tick
      .call<unknown[]>((p) => {
        group.sent = true;
        if (open.get(id) === group) open.delete(id);
        const sp = p as unknown as Scripted;
        if (group.costs.length === 1) void sp.nmsRuntime_rateLimit(key, limit, periodMs, group.costs[0]!);
        else void sp.nmsRuntime_rateLimitMany(key, limit, periodMs, ...group.costs);
      })
      .then(
        (reply) => {
          if (group.costs.length === 1) return group.waiters[0]!.resolve(reply as Reply);
          const now = reply[0] as number;
          group.waiters.forEach((w, i) => {
            const at = 1 + i * 4;
            w.resolve([reply[at] as number, reply[at + 1] as number, reply[at + 2] as number, reply[at + 3] as number, now]);
          });
        },
        (err) => group.waiters.forEach((w) => w.reject(err)),
      );
    return answer;
  }

  return {
    async take(key, { limit, periodMs, cost = 1 }) {
      if (!(limit > 0) || !(periodMs > 0)) throw new RangeError("rate limit needs limit > 0 and periodMs > 0");
      if (!(cost >= 0)) throw new RangeError("rate limit cost must be >= 0");
      if (cost > limit) {
        // Could never be allowed; answering "retry later" would make callers wait forever.
        return { allowed: false, remaining: 0, resetAt: Date.now() + periodMs, retryAfterMs: Number.POSITIVE_INFINITY };
      }
      const [allowed, remaining, resetAfterMs, retryAfterMs, now] = tick
        ? await takeInTurn(tick, keys.rateLimit(key), limit, periodMs, cost)
        : await redis.nmsRuntime_rateLimit(keys.rateLimit(key), limit, periodMs, cost);
      return {
        allowed: Number(allowed) === 1,
        remaining: Number(remaining),
        resetAt: Number(now) + Number(resetAfterMs),
        retryAfterMs: Number(retryAfterMs),
      };
    },
  };
}
