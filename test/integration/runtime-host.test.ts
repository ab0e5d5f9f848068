// Runtime behaviour inside one process against real Redis: retries and dead letters, takeover of
// pending entries, graceful stop, trimming, and timers; on a single Redis and on a Redis Cluster. Each test uses its own key prefix.
import { describe, expect, test } from "bun:test";
import { createRuntime, defineActor, GROUP, partitionOf, runtimeKeys, type Actor, type Host, type Runtime } from "../../runtime";
import { deletePrefix, describeEachRedis, randomPrefix, runtimeTestHooks, sleep, waitFor } from "../support/runtime-redis";

describeEachRedis("runtime host", (target) => {
  const scope = runtimeTestHooks(() => target.url);
  const cleanups = scope.cleanups;

  /** A runtime on a fresh prefix; its hosts are stopped and its keys deleted after the test. */
  function setup(opts: { timeScale?: number; partitions?: number } = {}) {
    const prefix = randomPrefix("host");
    const runtime = createRuntime({ redisUrl: target.url, prefix, timeScale: opts.timeScale ?? 1, partitions: opts.partitions ?? 4 });
    const hosts: Host[] = [];
    cleanups.push(async () => {
      await Promise.all(hosts.map((h) => h.stop()));
      await runtime.close();
      await deletePrefix(scope.admin, prefix);
    });
    const start = (actors: Actor<any>[], extra: Record<string, unknown> = {}) => {
      const host = runtime.startHost({ actors, leaseMs: 1500, timerPollMs: 20, ...extra });
      hosts.push(host);
      return host;
    };
    return { prefix, runtime, keys: runtimeKeys(prefix), start };
  }

  async function pendingCount(runtime: Runtime, actor: Actor<any>): Promise<number> {
    let total = 0;
    for (let p = 0; p < runtime.partitionsOf(actor); p++) {
      const summary = (await scope.admin.xpending(runtime.keys.stream(actor.name, p), GROUP).catch(() => [0])) as [number];
      total += Number(summary[0]);
    }
    return total;
  }

  interface Msg {
    key: string;
    seq: number;
  }

  describe("retries and dead letters", () => {
    test("a handler that throws ends in nms:dead:<actor> after exactly 5 deliveries, with its error", async () => {
      const { runtime, keys, start } = setup({ timeScale: 0.01 });
      const seen: number[] = [];
      const actor = defineActor<Msg>({
        name: "always-fails",
        keyOf: (m) => m.key,
        async handle(m, ctx) {
          seen.push(ctx.deliveries);
          throw new Error(`provider exploded on ${m.key}`);
        },
      });
      const id = await runtime.send(actor, { key: "k1", seq: 1 });
      start([actor]);
      const dead = await waitFor(async () => (await scope.admin.xrange(keys.dead("always-fails"), "-", "+"))[0], 5000);
      expect(dead).toBeDefined();
      const fields = Object.fromEntries(
        dead![1].reduce<[string, string][]>((acc, v, i, all) => (i % 2 ? acc : [...acc, [v, all[i + 1]!]]), []),
      );
      expect(seen).toEqual([1, 2, 3, 4, 5]);
      expect(fields.deliveries).toBe("5");
      expect(fields.error).toBe("provider exploded on k1");
      expect(fields.stack).toContain("provider exploded on k1");
      expect(fields.id).toBe(id);
      expect(fields.k).toBe("k1");
      expect(JSON.parse(fields.m!)).toEqual({ key: "k1", seq: 1 });
      await sleep(100);
      expect(seen.length).toBe(5);
      expect(await pendingCount(runtime, actor)).toBe(0);
      expect(await scope.admin.hlen(keys.attempts("always-fails", partitionOf("k1", 4)))).toBe(0);
    });

    test("a retried message holds its key: later messages of that key wait, other keys do not", async () => {
      const { runtime, keys, start } = setup({ timeScale: 0.01 });
      const log: string[] = [];
      let failures = 0;
      const actor = defineActor<Msg>({
        name: "flaky",
        keyOf: (m) => m.key,
        async handle(m, ctx) {
          if (m.key === "a" && m.seq === 1 && failures < 2) {
            failures++;
            throw new Error("transient");
          }
          log.push(`${m.key}${m.seq}@${ctx.deliveries}`);
        },
      });
      await runtime.sendMany(actor, [
        { key: "a", seq: 1 },
        { key: "a", seq: 2 },
        { key: "b", seq: 1 },
      ]);
      start([actor]);
      await waitFor(() => log.length === 3, 5000);
      expect(log.filter((l) => l.startsWith("a"))).toEqual(["a1@3", "a2@1"]);
      expect(log.indexOf("b1@1")).toBeLessThan(log.indexOf("a1@3"));
      expect(await waitFor(async () => (await pendingCount(runtime, actor)) === 0, 2000)).toBe(true);
      expect(await scope.admin.exists(keys.dead("flaky"))).toBe(0);
    });
  });

  describe("sending", () => {
    test("sendMany returns entry ids in message order and puts each message in its key's partition", async () => {
      const { runtime, keys } = setup({ partitions: 4 });
      const actor = defineActor<Msg>({ name: "bulk", keyOf: (m) => m.key, async handle() {} });
      const msgs = Array.from({ length: 1200 }, (_, i) => ({ key: `k${i % 7}`, seq: i }));
      const ids = await runtime.sendMany(actor, msgs);
      expect(ids.length).toBe(1200);
      for (const i of [0, 1, 599, 1199]) {
        const [entry] = await scope.admin.xrange(keys.stream("bulk", partitionOf(msgs[i]!.key, 4)), ids[i]!, ids[i]!);
        expect(JSON.parse(entry![1][3]!)).toEqual(msgs[i]);
      }
      expect(await runtime.sendMany(actor, [])).toEqual([]);
    });
  });

  describe("concurrency", () => {
    /** Sends n messages on n distinct keys through a 5 ms handler; returns the most that ran at once. */
    async function peakConcurrency(opts: { name: string; n: number; hostConcurrency: number; actorConcurrency?: number }) {
      const { runtime, start } = setup();
      let running = 0;
      let peak = 0;
      let done = 0;
      const actor = defineActor<Msg>({
        name: opts.name,
        ...(opts.actorConcurrency === undefined ? {} : { concurrency: opts.actorConcurrency }),
        keyOf: (m) => m.key,
        async handle() {
          peak = Math.max(peak, ++running);
          await sleep(5);
          running--;
          done++;
        },
      });
      await runtime.sendMany(actor, Array.from({ length: opts.n }, (_, i) => ({ key: `k${i}`, seq: i })));
      start([actor], { concurrency: opts.hostConcurrency });
      await waitFor(() => done === opts.n, 5000);
      return peak;
    }

    test("different keys run concurrently, bounded by the host's concurrency", async () => {
      const peak = await peakConcurrency({ name: "bounded", n: 200, hostConcurrency: 7 });
      expect(peak).toBe(7);
    });

    test("an actor's own concurrency caps it below the host's", async () => {
      const peak = await peakConcurrency({ name: "capped", n: 60, hostConcurrency: 50, actorConcurrency: 3 });
      expect(peak).toBe(3);
    });

    test("reads at once on every partition never pull more than maxInFlight (plus the idle reads' shares) into the host; all of it runs once let go", async () => {
      const { runtime, start } = setup({ partitions: 8 });
      let open!: () => void;
      const gate = new Promise<void>((r) => (open = r));
      let done = 0;
      const actor = defineActor<Msg>({
        name: "prefetch",
        keyOf: (m) => m.key,
        async handle() {
          await gate;
          done++;
        },
      });
      const host = start([actor], { concurrency: 10, batch: 100, maxInFlight: 200, blockMs: 2000 });
      await host.ready;
      // every reader blocked in XREADGROUP when 2,000 messages land at once on all 8 partitions:
      // asking each for a batch (the free room each saw) took 8 x 100 = 800 into memory
      await sleep(300);
      await runtime.sendMany(actor, Array.from({ length: 2000 }, (_, i) => ({ key: `k${i}`, seq: i })));
      let peak = 0;
      const until = Date.now() + 1500;
      while (Date.now() < until) {
        peak = Math.max(peak, host.stats().inFlight);
        await sleep(2);
      }
      expect(peak).toBeGreaterThan(100);
      // reads that reserve stay within maxInFlight; blocked reads of idle partitions hold no room (held,
      // they starved the others), so each may bring its share past it: 8 x floor(200 / (4 x 8)) = 48
      expect(peak).toBeLessThanOrEqual(200 + 8 * 6);
      open();
      await waitFor(() => done === 2000, 20_000);
      expect(host.stats().inFlight).toBe(0);
    });

    test("idle partitions' blocked reads never keep another partition unread: a message to each of 8 in turn runs far within blockMs", async () => {
      const { runtime, start } = setup({ partitions: 8 });
      const seen = new Set<number>();
      const actor = defineActor<Msg>({ name: "idle-reads", keyOf: (m) => m.key, async handle(m) { seen.add(m.seq); } });
      // a batch of half maxInFlight: two reads blocking with a batch each would hold all the room
      const host = start([actor], { concurrency: 10, batch: 100, maxInFlight: 200, blockMs: 60_000 });
      await host.ready;
      await sleep(300);
      const keys: string[] = [];
      for (let i = 0; keys.length < 8; i++) if (!keys.some((k) => partitionOf(k, 8) === partitionOf(`k${i}`, 8))) keys.push(`k${i}`);
      // one partition at a time: a message that lands where no read is outstanding (its reader waits
      // for room that blocked reads hold) would wait for one of them to time out
      for (const [seq, key] of keys.entries()) {
        await runtime.send(actor, { key, seq });
        await waitFor(() => seen.has(seq), 15_000);
      }
    });

    test("a backlog on every partition is read on every partition: readers that loop straight back never keep the room from those waiting for it", async () => {
      const { runtime, start } = setup({ partitions: 4 });
      const PER = 150;
      const handled = [0, 0, 0, 0];
      const actor = defineActor<Msg>({
        name: "fair-reads",
        keyOf: (m) => m.key,
        async handle(m) {
          await sleep(2);
          handled[partitionOf(m.key, 4)]!++;
        },
      });
      // keys spread over the 4 partitions, PER messages on each, sent before the host starts
      const keysOf: string[][] = [[], [], [], []];
      for (let i = 0; keysOf.some((k) => k.length < 8); i++) {
        const k = `k${i}`;
        const p = partitionOf(k, 4);
        if (keysOf[p]!.length < 8) keysOf[p]!.push(k);
      }
      await runtime.sendMany(actor, keysOf.flatMap((ks) => Array.from({ length: PER }, (_, i) => ({ key: ks[i % ks.length]!, seq: i }))));
      // handlers far fewer than the room (as the sender's lanes): what runs frees one slot at a time
      const host = start([actor], { concurrency: 2, batch: 8, maxInFlight: 16, blockMs: 5000 });
      await host.ready;
      // when half of everything has run, every partition has had a share of the reads: before, one
      // partition's reader queued first for every room (its unused reservation, given back before its
      // entries were counted, woke the waiters), and the others waited until it drained (seen: 150, 4, 16, 150)
      await waitFor(() => handled.reduce((a, b) => a + b, 0) >= 2 * PER, 30_000);
      const snapshot = [...handled];
      for (const n of snapshot) expect(n).toBeGreaterThanOrEqual(PER / 5);
      await waitFor(() => handled.every((n) => n === PER), 30_000);
    });

    test("a backlog on every partition shares the room among them: the keys of every partition run at once, not those of the one read first", async () => {
      const P = 8;
      const { runtime, start } = setup({ partitions: P });
      // 4 keys on each partition, 25 messages each: a key runs one message at a time
      const keysOf: string[][] = Array.from({ length: P }, () => []);
      for (let i = 0; keysOf.some((k) => k.length < 4); i++) {
        const k = `k${i}`;
        const p = partitionOf(k, P);
        if (keysOf[p]!.length < 4) keysOf[p]!.push(k);
      }
      const running = new Map<string, number>(); // key -> its partition, while its handler runs
      let peakKeys = 0;
      let peakPartitions = 0;
      let done = 0;
      const actor = defineActor<Msg>({
        name: "shared-room",
        keyOf: (m) => m.key,
        async handle(m) {
          running.set(m.key, partitionOf(m.key, P));
          peakKeys = Math.max(peakKeys, running.size);
          peakPartitions = Math.max(peakPartitions, new Set(running.values()).size);
          await sleep(10);
          running.delete(m.key);
          done++;
        },
      });
      await runtime.sendMany(actor, keysOf.flatMap((ks) => Array.from({ length: 25 * ks.length }, (_, i) => ({ key: ks[i % ks.length]!, seq: i }))));
      // slots for every key; a batch larger than the room: one partition's read used to take all of it
      // (a batch each), and only its 4 keys could run until half of it had
      const host = start([actor], { concurrency: 64, batch: 500, maxInFlight: 200, blockMs: 5000 });
      await host.ready;
      await waitFor(() => done === P * 4 * 25, 30_000);
      expect(peakPartitions).toBeGreaterThanOrEqual(6);
      expect(peakKeys).toBeGreaterThanOrEqual(20);
    });
  });

  describe("takeover", () => {
    test("a new owner claims the old owner's pending entries (XAUTOCLAIM) and runs them before new ones", async () => {
      const { runtime, keys, start } = setup({ partitions: 1 });
      const actor = defineActor<Msg>({ name: "takeover", keyOf: (m) => m.key, async handle(m, ctx) {
        handled.push(`${m.key}${m.seq}@${ctx.deliveries}`);
      } });
      const handled: string[] = [];
      const stream = keys.stream("takeover", 0);
      await runtime.sendMany(actor, [1, 2, 3].map((seq) => ({ key: "k", seq })));
      // A host that read them and died before acking: they sit pending under its consumer name.
      await scope.admin.xgroup("CREATE", stream, GROUP, "0", "MKSTREAM");
      const read = (await scope.admin.xreadgroup("GROUP", GROUP, "dead-host", "COUNT", 10, "STREAMS", stream, ">")) as any[];
      expect(read[0][1].length).toBe(3);
      await runtime.sendMany(actor, [4, 5].map((seq) => ({ key: "k", seq })));
      start([actor]);
      await waitFor(() => handled.length === 5, 5000);
      expect(handled).toEqual(["k1@2", "k2@2", "k3@2", "k4@1", "k5@1"]);
      expect(await waitFor(async () => (await pendingCount(runtime, actor)) === 0, 2000)).toBe(true);
    });

    test("the failure count survives a crash: an entry that already failed 4 times gets one more run", async () => {
      const { runtime, keys, start } = setup({ partitions: 1, timeScale: 0.01 });
      const runs: number[] = [];
      const actor = defineActor<Msg>({ name: "crashy", keyOf: (m) => m.key, async handle(_m, ctx) {
        runs.push(ctx.deliveries);
        throw new Error("still broken");
      } });
      const stream = keys.stream("crashy", 0);
      const id = await runtime.send(actor, { key: "k", seq: 1 });
      await scope.admin.xgroup("CREATE", stream, GROUP, "0", "MKSTREAM");
      await scope.admin.xreadgroup("GROUP", GROUP, "dead-host", "COUNT", 10, "STREAMS", stream, ">");
      await scope.admin.hset(keys.attempts("crashy", 0), id, 4);
      start([actor]);
      const dead = await waitFor(async () => (await scope.admin.xrange(keys.dead("crashy"), "-", "+"))[0], 5000);
      expect(runs).toEqual([5]);
      expect(dead![1]).toContain("still broken");
    });
  });

  describe("poison messages", () => {
    test("an entry whose hosts kept dying while running it (maxDeliveries started runs) is dead-lettered without running", async () => {
      const { runtime, keys, start } = setup({ partitions: 1 });
      let runs = 0;
      const actor = defineActor<Msg>({ name: "poison", keyOf: (m) => m.key, async handle() {
        runs++;
      } });
      const stream = keys.stream("poison", 0);
      const id = await runtime.send(actor, { key: "k", seq: 1 });
      await runtime.send(actor, { key: "k", seq: 2 });
      await scope.admin.xgroup("CREATE", stream, GROUP, "0", "MKSTREAM");
      await scope.admin.xreadgroup("GROUP", GROUP, "dead-host", "COUNT", 1, "STREAMS", stream, ">");
      await scope.admin.call("XCLAIM", stream, GROUP, "dead-host", 0, id, "RETRYCOUNT", 5);
      // its 5th run had started (marked) when that host died
      await scope.admin.hset(keys.attempts("poison", 0), `${id}:run`, 5);
      start([actor]);
      const dead = await waitFor(async () => (await scope.admin.xrange(keys.dead("poison"), "-", "+"))[0], 5000);
      expect(dead![1].join(" ")).toContain("hosts died while handling it");
      await waitFor(() => runs === 1, 2000);
      expect(runs).toBe(1); // only seq 2
      expect(await waitFor(async () => (await pendingCount(runtime, actor)) === 0, 2000)).toBe(true);
    });

    test("an entry claimed many times from hosts killed while it only waited (no run started) still runs, once, and leaves no marks", async () => {
      const { runtime, keys, start } = setup({ partitions: 1 });
      const runs: number[] = [];
      const actor = defineActor<Msg>({ name: "waited", keyOf: (m) => m.key, async handle(_m, ctx) {
        runs.push(ctx.deliveries);
      } });
      const stream = keys.stream("waited", 0);
      const id = await runtime.send(actor, { key: "k", seq: 1 });
      await scope.admin.xgroup("CREATE", stream, GROUP, "0", "MKSTREAM");
      await scope.admin.xreadgroup("GROUP", GROUP, "dead-host", "COUNT", 1, "STREAMS", stream, ">");
      // twenty hosts claimed it and were killed before its turn came: the stream counts 20 deliveries
      await scope.admin.call("XCLAIM", stream, GROUP, "dead-host", 0, id, "RETRYCOUNT", 20);
      start([actor]);
      expect(await waitFor(() => runs.length === 1, 5000)).toBe(true);
      expect(runs).toEqual([2]); // a redelivery (handlers see deliveries > 1), not the 21st
      expect(await waitFor(async () => (await pendingCount(runtime, actor)) === 0, 2000)).toBe(true);
      expect(await waitFor(async () => (await scope.admin.hlen(keys.attempts("waited", 0))) === 0, 2000)).toBe(true);
      expect(await scope.admin.xlen(keys.dead("waited"))).toBe(0);
    });

    test("claimed entries waiting for a slot are not charged a run: only the one that started is marked", async () => {
      const { runtime, keys, start } = setup({ partitions: 1 });
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      const started: string[] = [];
      // one slot for every message (as a webhook's share in the dispatcher): the second waits for it
      const actor = defineActor<Msg>({
        name: "slotwait",
        keyOf: (m) => m.key,
        fairness: { groupOf: () => "one-webhook", share: 1, busyThreshold: 1 },
        async handle(m) {
          started.push(m.key);
          if (m.key === "a") await held;
        },
      });
      const stream = keys.stream("slotwait", 0);
      const a = await runtime.send(actor, { key: "a", seq: 1 });
      const b = await runtime.send(actor, { key: "b", seq: 1 });
      await scope.admin.xgroup("CREATE", stream, GROUP, "0", "MKSTREAM");
      await scope.admin.xreadgroup("GROUP", GROUP, "dead-host", "COUNT", 10, "STREAMS", stream, ">");
      start([actor]);
      expect(await waitFor(() => started.length === 1, 5000)).toBe(true);
      await sleep(200);
      // a's run is marked (a death now is charged to it); b only waits: a host killed now must not
      // charge it (413 of a takeover bench's webhook messages reached the dead letters so, each
      // "run" 8 times while queued behind their webhook's slots)
      expect(await scope.admin.hget(keys.attempts("slotwait", 0), `${a}:run`)).toBe("2");
      expect(await scope.admin.hget(keys.attempts("slotwait", 0), `${b}:run`)).toBeNull();
      release();
      expect(await waitFor(() => started.length === 2, 5000)).toBe(true);
      expect(await waitFor(async () => (await pendingCount(runtime, actor)) === 0, 2000)).toBe(true);
      expect(await waitFor(async () => (await scope.admin.hlen(keys.attempts("slotwait", 0))) === 0, 2000)).toBe(true);
    });

    test("an entry whose JSON cannot be read goes straight to the dead letters", async () => {
      const { runtime, keys, start } = setup({ partitions: 1 });
      const actor = defineActor<Msg>({ name: "garbled", keyOf: (m) => m.key, async handle() {} });
      await scope.admin.xadd(keys.stream("garbled", 0), "*", "k", "k", "m", "{not json");
      start([actor]);
      const dead = await waitFor(async () => (await scope.admin.xrange(keys.dead("garbled"), "-", "+"))[0], 5000);
      expect(dead![1]).toContain("{not json");
      expect(await waitFor(async () => (await pendingCount(runtime, actor)) === 0, 2000)).toBe(true);
    });
  });

  describe("graceful stop", () => {
    test("stop() finishes running handlers, acks them, releases leases; what it read and did not start waits for the next owner; nothing lost", async () => {
      const { runtime, keys, start } = setup({ partitions: 4 });
      let handled = 0;
      const seen = new Set<string>();
      const actor = defineActor<Msg>({
        name: "slow",
        keyOf: (m) => m.key,
        async handle(m) {
          await sleep(2);
          seen.add(`${m.key}:${m.seq}`);
          handled++;
        },
      });
      const total = 3000;
      await runtime.sendMany(actor, Array.from({ length: total }, (_, i) => ({ key: `k${i % 50}`, seq: i })));
      const first = start([actor], { batch: 100 });
      await waitFor(() => handled > 300, 5000);
      await first.stop();
      const atStop = handled;
      expect(atStop).toBeLessThan(total);
      // nothing started is left unfinished; the rest it had read (but not started) is pending
      const pending = await pendingCount(runtime, actor);
      expect((await Promise.all([0, 1, 2, 3].map((p) => scope.admin.xlen(keys.stream("slow", p))))).reduce((a, b) => a + b, 0)).toBe(total);
      expect(pending).toBeLessThanOrEqual(total - atStop);
      for (let p = 0; p < 4; p++) expect(await scope.admin.exists(keys.lease("slow", p))).toBe(0);
      expect(first.owned().get("slow")).toEqual([]);
      await sleep(50);
      expect(handled).toBe(atStop);

      // The rest is still in the streams and a new host picks it up; every message exactly once.
      start([actor]);
      await waitFor(() => handled >= total, 10_000);
      await sleep(100);
      expect(handled).toBe(total);
      expect(seen.size).toBe(total);
    });
  });

  describe("stop during a retry", () => {
    test("a message waiting to be retried stays pending with its key's later messages; the next owner runs them in order", async () => {
      const { runtime, start } = setup({ partitions: 1 });
      const log: string[] = [];
      let failFirst = true;
      const actor = defineActor<Msg>({
        name: "retry-stop",
        keyOf: (m) => m.key,
        retryDelayMs: () => 60_000,
        async handle(m, ctx) {
          if (m.key === "a" && m.seq === 1 && failFirst) throw new Error("down for now");
          log.push(`${m.key}${m.seq}@${ctx.deliveries}`);
        },
      });
      await runtime.sendMany(actor, [
        { key: "a", seq: 1 },
        { key: "a", seq: 2 },
        { key: "b", seq: 1 },
      ]);
      const first = start([actor]);
      await waitFor(() => log.includes("b1@1"), 3000);
      await sleep(50);
      const t0 = Date.now();
      await first.stop();
      expect(Date.now() - t0).toBeLessThan(2000); // the 60 s back-off does not hold up the stop
      expect(log).toEqual(["b1@1"]);
      expect(await pendingCount(runtime, actor)).toBe(2);

      failFirst = false;
      start([actor]);
      await waitFor(() => log.length === 3, 5000);
      // a2 never ran in the first host: its delivery count was given back, so this is its first delivery
      expect(log).toEqual(["b1@1", "a1@2", "a2@1"]);
      expect(await waitFor(async () => (await pendingCount(runtime, actor)) === 0, 2000)).toBe(true);
    });
  });

  describe("trimming", () => {
    test("XTRIM MINID never removes a pending entry, and trims everything acked below it", async () => {
      const { runtime, keys, start } = setup({ partitions: 1 });
      let release!: () => void;
      const blocker = new Promise<void>((r) => (release = r));
      let handled = 0;
      const actor = defineActor<Msg>({
        name: "trim",
        keyOf: (m) => m.key,
        async handle(m) {
          if (m.key === "stuck") await blocker;
          handled++;
        },
      });
      const stream = keys.stream("trim", 0);
      await runtime.sendMany(actor, Array.from({ length: 100 }, (_, i) => ({ key: `k${i}`, seq: i })));
      const stuckId = await runtime.send(actor, { key: "stuck", seq: 0 });
      await runtime.sendMany(actor, Array.from({ length: 100 }, (_, i) => ({ key: `j${i}`, seq: i })));
      const host = start([actor], { trimIntervalMs: 60_000 });
      await waitFor(() => handled === 200, 5000);
      await waitFor(async () => (await pendingCount(runtime, actor)) === 1, 2000);

      expect(await host.trimNow()).toBe(100);
      expect((await scope.admin.xrange(stream, stuckId, stuckId)).length).toBe(1);
      expect(await scope.admin.xlen(stream)).toBe(101);
      expect(await host.trimNow()).toBe(0);

      release();
      await waitFor(async () => (await pendingCount(runtime, actor)) === 0, 2000);
      // Nothing pending: the bound is the last-delivered id, which itself stays.
      expect(await host.trimNow()).toBe(100);
      expect(await scope.admin.xlen(stream)).toBe(1);
    });

    test("trimming forgets consumers of hosts that are gone (nothing pending, idle), keeps its own", async () => {
      const { runtime, keys, start } = setup({ partitions: 1 });
      const actor = defineActor<Msg>({ name: "ghosts", keyOf: (m) => m.key, async handle() {} });
      const stream = keys.stream("ghosts", 0);
      await scope.admin.xgroup("CREATE", stream, GROUP, "0", "MKSTREAM");
      await scope.admin.xgroup("CREATECONSUMER", stream, GROUP, "old-host");
      // a consumer's idle time counts from its last XREADGROUP: the host's reader re-reads every
      // 20 ms (blockMs), so the live host stays far below the 1 s bound even on a loaded machine,
      // while the old host passes it (a 100 ms bound was passed by the live host under load)
      const host = start([actor], { forgetIdleConsumersMs: 1000, blockMs: 20, trimIntervalMs: 60_000, hostId: "current-host" });
      await host.ready;
      await runtime.send(actor, { key: "k", seq: 1 });
      await waitFor(async () => (await pendingCount(runtime, actor)) === 0, 2000);
      await sleep(1100);
      await runtime.send(actor, { key: "k", seq: 2 });
      await waitFor(async () => (await pendingCount(runtime, actor)) === 0, 2000);
      await host.trimNow();
      const consumers = (await scope.admin.call("XINFO", "CONSUMERS", stream, GROUP)) as string[][];
      expect(consumers.map((c) => c[1])).toEqual(["current-host"]);
    });
  });

  describe("timers", () => {
    test("schedule with the same id replaces, cancel removes, due timers arrive in the key's stream", async () => {
      const { runtime, keys, start } = setup({ partitions: 4, timeScale: 0.1 });
      const got: string[] = [];
      const actor = defineActor<Msg & { tag: string }>({
        name: "timed",
        keyOf: (m) => m.key,
        async handle(m) {
          got.push(m.tag);
        },
      });
      const t0 = Date.now();
      await runtime.schedule(actor, "reminder", 3000, { key: "a", seq: 1, tag: "first" });
      await runtime.schedule(actor, "reminder", 2000, { key: "b", seq: 1, tag: "replaced" }); // 200 ms scaled; other partition
      await runtime.schedule(actor, "doomed", 1000, { key: "a", seq: 2, tag: "cancelled" });
      expect(await runtime.cancel(actor, "doomed")).toBe(true);
      expect(await runtime.cancel(actor, "doomed")).toBe(false);
      await runtime.schedule(actor, "real-time", 300, { key: "c", seq: 1, tag: "unscaled" }, { unscaled: true });
      let total = 0;
      for (let p = 0; p < 4; p++) total += await scope.admin.zcard(keys.timers("timed", p));
      expect(total).toBe(2);

      start([actor]);
      await waitFor(() => got.length === 2, 3000);
      expect(got).toEqual(["replaced", "unscaled"]);
      expect(Date.now() - t0).toBeGreaterThanOrEqual(290);
      await sleep(400);
      expect(got).toEqual(["replaced", "unscaled"]);
      const entries = await scope.admin.xrange(keys.stream("timed", partitionOf("b", 4)), "-", "+");
      expect(entries.some(([, f]) => f.includes("reminder") && f.includes("b"))).toBe(true);
    });

    test("ctx.schedule from a handler: the timer message runs later for the same key", async () => {
      const { runtime, start } = setup({ timeScale: 0.01 });
      const got: number[] = [];
      const actor = defineActor<Msg>({
        name: "self-timer",
        keyOf: (m) => m.key,
        async handle(m, ctx) {
          got.push(m.seq);
          if (m.seq < 3) await ctx.schedule(`next:${m.key}`, 1000, { key: m.key, seq: m.seq + 1 });
        },
      });
      await runtime.send(actor, { key: "run-1", seq: 1 });
      start([actor]);
      await waitFor(() => got.length === 3, 3000);
      expect(got).toEqual([1, 2, 3]);
    });
  });
});
