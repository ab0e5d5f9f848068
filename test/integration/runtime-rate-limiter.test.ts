// Rate limiter (GCRA in runtime/lua/rateLimit-1.lua) against real Redis: burst, refill,
// retry-after, cost, and key isolation; on a single Redis and on a Redis Cluster.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
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
