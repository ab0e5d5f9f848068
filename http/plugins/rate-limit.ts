// Per-actor request rate limit (GCRA in Redis through runtime/rateLimiter): the tenant plan's requests
// per minute (default RATE_LIMIT_PER_MINUTE) per API key or dashboard user, X-RateLimit-* headers, 429 past it.
import { config } from "../../config";
import { createRateLimiter, type RateLimitResult } from "../../runtime";
import { redis } from "../../store/redis";
import { withTimeout } from "../../store/api-keys";
import { AppError } from "../../basics/errors";
import { logger } from "../../basics/log";
import { requestsPerMinuteOf } from "../../domain/billing/request-rate";

const PERIOD_MS = 60_000;
let limiter: ReturnType<typeof createRateLimiter> | null = null;
let warnedAt = 0;
let downUntil = 0;

/** A budget's state after a take, with the limit it was taken against (X-RateLimit-Limit). */
export type RequestBudget = RateLimitResult & { limit: number };

/**
 * Takes one request from a budget named by rateLimitNames (store/redis-keys.ts): an API key, a
 * publishable key's subscriber, or a dashboard user, at the rate of the tenant's plan (read per
 * call, so a test process can set RATE_LIMIT_PER_MINUTE, the default, before use). Redis trouble
 * fails open (null): refusing every request because the limiter is down would turn a cache outage into a full outage.
 */
export async function takeRequest(name: string, tenantId?: string): Promise<RequestBudget | null> {
  // batched: the takes of one event-loop turn (and the auth epoch reads) share one pipeline
  limiter ??= createRateLimiter({ redis, prefix: config.redisPrefix, batched: true });
  // after a failure, skip Redis for a second instead of making every request wait for its retries
  if (Date.now() < downUntil || redis.status !== "ready") return null;
  const rate = requestsPerMinuteOf(tenantId);
  const limit = typeof rate === "number" ? rate : await rate;
  try {
    return { ...(await withTimeout(limiter.take(name, { limit, periodMs: PERIOD_MS }), 500)), limit };
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
export function applyRateLimit(set: { headers: Record<string, any> }, r: RequestBudget | null): void {
  if (!r) return;
  const headers = {
    "x-ratelimit-limit": String(r.limit),
    "x-ratelimit-remaining": String(Math.max(0, r.remaining)),
    "x-ratelimit-reset": String(Math.ceil(r.resetAt / 1000)),
  };
  Object.assign(set.headers, headers);
  if (!r.allowed) {
    const retry = Number.isFinite(r.retryAfterMs) ? Math.max(1, Math.ceil(r.retryAfterMs / 1000)) : 60;
    throw new AppError("rate_limited", `Rate limit of ${r.limit} requests per minute exceeded; retry in ${retry} s`, undefined, {
      ...headers,
      "retry-after": String(retry),
    });
  }
}
