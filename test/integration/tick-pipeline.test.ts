// The tick pipeline (runtime/tick-pipeline.ts) on a real Redis: a turn's commands share one
// pipeline; under steady traffic with a busy linger, commands of later turns join it; after a quiet
// spell, or with no linger, each turn's commands go at the end of their turn.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { BUSY_WINDOW_MS, tickPipeline } from "../../runtime/tick-pipeline";
import type { RedisClient } from "../../runtime/redis-client";
import { connect, deletePrefix, randomPrefix, sleep } from "../support/runtime-redis";

const nextTurn = () => new Promise<void>((r) => setImmediate(r));

describe("tick pipeline", () => {
  let redis: RedisClient;
  const prefix = randomPrefix("tick");

  beforeAll(() => {
    // a client of its own: the pipeline is per client, so its linger is this test's alone
    redis = connect(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
  });
  afterAll(async () => {
    await deletePrefix(redis, prefix);
    await redis.quit();
  });

  /** Calls INCR on `key` from `turns` successive event-loop turns; the generation each call saw. */
  async function callsOverTurns(key: string, turns: number) {
    const tp = tickPipeline(redis);
    const calls: Promise<number>[] = [];
    const generations: number[] = [];
    for (let i = 0; i < turns; i++) {
      generations.push(tp.generation);
      calls.push(tp.call<number>((p) => void p.incr(key)));
      await nextTurn();
    }
    const replies = await Promise.all(calls);
    return { replies, generations, after: tp.generation };
  }

  test("without a linger each turn's commands go out at the end of that turn", async () => {
    const tp = tickPipeline(redis);
    tp.setBusyLinger(0);
    await tp.call((p) => void p.ping()); // traffic: a pipeline was just sent
    const { replies, generations } = await callsOverTurns(`${prefix}:a`, 3);
    expect(replies).toEqual([1, 2, 3]);
    expect(new Set(generations).size).toBe(3); // every turn found the previous pipeline already sent
  });

  test("under steady traffic a linger lets later turns' commands join the unsent pipeline, replies in order", async () => {
    const tp = tickPipeline(redis);
    tp.setBusyLinger(() => 200); // far longer than three turns, even on a loaded machine
    await tp.call((p) => void p.ping());
    const g0 = tp.generation;
    const { replies, generations, after } = await callsOverTurns(`${prefix}:b`, 3);
    expect(replies).toEqual([1, 2, 3]);
    expect(generations).toEqual([g0, g0, g0]); // one pipeline for the three turns
    expect(after).toBe(g0 + 1);
  });

  test("after a quiet spell the first command does not wait for the linger", async () => {
    const tp = tickPipeline(redis);
    tp.setBusyLinger(1_000);
    await tp.call((p) => void p.ping());
    await sleep(BUSY_WINDOW_MS + 30);
    const t0 = performance.now();
    expect(await tp.call<number>((p) => void p.incr(`${prefix}:c`))).toBe(1);
    expect(performance.now() - t0).toBeLessThan(900); // sent at the end of its turn, not after 1 s
    // and the traffic it made is steady: the next command waits for company
    const g = tp.generation;
    const late = tp.call<number>((p) => void p.incr(`${prefix}:c`));
    await sleep(20);
    expect(tp.generation).toBe(g); // still unsent after 20 ms: lingering
    const joined = tp.call<number>((p) => void p.incr(`${prefix}:c`));
    expect(await Promise.all([late, joined])).toEqual([2, 3]);
    expect(tp.generation).toBe(g + 1);
    tp.setBusyLinger(0);
  });
});
