// The runtime cannot stall silently: a handler past its deadline gives its key and slot back, a
// reader whose connection stops answering is restarted by the watchdog, and a group stuck at its
// share is deferred so other groups' messages are still read. Real Redis, a freezing TCP proxy.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import type Redis from "ioredis";
import { createRuntime, defineActor, type Actor, type Host, type RuntimeLogger } from "../../runtime";
import { startRedisProxy, type RedisProxy } from "../support/redis-proxy";
import { REDIS_URL, connect, deletePrefix, randomPrefix, sleep, waitFor } from "../support/runtime-redis";

let admin: Redis;
const cleanups: Array<() => Promise<unknown>> = [];

beforeAll(() => {
  admin = connect();
});
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!().catch(() => {});
});
afterAll(async () => {
  await admin.quit();
});

interface Line {
  level: string;
  obj: Record<string, any>;
  msg?: string;
}

function capturingLogger(): { lines: Line[]; logger: RuntimeLogger } {
  const lines: Line[] = [];
  const make = (bindings: Record<string, unknown>): RuntimeLogger => {
    const at = (level: string) => (obj: unknown, msg?: string) => void lines.push({ level, obj: { ...bindings, ...(obj as object) }, msg });
    return { info: at("info"), warn: at("warn"), error: at("error"), debug: at("debug"), child: (b) => make({ ...bindings, ...b }) };
  };
  return { lines, logger: make({}) };
}

function setup(opts: { redisUrl?: string; partitions?: number } = {}) {
  const prefix = randomPrefix("live");
  const { lines, logger } = capturingLogger();
  const runtime = createRuntime({ redisUrl: opts.redisUrl ?? REDIS_URL, prefix, timeScale: 0.01, partitions: opts.partitions ?? 1, logger });
  const hosts: Host[] = [];
  cleanups.push(async () => {
    await Promise.all(hosts.map((h) => h.stop()));
    await runtime.close();
    await deletePrefix(admin, prefix);
  });
  const start = (actors: Actor<any>[], extra: Record<string, unknown> = {}) => {
    const host = runtime.startHost({ actors, leaseMs: 1500, timerPollMs: 20, blockMs: 100, ...extra });
    hosts.push(host);
    return host;
  };
  return { prefix, runtime, lines, start };
}

interface Msg {
  key: string;
  seq: number;
  g?: string;
}

describe("handler deadline", () => {
  test("a run that never settles gives its key and slot back at the deadline, is logged with its message id, retried, and does not hold up stop()", async () => {
    const { runtime, lines, start } = setup();
    const log: string[] = [];
    let hungSignal: AbortSignal | null = null;
    const actor = defineActor<Msg>({
      name: "hangs-once",
      keyOf: (m) => m.key,
      deadlineMs: 200,
      async handle(m, ctx) {
        if (m.seq === 1 && ctx.deliveries === 1) {
          hungSignal = ctx.signal;
          return new Promise<void>(() => {}); // never settles
        }
        log.push(`${m.key}${m.seq}@${ctx.deliveries}`);
      },
    });
    const [first] = await runtime.sendMany(actor, [
      { key: "k", seq: 1 },
      { key: "k", seq: 2 },
    ]);
    const host = start([actor], { concurrency: 1 });
    expect(await waitFor(() => log.length === 2, 5000)).toBe(true);
    expect(log).toEqual(["k1@2", "k2@1"]);
    expect(hungSignal!.aborted).toBe(true);
    const line = lines.find((l) => l.level === "error" && /deadline/.test(l.msg ?? ""));
    expect(line?.obj).toMatchObject({ actor: "hangs-once", key: "k", messageId: first, deadlineMs: 200 });
    expect(host.stats().deadlineMisses).toBe(1);
    const t0 = performance.now();
    await host.stop();
    expect(performance.now() - t0).toBeLessThan(2000);
  });
});

describe("stall watchdog", () => {
  let proxy: RedisProxy;
  beforeAll(async () => {
    proxy = await startRedisProxy();
  });
  afterAll(async () => {
    await proxy.stop();
  });

  test("a reader whose XREADGROUP never returns is logged with its partition's numbers and restarted; later messages are handled", async () => {
    const { runtime, lines, start } = setup({ redisUrl: proxy.url });
    const handled: number[] = [];
    const actor = defineActor<Msg>({ name: "frozen-reader", keyOf: (m) => m.key, async handle(m) {
      handled.push(m.seq);
    } });
    const host = start([actor], { readerStallMs: 600, watchdogMs: 100 });
    await host.ready;
    await runtime.send(actor, { key: "a", seq: 1 });
    expect(await waitFor(() => handled.includes(1), 3000)).toBe(true);
    proxy.freezeOn("XREADGROUP", 1); // the reader's next read goes into a black hole
    expect(await waitFor(() => proxy.frozen === 1, 3000)).toBe(true);
    await runtime.send(actor, { key: "a", seq: 2 });
    expect(await waitFor(() => handled.includes(2), 5000)).toBe(true);
    const stalled = lines.find((l) => /partition reader stalled/.test(l.msg ?? ""));
    expect(stalled?.level).toBe("error"); // it had work waiting
    expect(stalled?.obj).toMatchObject({ actor: "frozen-reader", partition: 0, inRead: true });
    expect(stalled!.obj.lag).toBeGreaterThanOrEqual(1);
    expect(host.stats().readerRestarts).toBeGreaterThanOrEqual(1);
  });
});

describe("fair shedding", () => {
  test("while readers wait for capacity, a group stuck at its share is deferred and another group's message is read and handled; nothing is lost or run twice", async () => {
    const { runtime, start } = setup();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const runs = new Map<string, number>();
    const actor = defineActor<Msg>({
      name: "fair",
      keyOf: (m) => m.key,
      fairness: { groupOf: (m) => m.g!, share: 1, busyThreshold: 1 },
      async handle(m) {
        if (m.g === "A") await gate; // A's provider hangs
        runs.set(m.key, (runs.get(m.key) ?? 0) + 1);
      },
    });
    await runtime.sendMany(actor, Array.from({ length: 20 }, (_, i) => ({ key: `a${i}`, seq: i, g: "A" })));
    await runtime.send(actor, { key: "b0", seq: 0, g: "B" });
    const host = start([actor], { concurrency: 2, maxInFlight: 6, batch: 10, shedAfterMs: 300, watchdogMs: 50 });
    expect(await waitFor(() => runs.get("b0") === 1, 10_000)).toBe(true);
    expect(host.stats().deferred).toBeGreaterThan(0);
    expect([...runs.keys()].filter((k) => k.startsWith("a"))).toHaveLength(0); // A still hangs
    release();
    expect(await waitFor(() => [...runs.keys()].filter((k) => k.startsWith("a")).length === 20, 20_000)).toBe(true);
    await sleep(200);
    expect([...runs.values()].every((n) => n === 1)).toBe(true);
  }, 30_000);
});
