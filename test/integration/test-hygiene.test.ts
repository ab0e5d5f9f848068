// The end-of-run Redis sweep of test/support/preload.ts: deletes exactly the run's prefixes,
// reports keys a file left under its private prefix, never touches a neighbouring prefix.
import { afterAll, expect, test } from "bun:test";
import Redis from "ioredis";
import { sweepTestKeys } from "../support/redis-sweep";
import { randomPrefix } from "../support/runtime-redis";

const url = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const redis = new Redis(url);
// A stand-in for a run prefix, itself under this run's prefix so nothing else can own it.
const runPrefix = randomPrefix("hygiene");
const neighbour = `${runPrefix}9:kept`; // another run whose pid starts with ours

afterAll(async () => {
  await redis.del(neighbour);
  await redis.quit();
});

test("the sweep deletes <prefix>:* and <prefix>-*:*, names the leaking private prefix, keeps neighbours", async () => {
  await redis.set(`${runPrefix}:auth:epoch`, "1");
  await redis.xadd(`${runPrefix}:{channel-sender:0}`, "*", "k", "v");
  await redis.set(`${runPrefix}-rl-abc123:rl:x`, "1");
  await redis.set(`${runPrefix}-rl-abc123:rl:y`, "1");
  await redis.set(neighbour, "1");

  const result = await sweepTestKeys(url, runPrefix);

  expect(result.shared).toBe(2);
  expect([...result.leaked]).toEqual([[`${runPrefix}-rl-abc123`, 2]]);
  const [, left] = await redis.scan("0", "MATCH", `${runPrefix}*`, "COUNT", 1000);
  expect(left).toEqual([neighbour]);
});

test("a clean run reports no leak", async () => {
  const result = await sweepTestKeys(url, `${runPrefix}-empty`);
  expect(result).toEqual({ shared: 0, leaked: new Map() });
});
