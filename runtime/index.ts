// Public surface of the actor runtime over Redis Streams (DESIGN.md 3): define an actor,
// create a runtime (send, schedule, cancel, rate limiter), start a host. Knows nothing of notifications.
export { createRateLimiter } from "./rateLimiter";
export type { RateLimiter, RateLimitResult, RateLimitRule } from "./rateLimiter";
