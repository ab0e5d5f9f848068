// The runtime's public interfaces (Runtime, Host, HostOptions) in a file of their own, so the
// client side (runtime.ts) and the host (host.ts and its parts) depend on it and not on each other.
import type { Actor, ActorAddress, RuntimeLogger, TimerOptions } from "./actor";
import type { RuntimeKeys } from "./keys";
import type { RateLimiter } from "./rate-limiter";
import type { ScriptedRedis } from "./scripts";

/** send, sendMany, schedule, cancel take an address (`{ name, keyOf, partitions? }`): every Actor is one. */
export interface Runtime {
  readonly prefix: string;
  readonly partitions: number;
  readonly timeScale: number;
  readonly keys: RuntimeKeys;
  readonly redis: ScriptedRedis;
  readonly logger: RuntimeLogger;
  readonly rateLimiter: RateLimiter;
  /** Told of handler runs, dead letters, deferrals and timer promotions (metrics live outside the runtime). */
  readonly observer: RuntimeObserver;
  partitionsOf(actor: ActorAddress<any>): number;
  partitionFor<M>(actor: ActorAddress<M>, msg: M): number;
  /** Appends one message to its partition stream; resolves to the stream entry id. */
  send<M>(actor: ActorAddress<M>, msg: M): Promise<string>;
  /** Appends many messages in one pipeline; resolves to their entry ids in order. */
  sendMany<M>(actor: ActorAddress<M>, msgs: M[]): Promise<string[]>;
  /** Schedules msg after delayMs (times timeScale unless unscaled); same timerId replaces. Resolves to the due time (ms). */
  schedule<M>(actor: ActorAddress<M>, timerId: string, delayMs: number, msg: M, opts?: TimerOptions): Promise<number>;
  /** Removes a timer that has not fired; resolves to whether one was removed. */
  cancel(actor: ActorAddress<any>, timerId: string): Promise<boolean>;
  /**
   * Per partition, the Redis time (ms) of the oldest entry not yet finished (unread, or read and not
   * acked), or null when every entry was handled. A message sent before that time has been handled.
   */
  unfinishedSince(actor: ActorAddress<any>): Promise<(number | null)[]>;
  /**
   * "Is this work lost, or is its message still waiting behind a backlog?", answered once for every
   * recovery scan: per message, whether it may still be queued unhandled in its partition (the
   * partition has unfinished entries from before `sentAtMs` plus the clock slack between the
   * caller's clock and Redis stream ids). false means anything sent then was handled: if its effect
   * is missing, the message was lost. `sentAtMs` null (sent at an unknown time) is false only when
   * nothing at all is unfinished in its partition.
   */
  stillQueued<M>(actor: ActorAddress<M>, sent: readonly { msg: M; sentAtMs: number | null }[]): Promise<boolean[]>;
  startHost(opts: HostOptions): Host;
  /** Closes the connection the runtime opened (not a client passed in). Stop hosts first. */
  close(): Promise<void>;
}

export interface HostOptions {
  actors: Actor<any>[];
  /** Lease time: a dead host's partitions move after at most this long (plus one lease tick). */
  leaseMs?: number;
  /** XREADGROUP COUNT and XAUTOCLAIM COUNT. */
  batch?: number;
  /** Most handlers running at once in this host, over all actors (shared fairly, see fair-semaphore.ts). */
  concurrency?: number;
  /** XREADGROUP BLOCK timeout (default 30000); stop() unblocks readers at once, so this only bounds idle loops. */
  blockMs?: number;
  /**
   * How long finished messages' acks may wait to share one XACK per partition (default 10 ms; 0: the
   * end of the event-loop turn). A graceful stop flushes them; a crash leaves them pending, and the
   * next owner redelivers them like any unacked entry (the handlers are at-least-once already).
   */
  ackDelayMs?: number;
  /** Messages read but not finished before readers pause (back-pressure). */
  maxInFlight?: number;
  /**
   * Least pause between timer promotions that moved timers (a busy host batches its timers at this
   * rate). An idle host sleeps until its earliest timer is due; a timer scheduled earlier than that
   * wakes it through the `<prefix>:timers-wake` channel.
   */
  timerPollMs?: number;
  /** Longest sleep of the timer promotion with nothing due (a lost wake-up is found within this long). Default 5000. */
  timerIdleMs?: number;
  /** How often owned partition streams are trimmed below their oldest pending entry. */
  trimIntervalMs?: number;
  /** At trim time, consumers (host ids) with nothing pending and idle this long are deleted from the group. */
  forgetIdleConsumersMs?: number;
  /** Dead-letter streams are capped (approximately) at this length. */
  deadLetterMaxLen?: number;
  /** A handler unsettled after this long gives up its key and slot and is retried (an actor's deadlineMs wins). */
  handlerDeadlineMs?: number;
  /** How often the watchdog looks for stalled readers, overdue loops and blocked capacity. */
  watchdogMs?: number;
  /** A reader whose XREADGROUP has not returned for this long (or that has not read for this long) is restarted (default blockMs + 10 s). */
  readerStallMs?: number;
  /**
   * While readers wait for capacity, messages of groups over their fairness share that have waited
   * this long for a slot are deferred (acked and re-sent by a timer), so a stuck tenant cannot keep
   * other tenants' messages unread.
   */
  shedAfterMs?: number;
  hostId?: string;
}

export interface Host {
  readonly id: string;
  /** Resolves once the first lease round is done and the partitions it won are being read. */
  readonly ready: Promise<void>;
  /** Graceful: stop reading, finish in-flight handlers, flush acks, release leases. Installs no signal handlers. */
  stop(): Promise<void>;
  /** Partitions held right now, per actor name. */
  owned(): Map<string, number[]>;
  /** Trims owned streams now (it also runs every trimIntervalMs); resolves to entries deleted. */
  trimNow(): Promise<number>;
  /** Counters for logs and metrics: in flight, running, waiting, deferred, deadline misses, reader restarts. */
  stats(): HostStats;
}

/**
 * Observation hooks, called synchronously where each event happens; every hook is optional and a
 * hook that throws is logged and ignored, so an observer cannot break delivery. The runtime
 * imports no metrics library: the service registers its collectors on these (store/runtime-handle.ts).
 */
export interface RuntimeObserver {
  /** A handler run settled: it resolved (ok), threw (failed) or passed its deadline (deadline_missed). */
  handlerRun?(e: { actor: string; partition: number; outcome: "ok" | "failed" | "deadline_missed"; durationMs: number; deliveries: number }): void;
  /** A message went to the dead letters (after its last failed run, unreadable, or redelivered too often). */
  deadLettered?(e: { actor: string; partition: number; deliveries: number }): void;
  /** A message that never ran was acked and put on a timer (its group held its share while readers waited). */
  deferred?(e: { actor: string; partition: number }): void;
  /** Due timers moved into a partition stream; per timer, how long after its due time (Redis clock, ms). */
  timersPromoted?(e: { actor: string; partition: number; latenessMs: number[] }): void;
}

export interface HostStats {
  inFlight: number;
  running: number;
  waiting: number;
  deferred: number;
  deadlineMisses: number;
  readerRestarts: number;
  loopFailures: number;
}
