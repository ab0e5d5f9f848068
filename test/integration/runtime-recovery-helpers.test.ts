// The runtime's answers to recovery scans (stillQueued: lost, or waiting behind a backlog?) and its
// leased periodic loop (one process of many runs it; a stopped holder's lease goes to the next).
import { afterAll, expect, test } from "bun:test";
import { createRuntime, defineActor, GROUP, runtimeKeys, startLeasedLoop } from "../../runtime";
import { connect, deletePrefix, randomPrefix, waitFor } from "../support/runtime-redis";

const prefix = randomPrefix("recovery");
const redis = connect();
const runtime = createRuntime({ redis, prefix, partitions: 1 });
const actor = defineActor<{ key: string; n: number }>({ name: "rq", keyOf: (m) => m.key, async handle() {} });
const quiet = { debug() {}, info() {}, warn() {}, error() {} } as any;

afterAll(async () => {
  await deletePrefix(redis, prefix);
  await runtime.close();
  await redis.quit();
});

test("stillQueued: nothing unfinished means handled (lost if missing); unread entries from before a send mean it may still wait", async () => {
  const msg = { key: "k", n: 1 };
  // no stream at all: nothing was ever queued there
  expect(await runtime.stillQueued(actor, [{ msg, sentAtMs: Date.now() }, { msg, sentAtMs: null }])).toEqual([false, false]);

  // a group that has read up to a first entry (as a host leaves it), then one more entry nobody read
  const stream = runtimeKeys(prefix).stream("rq", 0);
  await runtime.send(actor, { key: "k", n: 0 });
  await redis.xgroup("CREATE", stream, GROUP, "$");
  const [id] = (await redis.xrange(stream, "-", "+")).map(([entryId]) => entryId);
  const entryMs = Number(id!.split("-")[0]);
  const before = Date.now();
  await runtime.send(actor, msg);
  expect(await runtime.stillQueued(actor, [
    { msg, sentAtMs: before }, // sent just before the oldest unfinished entry: may be that entry
    { msg, sentAtMs: Date.now() + 60_000 }, // sent after it: behind it in the backlog
    { msg, sentAtMs: entryMs - 60_000 }, // sent a minute before anything unfinished: it was handled
    { msg, sentAtMs: null }, // unknown send time with a backlog: cannot say it was lost
  ])).toEqual([true, true, false, true]);
  expect(await runtime.stillQueued(actor, [])).toEqual([]);
});

test("startLeasedLoop: of two loops on one lease only the holder runs; when it stops, the other takes over", async () => {
  const runs = { a: 0, b: 0 };
  const opts = { name: "test loop", lease: "test-leased-loop", everyMs: 20, leaseTtlMs: 2_000, firstRunInMs: 0, log: quiet };
  const a = startLeasedLoop(runtime, opts, async () => void runs.a++);
  expect(await waitFor(() => runs.a > 0, 5_000)).toBe(true);
  const b = startLeasedLoop(runtime, opts, async () => void runs.b++);
  await waitFor(() => runs.a > 10, 5_000);
  expect(runs.b).toBe(0);
  expect(a.runs).toBe(runs.a);
  await a.stop(); // gives the lease back: no wait for its ttl
  expect(await waitFor(() => runs.b > 0, 5_000)).toBe(true);
  const stoppedAt = runs.a;
  await b.stop();
  expect(runs.a).toBe(stoppedAt);
  expect(await redis.exists(runtimeKeys(prefix).namedLease("test-leased-loop"))).toBe(0);
});
