// Pipelines over many partitions. On a single Redis: one pipeline, one round trip, commands in order.
// On Redis Cluster a pipeline must stay in one slot, so: one pipeline per hash tag, all sent at once.
import type { ChainableCommander, Cluster } from "ioredis";
import { hashTagOf, isCluster } from "./redis-client";
import type { ScriptCommands, ScriptedRedis } from "./scripts";

export type Reply = [Error | null, unknown];

/** A pipeline with the runtime's script commands (ioredis copies them onto its pipelines). */
export type ScriptedPipeline = ChainableCommander & { [K in keyof ScriptCommands]: (...args: Parameters<ScriptCommands[K]>) => ScriptedPipeline };

interface Group {
  pipeline: ScriptedPipeline;
  /** position in the batch of each command of this pipeline */
  at: number[];
  /** what add() was given, to build the pipeline again (cluster: a demoted master's READONLY) */
  builds: ((pipeline: ScriptedPipeline) => unknown)[];
}

/**
 * During a failover the old master may answer a write with READONLY before the client's slot map
 * knows its replica took over (ioredis follows MOVED, not READONLY). A pipeline whose every reply is
 * READONLY wrote nothing, so it is built again and re-sent, the slot map re-read first: 200 ms
 * apart, up to 25 times (~5 s, like the client's own failover retries).
 */
const READONLY_RETRIES = 25;
const READONLY_RETRY_MS = 200;

function allReadOnly(replies: Reply[] | null): boolean {
  return !!replies && replies.length > 0 && replies.every(([err]) => err !== null && /^READONLY\b/.test(err.message));
}

/**
 * Commands are added with the key whose slot they use (every key of one add must share its hash
 * tag: the partition keys `{<actor>:<p>}` do). On a cluster each tag gets its own pipeline, so
 * ioredis follows a MOVED for the whole pipeline after a failover or resharding; the pipelines
 * go out in the same tick, so the batch still costs about one round trip per node.
 */
export class SlotBatch {
  private readonly groups = new Map<string, Group>();
  private readonly cluster: boolean;
  private count = 0;

  constructor(private readonly redis: ScriptedRedis) {
    this.cluster = isCluster(redis);
  }

  /** Queues what `build` adds to the pipeline of `key`'s slot. */
  add(key: string, build: (pipeline: ScriptedPipeline) => unknown): this {
    const tag = this.cluster ? hashTagOf(key) : "";
    let group = this.groups.get(tag);
    if (!group) this.groups.set(tag, (group = { pipeline: this.redis.pipeline() as ScriptedPipeline, at: [], builds: [] }));
    const before = group.pipeline.length;
    build(group.pipeline);
    if (this.cluster) group.builds.push(build); // only a cluster ever builds a pipeline again
    for (let i = before; i < group.pipeline.length; i++) group.at.push(this.count++);
    return this;
  }

  get length(): number {
    return this.count;
  }

  /**
   * Sends every pipeline (synchronously, before the first await, so a command issued after exec()
   * on the same slot runs after them) and resolves to the replies in the order they were added. A
   * pipeline that failed as a whole gives its error to each of its commands: it never rejects.
   */
  async exec(): Promise<Reply[]> {
    const out = new Array<Reply>(this.count);
    await Promise.all(
      [...this.groups.values()].map(async (group) => {
        let replies: Reply[] | null = null;
        let failure: Error | null = null;
        for (let retry = 0; ; retry++) {
          replies = null;
          failure = null;
          try {
            replies = (await group.pipeline.exec()) as Reply[] | null;
          } catch (err) {
            failure = err instanceof Error ? err : new Error(String(err));
          }
          if (!this.cluster || retry >= READONLY_RETRIES || !allReadOnly(replies)) break;
          await this.refreshSlots();
          await new Promise((r) => setTimeout(r, READONLY_RETRY_MS));
          const pipeline = this.redis.pipeline() as ScriptedPipeline;
          for (const build of group.builds) build(pipeline);
          group.pipeline = pipeline;
        }
        group.at.forEach((pos, i) => (out[pos] = replies?.[i] ?? [failure ?? new Error("pipeline returned no reply"), null]));
      }),
    );
    return out;
  }

  /** Asks the cluster for its slot map again, waiting 2 s at most (errors ignored: the retry finds out). */
  private refreshSlots(): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, 2000);
      (this.redis as unknown as Cluster).refreshSlotsCache(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}

/** The first error among replies, if any. */
export function firstError(replies: Reply[]): Error | null {
  for (const [err] of replies) if (err) return err;
  return null;
}
