// Pipelines over many partitions. On a single Redis: one pipeline, one round trip, commands in order.
// On Redis Cluster a pipeline must stay in one slot, so: one pipeline per hash tag, all sent at once.
import type { ChainableCommander } from "ioredis";
import { hashTagOf, isCluster } from "./redis-client";
import type { ScriptCommands, ScriptedRedis } from "./scripts";

export type Reply = [Error | null, unknown];

/** A pipeline with the runtime's script commands (ioredis copies them onto its pipelines). */
export type ScriptedPipeline = ChainableCommander & { [K in keyof ScriptCommands]: (...args: Parameters<ScriptCommands[K]>) => ScriptedPipeline };

interface Group {
  pipeline: ScriptedPipeline;
  /** position in the batch of each command of this pipeline */
  at: number[];
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
    if (!group) this.groups.set(tag, (group = { pipeline: this.redis.pipeline() as ScriptedPipeline, at: [] }));
    const before = group.pipeline.length;
    build(group.pipeline);
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
        try {
          replies = (await group.pipeline.exec()) as Reply[] | null;
        } catch (err) {
          failure = err instanceof Error ? err : new Error(String(err));
        }
        group.at.forEach((pos, i) => (out[pos] = replies?.[i] ?? [failure ?? new Error("pipeline returned no reply"), null]));
      }),
    );
    return out;
  }
}

/** The first error among replies, if any. */
export function firstError(replies: Reply[]): Error | null {
  for (const [err] of replies) if (err) return err;
  return null;
}
