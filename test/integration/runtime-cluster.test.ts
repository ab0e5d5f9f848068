// Runtime across real host processes (test/support/runtime-host-worker.ts) on real Redis (single and
// cluster): ordering with two hosts, kill -9 takeover, timers across a full restart, and lease rebalancing.
import { afterEach, beforeAll, afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { createRuntime, defineActor, GROUP, partitionOf, runtimeKeys } from "../../runtime";
import type { RedisClient } from "../../runtime/redis-client";
import { connect, deletePrefix, describeEachRedis, randomPrefix, sleep, waitFor } from "../support/runtime-redis";
import { PROCESS_START_MS } from "../support/spawn-ready";

const root = join(import.meta.dir, "..", "..");
const BUN = join(root, "node_modules", ".bin", "bun");
const WORKER = join(root, "test", "support", "runtime-host-worker.ts");
const P = 16;
const LEASE_MS = 1500;

interface RecMsg {
  key: string;
  seq: number;
  timerMs?: number;
}
// The same definition the worker runs; the test only sends with it.
const rec = defineActor<RecMsg>({ name: "rec", keyOf: (m) => m.key, async handle() {} });

describeEachRedis("runtime hosts", (target) => {
  let admin: RedisClient;
  let prefix: string;
  let procs: Subprocess[] = [];

  beforeAll(() => {
    admin = connect(target.url);
  });
  afterAll(async () => {
    await admin.quit();
  });
  afterEach(async () => {
    for (const proc of procs) if (proc.exitCode === null && !proc.killed) proc.kill("SIGKILL");
    await Promise.all(procs.map((p) => p.exited));
    procs = [];
    await deletePrefix(admin, prefix);
  });

  async function spawnHost(hostId: string, env: Record<string, string> = {}): Promise<Subprocess<"ignore", "pipe", "inherit">> {
    const proc = Bun.spawn([BUN, WORKER], {
      cwd: root,
      env: { ...process.env, REDIS_URL: target.url, RT_PREFIX: prefix, RT_HOST_ID: hostId, RT_LEASE_MS: String(LEASE_MS), RT_PARTITIONS: String(P), ...env },
      stdout: "pipe",
      stderr: "inherit",
    });
    procs.push(proc);
    const reader = proc.stdout.getReader();
    let out = "";
    const deadline = Date.now() + PROCESS_START_MS;
    while (!out.includes(`ready ${hostId}`)) {
      if (Date.now() > deadline) throw new Error(`host ${hostId} did not become ready: ${out}`);
      const { value, done } = await reader.read();
      if (done) throw new Error(`host ${hostId} exited before ready: ${out}`);
      out += new TextDecoder().decode(value);
    }
    reader.releaseLock();
    return proc;
  }

  /** Lease holder per partition, straight from Redis. */
  async function leaseOwners(): Promise<Map<string, number>> {
    const keys = runtimeKeys(prefix);
    const holders = await Promise.all(Array.from({ length: P }, (_, p) => admin.get(keys.lease("rec", p))));
    const counts = new Map<string, number>();
    for (const h of holders) if (h) counts.set(h, (counts.get(h) ?? 0) + 1);
    return counts;
  }

  async function split(expected: Record<string, number>, timeoutMs: number): Promise<boolean> {
    return waitFor(async () => {
      const owners = await leaseOwners();
      return Object.entries(expected).every(([h, n]) => owners.get(h) === n);
    }, timeoutMs, 50);
  }

  async function pendingTotal(): Promise<number> {
    const keys = runtimeKeys(prefix);
    let total = 0;
    for (let p = 0; p < P; p++) total += Number(((await admin.xpending(keys.stream("rec", p), GROUP).catch(() => [0])) as [number])[0]);
    return total;
  }

  interface Record_ {
    key: string;
    seq: number;
    host: string;
    deliveries: number;
  }
  async function records(): Promise<Record_[]> {
    const rows = await admin.lrange(`${prefix}:test:log`, 0, -1);
    return rows.map((r) => {
      const [key, seq, host, deliveries] = r.split("|");
      return { key: key!, seq: Number(seq), host: host!, deliveries: Number(deliveries) };
    });
  }

  async function sendWorkload(messages: number, keys: number): Promise<Map<string, number[]>> {
    const runtime = createRuntime({ redisUrl: target.url, prefix, partitions: P });
    const expected = new Map<string, number[]>();
    const msgs: RecMsg[] = [];
    for (let i = 0; i < messages; i++) {
      const key = `key-${i % keys}`;
      msgs.push({ key, seq: i });
      expected.set(key, [...(expected.get(key) ?? []), i]);
    }
    await runtime.sendMany(rec, msgs);
    await runtime.close();
    return expected;
  }

  async function terminate(proc: Subprocess) {
    proc.kill("SIGTERM");
    return proc.exited;
  }

  describe("runtime across host processes", () => {
    test("10,000 messages over 200 keys through two hosts: every message handled once, per-key order holds", async () => {
      prefix = randomPrefix("cluster");
      const a = await spawnHost("host-a");
      const b = await spawnHost("host-b");
      expect(await split({ "host-a": 8, "host-b": 8 }, 6000)).toBe(true);

      const expected = await sendWorkload(10_000, 200);
      expect(await waitFor(async () => (await admin.llen(`${prefix}:test:log`)) >= 10_000, 20_000)).toBe(true);
      expect(await waitFor(async () => (await pendingTotal()) === 0, 3000)).toBe(true);
      const rows = await records();
      expect(rows.length).toBe(10_000);

      const byKey = new Map<string, number[]>();
      for (const r of rows) byKey.set(r.key, [...(byKey.get(r.key) ?? []), r.seq]);
      expect(byKey.size).toBe(200);
      for (const [key, seqs] of expected) expect(byKey.get(key)).toEqual(seqs);
      const perHost = new Map<string, number>();
      for (const r of rows) perHost.set(r.host, (perHost.get(r.host) ?? 0) + 1);
      expect(perHost.get("host-a")).toBeGreaterThan(2000);
      expect(perHost.get("host-b")).toBeGreaterThan(2000);

      expect(await terminate(a)).toBe(0);
      expect(await terminate(b)).toBe(0);
    }, 40_000);

    test("kill -9 of one host mid-stream loses nothing: the survivor claims its pending entries", async () => {
      prefix = randomPrefix("kill");
      const env = { RT_HANDLER_DELAY_MS: "20" };
      const victim = await spawnHost("victim", env);
      const survivor = await spawnHost("survivor", env);
      expect(await split({ victim: 8, survivor: 8 }, 6000)).toBe(true);

      const expected = await sendWorkload(10_000, 200);
      await waitFor(async () => (await admin.llen(`${prefix}:test:log`)) >= 3000, 20_000, 10);
      victim.kill("SIGKILL");
      const killedAt = Date.now();
      expect(await victim.exited).not.toBe(0);
      const recordedAtKill = await admin.llen(`${prefix}:test:log`);
      expect(recordedAtKill).toBeLessThan(9000);

      // "when one dies the other takes all within the lease time" (plus one lease round).
      expect(await split({ survivor: 16 }, LEASE_MS + 2000)).toBe(true);
      const takeoverMs = Date.now() - killedAt;
      expect(takeoverMs).toBeLessThan(LEASE_MS + 2000);

      const everything = await waitFor(async () => {
        const seen = new Set((await records()).map((r) => `${r.key}|${r.seq}`));
        return seen.size === 10_000;
      }, 30_000, 100);
      expect(everything).toBe(true);
      expect(await waitFor(async () => (await pendingTotal()) === 0, 3000)).toBe(true);

      const rows = await records();
      const firstBy = new Map<string, Record_>();
      const duplicates: Record_[] = [];
      for (const r of rows) {
        const id = `${r.key}|${r.seq}`;
        if (firstBy.has(id)) duplicates.push(r);
        else firstBy.set(id, r);
      }
      // Duplicates are only the victim's in-flight messages, redelivered (deliveries 2) to the survivor.
      for (const d of duplicates) {
        expect(firstBy.get(`${d.key}|${d.seq}`)!.host).toBe("victim");
        expect(d.host).toBe("survivor");
        expect(d.deliveries).toBeGreaterThanOrEqual(2);
      }
      expect(duplicates.length).toBeLessThanOrEqual(2000); // the victim's maxInFlight
      // The victim's read-but-unacked entries were claimed and redelivered, not just newer ones read.
      expect(rows.some((r) => r.host === "survivor" && r.deliveries >= 2)).toBe(true);
      console.log(`kill -9: ${recordedAtKill} recorded at kill, takeover after ${takeoverMs} ms, ${duplicates.length} duplicates`);

      // Per-key order: first occurrences follow stream order, and each host saw each key in order.
      for (const [key, seqs] of expected) {
        const forKey = rows.filter((r) => r.key === key);
        const firsts = forKey.filter((r) => firstBy.get(`${r.key}|${r.seq}`) === r).map((r) => r.seq);
        expect(firsts).toEqual(seqs);
        for (const host of ["victim", "survivor"]) {
          const mine = forKey.filter((r) => r.host === host).map((r) => r.seq);
          expect(mine).toEqual([...mine].sort((x, y) => x - y));
        }
      }
      expect(await terminate(survivor)).toBe(0);
    }, 60_000);

    test("a timer scheduled before every process stops fires after they restart", async () => {
      prefix = randomPrefix("timer");
      const keys = runtimeKeys(prefix);
      const first = await spawnHost("before");
      const runtime = createRuntime({ redisUrl: target.url, prefix, partitions: P });
      // The handler of seq 0 schedules seq 1 for 1.5 s later with ctx.schedule.
      await runtime.send(rec, { key: "timer-key", seq: 0, timerMs: 1500 });
      await runtime.close();
      expect(await waitFor(async () => (await records()).some((r) => r.seq === 0), 5000)).toBe(true);
      const scheduledAt = Date.now();
      expect(await terminate(first)).toBe(0);
      expect(await admin.zscore(keys.timers("rec", partitionOf("timer-key", P)), "timer:timer-key")).not.toBeNull();

      // Nobody is running when it falls due.
      await sleep(Math.max(0, scheduledAt + 1800 - Date.now()));
      expect((await records()).some((r) => r.seq === 1)).toBe(false);

      const second = await spawnHost("after");
      expect(await waitFor(async () => (await records()).find((r) => r.seq === 1), 5000)).toMatchObject({ key: "timer-key", seq: 1, host: "after" });
      expect(await terminate(second)).toBe(0);
    }, 30_000);

    test("two hosts split 16 partitions 8/8 and the survivor takes all 16 when one stops", async () => {
      prefix = randomPrefix("balance");
      const a = await spawnHost("host-a");
      expect(await split({ "host-a": 16 }, 3000)).toBe(true);
      const b = await spawnHost("host-b");
      expect(await split({ "host-a": 8, "host-b": 8 }, 6000)).toBe(true);
      // Stable: nothing moves once balanced.
      await sleep(LEASE_MS);
      expect(await split({ "host-a": 8, "host-b": 8 }, 0)).toBe(true);

      const stoppedAt = Date.now();
      expect(await terminate(a)).toBe(0);
      // A graceful stop releases its leases, so this is quicker than a lease expiry.
      expect(await split({ "host-b": 16 }, LEASE_MS + 1000)).toBe(true);
      expect(Date.now() - stoppedAt).toBeLessThan(LEASE_MS + 1000);
      expect(await admin.zrange(runtimeKeys(prefix).hosts("rec"), "0", "-1")).toEqual(["host-b"]);
      expect(await terminate(b)).toBe(0);
    }, 30_000);
  });
});
