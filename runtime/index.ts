// Public surface of the actor runtime over Redis Streams (DESIGN.md 3): define an actor,
// create a runtime (send, schedule, cancel, rate limiter), start a host. Knows nothing of notifications.
export { defineActor } from "./actor";
export type { Actor, ActorAddress, ActorContext, ActorDefinition, FairnessPolicy, RuntimeLogger, TimerOptions } from "./actor";
export { createRuntime } from "./runtime";
export type { RuntimeOptions } from "./runtime";
export type { Host, HostOptions, HostStats, Runtime, RuntimeObserver } from "./types";
export { createRateLimiter } from "./rateLimiter";
export type { RateLimiter, RateLimitResult, RateLimitRule } from "./rateLimiter";
export { DEFAULT_RETRY_POLICY, retryDelayFor } from "./retry";
export type { RetryPolicy } from "./retry";
export { partitionOf } from "./partition";
export { runtimeKeys, GROUP } from "./keys";
export { Loop } from "./loop";
export { countDeadLetters, deadLetterActors, dropDeadLetter, getDeadLetter, listDeadLetters, redriveDeadLetter } from "./dead-letters";
export type { DeadLetter, Redriven } from "./dead-letters";
export { compareEntryIds } from "./codec";
export { createLease } from "./lease";
export type { NamedLease } from "./lease";
export type { LoopOptions } from "./loop";
