// The runtime's observation hooks (RuntimeObserver): every handler run, dead letter, deferral and
// timer promotion is reported with its actor and partition, and a hook that throws breaks nothing.
import { expect, test } from "bun:test";
import { createRuntime, defineActor, type Actor, type Host, type RuntimeObserver } from "../../runtime";
import { REDIS_URL, deletePrefix, randomPrefix, runtimeTestHooks, sleep, waitFor } from "../support/runtime-redis";

const scope = runtimeTestHooks();
const cleanups = scope.cleanups;

interface Event {
  hook: keyof RuntimeObserver;
  e: any;
}

function setup(observer: RuntimeObserver) {
  const prefix = randomPrefix("observer");
  const runtime = createRuntime({ redisUrl: REDIS_URL, prefix, timeScale: 0.01, partitions: 2, observer });
  const hosts: Host[] = [];
  cleanups.push(async () => {
    await Promise.all(hosts.map((h) => h.stop()));
    await runtime.close();
    await deletePrefix(scope.admin, prefix);
  });
  const start = (actors: Actor<any>[]) => {
    const host = runtime.startHost({ actors, leaseMs: 1500, timerPollMs: 20 });
    hosts.push(host);
    return host;
  };
  return { runtime, start };
}

function recorder() {
  const events: Event[] = [];
  const observer: RuntimeObserver = {
    handlerRun: (e) => events.push({ hook: "handlerRun", e }),
    deadLettered: (e) => events.push({ hook: "deadLettered", e }),
    deferred: (e) => events.push({ hook: "deferred", e }),
    timersPromoted: (e) => events.push({ hook: "timersPromoted", e }),
  };
  return { events, observer };
}

test("runs are reported ok or failed with their duration; the last failure is followed by a dead letter", async () => {
  const { events, observer } = recorder();
  const { runtime, start } = setup(observer);
  const actor = defineActor<{ key: string; fail: boolean }>({
    name: "observed",
    keyOf: (m) => m.key,
    maxDeliveries: 2,
    async handle(m) {
      await sleep(5);
      if (m.fail) throw new Error("nope");
    },
  });
  const p = runtime.partitionFor(actor, { key: "a", fail: false });
  await runtime.send(actor, { key: "a", fail: false });
  await runtime.send(actor, { key: "b", fail: true });
  start([actor]);
  await waitFor(() => events.some((x) => x.hook === "deadLettered"), 5000);
  const runs = events.filter((x) => x.hook === "handlerRun").map((x) => x.e);
  const ok = runs.find((r) => r.outcome === "ok");
  expect(ok).toMatchObject({ actor: "observed", partition: p, deliveries: 1 });
  expect(ok.durationMs).toBeGreaterThanOrEqual(4);
  expect(runs.filter((r) => r.outcome === "failed").map((r) => r.deliveries)).toEqual([1, 2]);
  const dead = events.filter((x) => x.hook === "deadLettered").map((x) => x.e);
  expect(dead).toEqual([{ actor: "observed", partition: runtime.partitionFor(actor, { key: "b", fail: true }), deliveries: 2 }]);
});

test("a run past its deadline is reported as deadline_missed", async () => {
  const { events, observer } = recorder();
  const { runtime, start } = setup(observer);
  let first = true;
  const actor = defineActor<{ key: string }>({
    name: "slowpoke",
    keyOf: (m) => m.key,
    deadlineMs: 100,
    async handle() {
      if (first) {
        first = false;
        await sleep(400);
      }
    },
  });
  await runtime.send(actor, { key: "k" });
  start([actor]);
  await waitFor(() => events.some((x) => x.hook === "handlerRun" && x.e.outcome === "ok"), 5000);
  const outcomes = events.filter((x) => x.hook === "handlerRun").map((x) => x.e.outcome);
  expect(outcomes[0]).toBe("deadline_missed");
  expect(outcomes).toContain("ok");
});

test("timer promotion reports each timer's lateness; a throwing hook does not stop delivery", async () => {
  const { events, observer } = recorder();
  let handled = 0;
  const { runtime, start } = setup({
    ...observer,
    handlerRun() {
      throw new Error("observer bug");
    },
  });
  const actor = defineActor<{ key: string }>({
    name: "timed",
    keyOf: (m) => m.key,
    async handle() {
      handled++;
    },
  });
  // due 2 ms from now (unscaled), with no host to promote it for a while: it will be late
  await runtime.schedule(actor, "t1", 2, { key: "x" }, { unscaled: true });
  await sleep(150);
  start([actor]);
  await waitFor(() => handled === 1, 5000);
  const promoted = events.filter((x) => x.hook === "timersPromoted").map((x) => x.e);
  expect(promoted).toHaveLength(1);
  expect(promoted[0]).toMatchObject({ actor: "timed", partition: runtime.partitionFor(actor, { key: "x" }) });
  expect(promoted[0].latenessMs).toHaveLength(1);
  expect(promoted[0].latenessMs[0]).toBeGreaterThanOrEqual(100);
  expect(handled).toBe(1);
});
