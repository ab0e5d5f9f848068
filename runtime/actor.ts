// Actor definitions and the context a handler receives. An actor is a plain object: a name,
// how to find a message's key, and an idempotent handler (delivery is at-least-once).

export interface RuntimeLogger {
  info(obj: unknown, msg?: string): void;
  warn(obj: unknown, msg?: string): void;
  error(obj: unknown, msg?: string): void;
  debug(obj: unknown, msg?: string): void;
  child?(bindings: Record<string, unknown>): RuntimeLogger;
}

export interface TimerOptions {
  /** Do not multiply the delay by timeScale (for waits that must stay real, e.g. provider rate limits). */
  unscaled?: boolean;
  /**
   * The timer id is only ever scheduled with messages of this key (e.g. `wfrun:<run id>` for run
   * `<run id>`), so an earlier timer of that id can only be in this key's partition: the replace is
   * one script call there instead of a removal in every other partition (31 commands at 16).
   */
  keyBound?: boolean;
}

export interface ActorContext {
  /** The message's actor key; messages with the same key run one at a time, in stream order. */
  readonly key: string;
  /** Stream entry id; stable across redeliveries, usable as an idempotency key. */
  readonly messageId: string;
  /** 1 on the first run, then 2, 3 ... including runs on hosts that crashed. */
  readonly deliveries: number;
  readonly partition: number;
  /** The id of the host running this handler (runtime/host-identity.ts): record it with a claim to let a successor prove the claimer dead. */
  readonly hostId: string;
  /** The runtime's TIME_SCALE: delays scheduled here are multiplied by it unless unscaled. */
  readonly timeScale: number;
  schedule<N>(timerId: string, delayMs: number, msg: N, opts?: TimerOptions): Promise<number>;
  cancel(timerId: string): Promise<boolean>;
  send<N>(actor: ActorAddress<N>, msg: N): Promise<string>;
  readonly log: RuntimeLogger;
  /** Aborted when the handler passes its deadline: the runtime has released its key and will retry it. */
  readonly signal: AbortSignal;
}

/**
 * Fair sharing of the host's slots between groups of one actor's messages (e.g. tenants): once
 * the host is busy (busyThreshold slots in use), a group holding `share` slots waits while others
 * get the rest. Waiting happens in memory (see runtime/fair-semaphore.ts); a group over its share
 * whose messages wait longer than the host's shedAfterMs while readers are blocked is deferred.
 */
export interface FairnessPolicy<M> {
  groupOf(msg: M): string;
  share: number;
  busyThreshold: number;
}

/**
 * Where an actor's messages go: its name, how a message finds its key (and so its partition), and
 * its partition count. Senders need only this, never the handler, so a message type and its address
 * can live below the code that enqueues (an actor is defined as `{ ...address, handle }`).
 */
export interface ActorAddress<M> {
  /** Stream names use it: letters, digits, '-' and '_' only. */
  readonly name: string;
  keyOf(msg: M): string;
  /** Partitions of this actor's stream; senders and hosts must agree (default: the runtime's). */
  readonly partitions?: number;
}

export interface ActorDefinition<M> extends ActorAddress<M> {
  /**
   * Must be idempotent: a message is handled at least once. It runs again after a crash before
   * its ack, and after a throw (up to maxDeliveries), so side effects need deterministic keys.
   */
  handle(msg: M, ctx: ActorContext): Promise<void>;
  /** Most handlers of this actor running at once in one host (default: the host's limit). */
  concurrency?: number;
  /** Runs before the message is dead-lettered (default 5). */
  maxDeliveries?: number;
  /** Back-off before the next run, in ms before timeScale (default retryDelayFor). */
  retryDelayMs?(deliveries: number): number;
  /** A run unsettled after this long releases its key and slot and is retried (default: the host's handlerDeadlineMs). */
  deadlineMs?: number;
  /** How this actor's messages share the host's slots (default: one group, no share limit). */
  fairness?: FairnessPolicy<M>;
}

export interface Actor<M = unknown> extends Readonly<ActorDefinition<M>> {
  readonly maxDeliveries: number;
}

const NAME = /^[A-Za-z0-9_-]+$/;

export function defineActor<M>(def: ActorDefinition<M>): Actor<M> {
  if (!NAME.test(def.name)) throw new Error(`actor name "${def.name}" must match ${NAME}`);
  const maxDeliveries = def.maxDeliveries ?? 5;
  if (!(maxDeliveries >= 1)) throw new Error("maxDeliveries must be >= 1");
  if (def.partitions !== undefined && !(Number.isInteger(def.partitions) && def.partitions > 0)) throw new Error("partitions must be a positive integer");
  if (def.deadlineMs !== undefined && !(def.deadlineMs > 0)) throw new Error("deadlineMs must be > 0");
  if (def.fairness && !(def.fairness.share >= 1 && def.fairness.busyThreshold >= 1)) throw new Error("fairness share and busyThreshold must be >= 1");
  return Object.freeze({ ...def, maxDeliveries });
}

export const silentLogger: RuntimeLogger = {
  info() {},
  warn() {},
  error() {},
  debug() {},
};
