// Public surface of the actor runtime over Redis Streams (DESIGN.md 3), the only module imported from
// outside runtime/: actors and hosts, timers, rate limits, periodic work, dead letters, the Redis connection.
export { defineActor, type Actor, type ActorAddress, type ActorContext, type ActorDefinition, type FairnessPolicy, type RuntimeLogger, type TimerOptions } from "./actor";
export { createRuntime, type RuntimeOptions } from "./runtime";
export type { Host, HostOptions, HostStats, Runtime, RuntimeObserver } from "./types";
export { createRateLimiter, type RateLimiter, type RateLimitResult, type RateLimitRule } from "./rate-limiter";
export { DEFAULT_RETRY_POLICY, retryDelayFor, type RetryPolicy } from "./retry";
export { fnv1a32, partitionOf } from "./partition";
export { compareEntryIds } from "./codec";
export { runtimeKeys, GROUP } from "./keys";
export { Loop, type LoopOptions } from "./loop";
export { provablyDead as hostProvablyDead } from "./host-identity";
export { createLease, type NamedLease } from "./lease";
export { startLeasedLoop, type LeasedLoop, type LeasedLoopOptions } from "./leased-loop";
export { countDeadLetters, deadLetterActors, dropDeadLetter, getDeadLetter, listDeadLetters, redriveDeadLetter, type DeadLetter, type Redriven } from "./dead-letters";
export { createRedisClient, isCluster, scanKeys, type RedisClient } from "./redis-client";
export { FAILOVER_STALE_MS, FAILOVER_WINDOW_MS, slotOwners, urgentAfterFailover, watchFailovers, type FailoverUrgency, type FailoverWatch } from "./failover-watch";
export { tickPipeline, type TickPipeline } from "./tick-pipeline";
