// An idle host sleeps until its earliest timer is due (runtime/maintenance.ts promoteTimers) and a
// timer scheduled earlier, from any process, wakes it through `<prefix>:timers-wake` (scheduleTimer-2.lua).
import { afterAll, expect, test } from "bun:test";
import { createRuntime, defineActor } from "../../runtime";
import { connect, deletePrefix, randomPrefix } from "../support/runtime-redis";

const prefix = randomPrefix("timerwake");
const redis = connect();
const hostRuntime = createRuntime({ redis, prefix, partitions: 4 });
// the scheduler is another runtime on its own connection, as the API process would be
const schedulerRedis = connect();
const scheduler = createRuntime({ redis: schedulerRedis, prefix, partitions: 4 });
const ran: { n: number; at: number }[] = [];
const actor = defineActor<{ key: string; n: number }>({
  name: "tw",
  keyOf: (m) => m.key,
  async handle(m) {
    ran.push({ n: m.n, at: performance.now() });
  },
});
// a minute of idle sleep: without the wake-up a timer would wait for it
const host = hostRuntime.startHost({ actors: [actor], leaseMs: 3000, blockMs: 100, timerPollMs: 20, timerIdleMs: 60_000 });

afterAll(async () => {
  await host.stop();
  await deletePrefix(redis, prefix);
  await hostRuntime.close();
  await scheduler.close();
  await redis.quit();
  await schedulerRedis.quit();
});

async function until(cond: () => boolean, ms: number) {
  const t0 = performance.now();
  while (!cond() && performance.now() - t0 < ms) await Bun.sleep(10);
}

test("a sleeping host is woken by a timer scheduled in another process, and fires it near its due time", async () => {
  await host.ready;
  await Bun.sleep(300); // the first promotion ran: the host now sleeps for timerIdleMs
  const t0 = performance.now();
  await scheduler.schedule(actor, "t:a", 300, { key: "k1", n: 1 });
  await until(() => ran.length >= 1, 10_000);
  expect(ran.map((r) => r.n)).toEqual([1]);
  const after = ran[0]!.at - t0;
  expect(after).toBeGreaterThanOrEqual(250);
  expect(after).toBeLessThan(10_000);
});

test("a later timer does not publish (the owner already wakes earlier); an earlier one does; both fire in due order", async () => {
  const sub = connect();
  const seen: string[] = [];
  sub.on("message", (_c: string, m: string) => seen.push(m));
  await sub.subscribe(`${prefix}:timers-wake`);
  // same key, so the same partition: the first becomes the head, the second is later than it
  await scheduler.schedule(actor, "t:b", 800, { key: "k2", n: 3 });
  await scheduler.schedule(actor, "t:c", 1600, { key: "k2", n: 4 });
  await scheduler.schedule(actor, "t:d", 200, { key: "k2", n: 2 });
  await until(() => ran.length >= 4, 15_000);
  await sub.quit();
  expect(seen.length).toBe(2);
  expect(seen.every((m) => m.startsWith("tw:"))).toBe(true);
  expect(ran.slice(1).map((r) => r.n)).toEqual([2, 3, 4]);
});
