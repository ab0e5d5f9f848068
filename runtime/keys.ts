// Every Redis key and stream name the actor runtime uses, built in one place.
// Partition-scoped keys share the hash tag {<actor>:<p>} so one Lua script may touch them on Redis Cluster.

/** The one consumer group every partition stream carries; hosts are its consumers. */
export const GROUP = "runtime";

export function runtimeKeys(prefix: string) {
  return {
    /** Stream of messages for one partition of an actor: `<prefix>:{<actor>:<p>}`. Entries: k (key), m (JSON message), t (timer id, when a timer produced it). */
    stream: (actor: string, p: number) => `${prefix}:{${actor}:${p}}`,
    /** Sorted set of timers due in that partition: member = timer id, score = due time (Redis clock, epoch ms). */
    timers: (actor: string, p: number) => `${prefix}:{${actor}:${p}}:timers`,
    /** Hash timer id => "<key length>:<key><message JSON>", the payload promoteTimers-3.lua moves into the stream. */
    timerData: (actor: string, p: number) => `${prefix}:{${actor}:${p}}:timer-data`,
    /** Hash stream entry id => handler failures so far; survives a crash so the delivery count keeps growing. */
    attempts: (actor: string, p: number) => `${prefix}:{${actor}:${p}}:attempts`,
    /** Hash dead-letter id => the entry id its redrive appended (redriveDeadLetter-2.lua), so a repeated redrive appends nothing; expires. */
    redriven: (actor: string, p: number) => `${prefix}:{${actor}:${p}}:redriven`,
    /** String holding the id of the host that owns the partition (SET NX PX, renewed while owned). */
    lease: (actor: string, p: number) => `${prefix}:lease:{${actor}:${p}}`,
    /** String holding the holder id of a named lease (one process at a time does that work): `<prefix>:lease:{<name>}`. */
    namedLease: (name: string) => `${prefix}:lease:{${name}}`,
    /** Sorted set of live hosts running an actor: member = host id, score = last heartbeat (Redis clock, ms). */
    hosts: (actor: string) => `${prefix}:hosts:${actor}`,
    /** Pub/sub channel: `<actor>:<p>:<delay ms>` when a timer became the earliest of its partition (its owner wakes for it). */
    timersWake: () => `${prefix}:timers-wake`,
    /** Dead-letter stream: messages that failed maxDeliveries times, with error, stack and delivery count. */
    dead: (actor: string) => `${prefix}:dead:${actor}`,
    /** GCRA state of one rate limit: the theoretical arrival time (ms) of the next request. */
    rateLimit: (key: string) => `${prefix}:rl:${key}`,
  };
}

export type RuntimeKeys = ReturnType<typeof runtimeKeys>;

/** The field of a partition's attempts hash that holds the delivery number of a redelivered message's last started run. */
export function runMarkOf(id: string): string {
  return `${id}:run`;
}
