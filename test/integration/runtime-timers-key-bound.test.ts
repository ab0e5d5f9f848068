// runtime.schedule with { keyBound: true } (runtime/runtime.ts): a timer id that only ever goes with one
// key is replaced within that key's partition and the other partitions are not touched.
import { afterAll, expect, test } from "bun:test";
import { createRuntime, defineActor, partitionOf, runtimeKeys } from "../../runtime";
import { connect, deletePrefix, randomPrefix } from "../support/runtime-redis";

const prefix = randomPrefix("keybound");
const redis = connect();
const runtime = createRuntime({ redis, prefix, partitions: 16 });
const actor = defineActor<{ key: string; n: number }>({ name: "kb", keyOf: (m) => m.key, async handle() {} });
const keys = runtimeKeys(prefix);

afterAll(async () => {
  await deletePrefix(redis, prefix);
  await runtime.close();
  await redis.quit();
});

test("a key-bound timer replaces itself in its own partition and touches no other partition", async () => {
  const home = partitionOf("run-1", 16);
  // a timer of the same id planted in another partition (as a key-changing caller would leave it)
  const other = (home + 1) % 16;
  await redis.zadd(keys.timers("kb", other), Date.now() + 60_000, "t:1");
  await runtime.schedule(actor, "t:1", 60_000, { key: "run-1", n: 1 }, { keyBound: true });
  const due2 = await runtime.schedule(actor, "t:1", 120_000, { key: "run-1", n: 2 }, { keyBound: true });
  expect(await redis.zcard(keys.timers("kb", home))).toBe(1);
  expect(Number(await redis.zscore(keys.timers("kb", home), "t:1"))).toBe(due2);
  expect(await redis.hget(keys.timerData("kb", home), "t:1")).toContain('"n":2');
  // left alone: keyBound promises there is nothing of this id elsewhere, so nothing elsewhere is read
  expect(await redis.zscore(keys.timers("kb", other), "t:1")).not.toBeNull();
  // without the flag the same id is removed from every other partition
  await runtime.schedule(actor, "t:1", 60_000, { key: "run-1", n: 3 });
  expect(await redis.zscore(keys.timers("kb", other), "t:1")).toBeNull();
});
