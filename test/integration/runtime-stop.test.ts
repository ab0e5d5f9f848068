// host.stop() drains what runs, never what waits: messages read but not started stay pending for
// the next owner (so a stop's length does not grow with the backlog read into memory), with their
// delivery count given back, and every message still runs exactly once, in key order.
import { expect, test } from "bun:test";
import { createRuntime, defineActor, GROUP, type Host } from "../../runtime";
import { REDIS_URL, deletePrefix, randomPrefix, runtimeTestHooks, sleep, waitFor } from "../support/runtime-redis";

const scope = runtimeTestHooks();
const cleanups = scope.cleanups;

interface Msg {
  key: string;
  n: number;
}

test("stop() finishes the running handler only; the next host runs the rest once each, as first deliveries, in key order", async () => {
  const prefix = randomPrefix("stop");
  const runtime = createRuntime({ redisUrl: REDIS_URL, prefix, partitions: 1 });
  const hosts: Host[] = [];
  cleanups.push(async () => {
    await Promise.all(hosts.map((h) => h.stop()));
    await runtime.close();
    await deletePrefix(scope.admin, prefix);
  });
  const runs: { host: string; msg: Msg; deliveries: number }[] = [];
  let started = 0;
  const actorFor = (host: string) =>
    defineActor<Msg>({
      name: "drained",
      keyOf: (m) => m.key,
      async handle(msg, ctx) {
        started++;
        await sleep(100);
        runs.push({ host, msg, deliveries: ctx.deliveries });
      },
    });
  // ten keys, three messages each: all read at once, one slot to run them
  const msgs: Msg[] = [];
  for (let n = 0; n < 3; n++) for (let k = 0; k < 10; k++) msgs.push({ key: `k${k}`, n });
  await runtime.sendMany(actorFor("a"), msgs);
  const first = runtime.startHost({ actors: [actorFor("a")], concurrency: 1, leaseMs: 1500 });
  hosts.push(first);
  await first.ready;
  expect(await waitFor(() => started >= 1, 5000)).toBe(true);
  await first.stop();
  // what ran finished; nothing else started while stopping
  expect(runs.length).toBe(started);
  expect(runs.length).toBeLessThanOrEqual(2);
  const pending = (await scope.admin.xpending(runtime.keys.stream("drained", 0), GROUP)) as [number];
  expect(Number(pending[0])).toBe(30 - runs.length);

  const second = runtime.startHost({ actors: [actorFor("b")], concurrency: 4, leaseMs: 1500 });
  hosts.push(second);
  expect(await waitFor(() => runs.length === 30, 10_000)).toBe(true);
  await sleep(150);
  expect(runs.length).toBe(30);
  // each message once; per key in send order; the ones handed over never ran before: delivery 1
  const seen = runs.map((r) => `${r.msg.key}#${r.msg.n}`);
  expect(new Set(seen).size).toBe(30);
  for (let k = 0; k < 10; k++) expect(runs.filter((r) => r.msg.key === `k${k}`).map((r) => r.msg.n)).toEqual([0, 1, 2]);
  expect(runs.filter((r) => r.host === "b").map((r) => r.deliveries)).toEqual(new Array(30 - runs.filter((r) => r.host === "a").length).fill(1));
});
