// The client half of a runtime as a type: what hosts and handler contexts use (send, schedule, keys).
// Kept out of runtime.ts, which imports host.ts, so that host.ts never has to import runtime.ts back.
import type { ActorAddress, RuntimeLogger, TimerOptions } from "./actor";
import type { RuntimeKeys } from "./keys";
import type { RateLimiter } from "./rateLimiter";
import type { ScriptedRedis } from "./scripts";

export interface RuntimeClient {
  readonly prefix: string;
  readonly partitions: number;
  readonly timeScale: number;
  readonly keys: RuntimeKeys;
  readonly redis: ScriptedRedis;
  readonly logger: RuntimeLogger;
  readonly rateLimiter: RateLimiter;
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
}
