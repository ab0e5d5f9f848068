// Commands issued in one turn of the event loop (or, under steady traffic, within a short linger)
// travel as one pipeline: one socket write and one read for every request of the turn (the HTTP tier's rate-limit takes and auth-epoch reads, the channel sender's provider takes).
import type { ChainableCommander } from "ioredis";
import { isCluster, type RedisClient } from "./redis-client";

interface Queued {
  add: (p: ChainableCommander) => void;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
}

export interface TickPipeline {
  /**
   * Queues one command (added to the pipeline by `add`) for the pipeline sent at the end of this
   * turn; resolves with its reply. Every command is sent after its caller asked for it, so a read
   * sees every write that completed before the call (a cross-process epoch bump included).
   */
  call<T>(add: (p: ChainableCommander) => void): Promise<T>;
  /** Increases each time a pipeline is sent: a value shared by callers of one generation is still unsent. */
  readonly generation: number;
  /**
   * Under steady traffic (a pipeline went out within the last BUSY_WINDOW_MS) a pipeline waits this
   * long for the commands of later turns before it goes, so requests that arrive a turn apart share one
   * socket write; after a quiet spell it goes at the end of its turn, as with 0 (the default). Read at
   * each new pipeline.
   */
  setBusyLinger(ms: number | (() => number)): void;
}

/** How recent the last pipeline must be for a new one to wait (busyLinger): the traffic is steady. */
export const BUSY_WINDOW_MS = 50;

const pipelines = new WeakMap<object, TickPipeline>();

/**
 * The tick pipeline of a client. On a Redis Cluster a pipeline must stay in one slot, so there each
 * command goes out on its own (as a direct call would).
 */
export function tickPipeline(redis: RedisClient): TickPipeline {
  let tp = pipelines.get(redis);
  if (tp) return tp;
  let queue: Queued[] = [];
  let generation = 0;
  let lastSentAt = -Infinity;
  let busyLinger: number | (() => number) = 0;
  const flush = () => {
    const batch = queue;
    queue = [];
    generation++;
    lastSentAt = performance.now();
    const p = redis.pipeline();
    for (const q of batch) q.add(p);
    p.exec().then(
      (replies) => {
        batch.forEach((q, i) => {
          const r = replies?.[i];
          if (!r) q.reject(new Error("no reply in the pipeline"));
          else if (r[0]) q.reject(r[0]);
          else q.resolve(r[1]);
        });
      },
      (err) => batch.forEach((q) => q.reject(err)),
    );
  };
  tp = {
    call<T>(add: (p: ChainableCommander) => void): Promise<T> {
      if (isCluster(redis)) {
        generation++; // sent at once: nobody may join it
        const p = redis.pipeline();
        add(p);
        return p.exec().then((replies) => {
          const r = replies?.[0];
          if (!r) throw new Error("no reply in the pipeline");
          if (r[0]) throw r[0];
          return r[1] as T;
        });
      }
      return new Promise<T>((resolve, reject) => {
        if (queue.length === 0) {
          const linger = typeof busyLinger === "function" ? busyLinger() : busyLinger;
          if (linger > 0 && performance.now() - lastSentAt < BUSY_WINDOW_MS) setTimeout(flush, linger);
          else setImmediate(flush);
        }
        queue.push({ add, resolve: resolve as (v: unknown) => void, reject });
      });
    },
    get generation() {
      return generation;
    },
    setBusyLinger(ms) {
      busyLinger = ms;
    },
  };
  pipelines.set(redis, tp);
  return tp;
}
