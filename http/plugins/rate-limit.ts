// Per-actor request rate limit (GCRA in Redis through runtime/rateLimiter): RATE_LIMIT_PER_MINUTE
// per API key or dashboard user, X-RateLimit-* headers on every authenticated response, 429 past it.
import { config } from "../../config";
import { createRateLimiter, type RateLimitResult } from "../../runtime";
import { redis } from "../../store/redis";
import { withTimeout } from "../../store/api-keys";
import { AppError } from "../../basics/errors";
import { logger } from "../../basics/log";

const PERIOD_MS = 60_000;
let limiter: ReturnType<typeof createRateLimiter> | null = null;
let warnedAt = 0;
let downUntil = 0;

/** The limit in force; read per call so a test process can set RATE_LIMIT_PER_MINUTE before use. */
export function requestsPerMinute(): number {
  return config.rateLimitPerMinute;
}

/**
 * Takes one request from a budget named by rateLimitNames (store/redis-keys.ts): an API key, a
 * publishable key's subscriber, or a dashboard user. Redis trouble fails open (null): refusing
 * every request because the limiter is down would turn a cache outage into a full outage.
 */
export async function takeRequest(name: string): Promise<RateLimitResult | null> {
  limiter ??= createRateLimiter({ redis, prefix: config.redisPrefix });
  // after a failure, skip Redis for a second instead of making every request wait for its retries
  if (Date.now() < downUntil || redis.status !== "ready") return null;
  try {
    return await withTimeout(limiter.take(name, { limit: requestsPerMinute(), periodMs: PERIOD_MS }), 500);
  } catch (err) {
    downUntil = Date.now() + 1000;
    if (Date.now() - warnedAt > 10_000) {
      warnedAt = Date.now();
      logger.warn({ err }, "rate limiter unavailable; requests pass unlimited");
    }
    return null;
  }
}

/** Sets the headers, and throws 429 rate_limited (with Retry-After) when the budget is spent. */
export function applyRateLimit(set: { headers: Record<string, any> }, r: RateLimitResult | null): void {
  if (!r) return;
  const headers = {
    "x-ratelimit-limit": String(requestsPerMinute()),
    "x-ratelimit-remaining": String(Math.max(0, r.remaining)),
    "x-ratelimit-reset": String(Math.ceil(r.resetAt / 1000)),
  };
  Object.assign(set.headers, headers);
  if (!r.allowed) {
    const retry = Number.isFinite(r.retryAfterMs) ? Math.max(1, Math.ceil(r.retryAfterMs / 1000)) : 60;
    throw new AppError("rate_limited", `Rate limit of ${requestsPerMinute()} requests per minute exceeded; retry in ${retry} s`, undefined, {
      ...headers,
      "retry-after": String(retry),
    });
  }
}
