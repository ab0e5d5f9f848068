// Distributed rate limiter (GCRA in one Lua script, Redis clock) shared by every process:
// the HTTP tier limits per API key, the channel sender per provider.
import { runtimeKeys } from "./keys";
import type { RedisClient } from "./redis-client";
import { withScripts } from "./scripts";
import { tickPipeline } from "./tick-pipeline";

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

/** Rate limits are never scaled by TIME_SCALE (DESIGN.md 3), so there is no timeScale here. */
/**
 * `batched`: takes of one event-loop turn go out as one pipeline (runtime/tick-pipeline.ts), for a
 * caller with many concurrent takes on a client without auto-pipelining (the HTTP tier).
 */
export function createRateLimiter(opts: { redis: RedisClient; prefix?: string; batched?: boolean }): RateLimiter {
  const redis = withScripts(opts.redis);
  const keys = runtimeKeys(opts.prefix ?? "nms");
  const tick = opts.batched ? tickPipeline(redis) : null;
  type Reply = [number, number, number, number, number];
  return {
    async take(key, { limit, periodMs, cost = 1 }) {
      if (!(limit > 0) || !(periodMs > 0)) throw new RangeError("rate limit needs limit > 0 and periodMs > 0");
      if (!(cost >= 0)) throw new RangeError("rate limit cost must be >= 0");
      if (cost > limit) {
        // Could never be allowed; answering "retry later" would make callers wait forever.
        return { allowed: false, remaining: 0, resetAt: Date.now() + periodMs, retryAfterMs: Number.POSITIVE_INFINITY };
      }
      const [allowed, remaining, resetAfterMs, retryAfterMs, now] = tick
        ? await tick.call<Reply>((p) => void (p as unknown as typeof redis).nmsRuntime_rateLimit(keys.rateLimit(key), limit, periodMs, cost))
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
