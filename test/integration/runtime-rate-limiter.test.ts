// Rate limiter (GCRA in runtime/lua/rateLimit-1.lua) against real Redis: burst, refill,
// retry-after, cost, and key isolation; on a single Redis and on a Redis Cluster.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Redis } from "ioredis";
import { createRateLimiter } from "../../runtime";
import type { RedisClient } from "../../runtime/redis-client";
import { connect, deletePrefix, describeEachRedis, randomPrefix, sleep } from "../support/runtime-redis";

describeEachRedis("rate limiter", (target) => {
  let redis: RedisClient;
  const prefix = randomPrefix("rl");

  beforeAll(() => {
    redis = connect(target.url);
  });
  afterAll(async () => {
    await deletePrefix(redis, prefix);
    await redis.quit();
  });

  describe("rateLimiter.take", () => {
    test("allows a burst of `limit`, then refuses with a retryAfterMs of about one interval", async () => {
      const rl = createRateLimiter({ redis, prefix });
      const rule = { limit: 5, periodMs: 1000 };
      const results = [];
      for (let i = 0; i < 6; i++) results.push(await rl.take("burst", rule));
      expect(results.slice(0, 5).map((r) => r.allowed)).toEqual([true, true, true, true, true]);
      expect(results.slice(0, 5).map((r) => r.remaining)).toEqual([4, 3, 2, 1, 0]);
      const refused = results[5]!;
      expect(refused.allowed).toBe(false);
      expect(refused.remaining).toBe(0);
      expect(refused.retryAfterMs).toBeGreaterThan(100);
      expect(refused.retryAfterMs).toBeLessThanOrEqual(200);
      expect(refused.resetAt).toBeGreaterThan(Date.now() + 500);
      expect(refused.resetAt).toBeLessThanOrEqual(Date.now() + 1100);
    });

    test("refills one unit per periodMs/limit", async () => {
      const rl = createRateLimiter({ redis, prefix });
      // one unit every 500 ms: wide enough that a loaded machine's slow round trips (tens of ms each)
      // cannot refill a unit between the takes below (at 50 ms per unit they did, 2 runs in 5 at load 10)
      const rule = { limit: 10, periodMs: 5000 };
      for (let i = 0; i < 10; i++) expect((await rl.take("refill", rule)).allowed).toBe(true);
      expect((await rl.take("refill", rule)).allowed).toBe(false);
      await sleep(1100);
      expect((await rl.take("refill", rule)).allowed).toBe(true);
      expect((await rl.take("refill", rule)).allowed).toBe(true);
      expect((await rl.take("refill", rule)).allowed).toBe(false);
    });

    test("cost takes several units at once; a refused call takes nothing", async () => {
      const rl = createRateLimiter({ redis, prefix });
      const rule = { limit: 10, periodMs: 60_000 };
      expect(await rl.take("cost", { ...rule, cost: 7 })).toMatchObject({ allowed: true, remaining: 3 });
      expect(await rl.take("cost", { ...rule, cost: 4 })).toMatchObject({ allowed: false, remaining: 3 });
      expect(await rl.take("cost", { ...rule, cost: 3 })).toMatchObject({ allowed: true, remaining: 0 });
      expect(await rl.take("cost", { ...rule, cost: 0 })).toMatchObject({ allowed: true, remaining: 0 });
      const tooBig = await rl.take("cost-too-big", { ...rule, cost: 11 });
      expect(tooBig.allowed).toBe(false);
      expect(tooBig.retryAfterMs).toBe(Number.POSITIVE_INFINITY);
    });

    test("keys are independent and the state key expires when the limit has refilled", async () => {
      const rl = createRateLimiter({ redis, prefix });
      const rule = { limit: 1, periodMs: 1000 };
      expect((await rl.take("a", rule)).allowed).toBe(true);
      expect((await rl.take("a", rule)).allowed).toBe(false);
      expect((await rl.take("b", rule)).allowed).toBe(true);
      const ttl = await redis.pttl(`${prefix}:rl:a`);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(1000);
    });

    test("batched: takes of one turn share a pipeline, in call order, and never over-admit", async () => {
      const rl = createRateLimiter({ redis, prefix, batched: true });
      const rule = { limit: 50, periodMs: 60_000 };
      const results = await Promise.all(Array.from({ length: 200 }, () => rl.take("batched-race", rule)));
      expect(results.filter((r) => r.allowed).length).toBe(50);
      // sent in call order: the first 50 callers got the budget, counting down
      expect(results.slice(0, 50).every((r) => r.allowed)).toBe(true);
      expect(results[0]!.remaining).toBe(49);
      expect(results[49]!.remaining).toBe(0);
      // a later turn sees the spent budget; other keys in the same turn are independent
      const [again, other] = await Promise.all([rl.take("batched-race", rule), rl.take("batched-other", rule)]);
      expect(again.allowed).toBe(false);
      expect(other).toMatchObject({ allowed: true, remaining: 49 });
    });

    test("batched: takes of one turn on one key answer exactly as the same takes one after another", async () => {
      const batched = createRateLimiter({ redis, prefix, batched: true });
      const single = createRateLimiter({ redis, prefix });
      // mixed costs: a refused take takes nothing, so a later smaller one is still allowed; a peek
      const rule = { limit: 10, periodMs: 60_000 };
      const costs = [7, 4, 3, 0, 2, 1, 11];
      const together = await Promise.all(costs.map((cost) => batched.take("mixed-turn", { ...rule, cost })));
      const apart = [];
      for (const cost of costs) apart.push(await single.take("mixed-apart", { ...rule, cost }));
      const view = (r: { allowed: boolean; remaining: number; retryAfterMs: number }) => [r.allowed, r.remaining, Math.round(r.retryAfterMs / 1000)];
      expect(together.map(view)).toEqual(apart.map(view));
      expect(together.map((r) => r.allowed)).toEqual([true, false, true, true, false, false, false]);
      // a fractional interval (1000 / 3 ms): the TAT rounded as the single script stores it
      const third = { limit: 3, periodMs: 1000 };
      const t = await Promise.all(Array.from({ length: 5 }, () => batched.take("third-turn", third)));
      expect(t.map((r) => [r.allowed, r.remaining])).toEqual([[true, 2], [true, 1], [true, 0], [false, 0], [false, 0]]);
      expect(t[3]!.retryAfterMs).toBeGreaterThan(250);
      expect(t[3]!.retryAfterMs).toBeLessThanOrEqual(334);
      // the stored state is the sequential one: the next turn is refused, and the key expires with the budget refilled
      expect((await batched.take("mixed-turn", { ...rule, cost: 1 })).allowed).toBe(false);
      expect(await single.take("mixed-turn", { ...rule, cost: 0 })).toMatchObject({ allowed: true, remaining: 0 });
      const ttl = await redis.pttl(`${prefix}:rl:third-turn`);
      expect(ttl).toBeGreaterThan(600);
      expect(ttl).toBeLessThanOrEqual(1000);
    });

    test("batched: one script call per key and turn, not one per take", async () => {
      if (target.cluster) return; // on a cluster each take goes alone (a pipeline stays in one slot)
      const rl = createRateLimiter({ redis, prefix, batched: true });
      const monitor = await (redis as Redis).monitor();
      const seen: string[][] = [];
      monitor.on("monitor", (_time: string, args: string[]) => {
        if (args.some((a) => a.startsWith(`${prefix}:rl:count-`))) seen.push(args);
      });
      try {
        const rule = { limit: 100, periodMs: 60_000 };
        await Promise.all([...Array.from({ length: 20 }, () => rl.take("count-a", rule)), rl.take("count-b", rule)]);
        await sleep(100);
      } finally {
        monitor.disconnect();
      }
      const calls = seen.filter((a) => a[0]!.toLowerCase() === "evalsha");
      expect(calls.length).toBe(2); // count-a's twenty takes in one call, count-b's one
      expect(calls.find((a) => a.includes(`${prefix}:rl:count-a`))!.length).toBe(6 + 20); // evalsha, sha, numkeys, key, limit, period, then the 20 costs
    });

    test("concurrent takes never over-admit (the script is atomic)", async () => {
      const rl = createRateLimiter({ redis, prefix });
      const rule = { limit: 50, periodMs: 60_000 };
      const results = await Promise.all(Array.from({ length: 200 }, () => rl.take("race", rule)));
      expect(results.filter((r) => r.allowed).length).toBe(50);
    });

    test("rejects nonsense rules", async () => {
      const rl = createRateLimiter({ redis, prefix });
      await expect(rl.take("x", { limit: 0, periodMs: 1000 })).rejects.toThrow(RangeError);
      await expect(rl.take("x", { limit: 1, periodMs: 0 })).rejects.toThrow(RangeError);
    });
  });
});
