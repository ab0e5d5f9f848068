// Holds the runtime's Lua scripts (runtime/lua/<name>-<numKeys>.lua) and registers them
// on an ioredis client with defineCommand, so every call is EVALSHA (EVAL only after NOSCRIPT).
import rateLimitLua from "./lua/rateLimit-1.lua" with { type: "text" };
import rateLimitManyLua from "./lua/rateLimitMany-1.lua" with { type: "text" };
import appendMessagesLua from "./lua/appendMessages-1.lua" with { type: "text" };
import promoteTimersLua from "./lua/promoteTimers-3.lua" with { type: "text" };
import scheduleTimerLua from "./lua/scheduleTimer-2.lua" with { type: "text" };
import renewLeaseLua from "./lua/renewLease-1.lua" with { type: "text" };
import takeLeaseLua from "./lua/takeLease-1.lua" with { type: "text" };
import releaseLeaseLua from "./lua/releaseLease-1.lua" with { type: "text" };
import heartbeatLua from "./lua/heartbeat-1.lua" with { type: "text" };
import trimStreamLua from "./lua/trimStream-1.lua" with { type: "text" };
import deferMessageLua from "./lua/deferMessage-4.lua" with { type: "text" };
import redriveDeadLetterLua from "./lua/redriveDeadLetter-2.lua" with { type: "text" };
import type { RedisClient } from "./redis-client";

// imported as text: the sources travel inside a compiled binary too (scripts/build-actors.ts);
// a name ends with its number of keys
const SOURCES = {
  "rateLimit-1": rateLimitLua,
  "rateLimitMany-1": rateLimitManyLua,
  "appendMessages-1": appendMessagesLua,
  "promoteTimers-3": promoteTimersLua,
  "scheduleTimer-2": scheduleTimerLua,
  "renewLease-1": renewLeaseLua,
  "takeLease-1": takeLeaseLua,
  "releaseLease-1": releaseLeaseLua,
  "heartbeat-1": heartbeatLua,
  "trimStream-1": trimStreamLua,
  "deferMessage-4": deferMessageLua,
  "redriveDeadLetter-2": redriveDeadLetterLua,
} as const;
type ScriptName = keyof typeof SOURCES;

/** Command names are prefixed so they cannot clash with anything else defined on a shared client. */
export function commandName(name: ScriptName): string {
  return "nmsRuntime_" + name.replace(/-\d+$/, "");
}

const defined = new WeakSet<object>();

/** The script commands as methods; ioredis adds them to the client and to its pipelines. */
export interface ScriptCommands {
  nmsRuntime_rateLimit(key: string, limit: number, periodMs: number, cost: number): Promise<[number, number, number, number, number]>;
  /** Resolves to [nowMs, then allowed, remaining, resetAfterMs, retryAfterMs for each cost, in order]. */
  nmsRuntime_rateLimitMany(key: string, limit: number, periodMs: number, ...costs: number[]): Promise<number[]>;
  nmsRuntime_appendMessages(stream: string, ...keyJsonPairs: string[]): Promise<string[]>;
  /** Resolves to [moved, ms until the earliest timer left is due (-1: none), lateness ms of each timer moved into the stream ...]. */
  nmsRuntime_promoteTimers(timers: string, data: string, stream: string, max: number): Promise<number[]>;
  /** With `channel` and `tag`, publishes `<tag>:<delay>` on the channel when the timer became the partition's earliest. */
  nmsRuntime_scheduleTimer(timers: string, data: string, timerId: string, delayMs: number, payload: string, channel?: string, tag?: string): Promise<number>;
  nmsRuntime_renewLease(lease: string, hostId: string, leaseMs: number, reclaim: 0 | 1): Promise<number>;
  nmsRuntime_takeLease(lease: string, deadHolder: string, hostId: string, leaseMs: number): Promise<number>;
  nmsRuntime_releaseLease(lease: string, hostId: string): Promise<number>;
  /** the live host ids after the beat (or after leaving) */
  nmsRuntime_heartbeat(hosts: string, hostId: string, ttlMs: number, leaving: number): Promise<string[]>;
  nmsRuntime_trimStream(stream: string, forgetIdleConsumersMs: number): Promise<[number, string]>;
  nmsRuntime_redriveDeadLetter(stream: string, redriven: string, deadId: string, key: string, json: string, ttlMs: number): Promise<[string, number]>;
  nmsRuntime_deferMessage(stream: string, timers: string, data: string, attempts: string, group: string, entryId: string, timerId: string, delayMs: number, payload: string): Promise<number>;
}

/** A Redis or Cluster client with the script commands; on a cluster each script is loaded per node on first use. */
export type ScriptedRedis = RedisClient & ScriptCommands;

export function withScripts(redis: RedisClient): ScriptedRedis {
  if (!defined.has(redis)) {
    for (const [name, lua] of Object.entries(SOURCES) as [ScriptName, string][]) {
      const numberOfKeys = Number(name.slice(name.lastIndexOf("-") + 1));
      redis.defineCommand(commandName(name), { numberOfKeys, lua });
    }
    defined.add(redis);
  }
  return redis as ScriptedRedis;
}
