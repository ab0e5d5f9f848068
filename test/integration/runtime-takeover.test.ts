// Takeover in seconds (runtime/host-identity.ts, runtime/host-leases.ts): a host process of this
// machine killed with kill -9 has its partitions taken by a restarted or live host at once, long before
// its 10 s lease expires; a holder that may be alive (another machine, a live pid) keeps its lease.
import { afterAll, afterEach, expect, test } from "bun:test";
import { join } from "node:path";
import { hostname } from "node:os";
import { readlinkSync } from "node:fs";
import type { Subprocess } from "bun";
import { createLease, createRuntime, defineActor, runtimeKeys, type Host } from "../../runtime";
import { connect, deletePrefix, randomPrefix, waitFor } from "../support/runtime-redis";
import { PROCESS_START_MS } from "../support/spawn-ready";

const root = join(import.meta.dir, "..", "..");
const BUN = join(root, "node_modules", ".bin", "bun");
const WORKER = join(root, "test", "support", "runtime-host-worker.ts");
const P = 8;
const LEASE_MS = 10_000;
const prefix = randomPrefix("takeover");
const keys = runtimeKeys(prefix);
const redis = connect();
const runtime = createRuntime({ redis, prefix, partitions: P });
const ran: string[] = [];
const rec = defineActor<{ key: string; seq: number }>({
  name: "rec",
  keyOf: (m) => m.key,
  async handle(m) {
    ran.push(`${m.key}|${m.seq}`);
  },
});
let procs: Subprocess[] = [];
let hosts: Host[] = [];
const ns = /\[(\d+)\]/.exec(readlinkSync("/proc/self/ns/pid"))![1];

afterEach(async () => {
  await Promise.all(hosts.map((h) => h.stop()));
  hosts = [];
  for (const proc of procs) if (proc.exitCode === null && !proc.killed) proc.kill("SIGKILL");
  await Promise.all(procs.map((p) => p.exited));
  procs = [];
  await deletePrefix(redis, prefix);
  ran.length = 0;
});
afterAll(async () => {
  await runtime.close();
  await redis.quit();
});

async function spawnWorker(): Promise<Subprocess<"ignore", "pipe", "inherit">> {
  const proc = Bun.spawn([BUN, WORKER], {
    cwd: root,
    env: { ...process.env, RT_PREFIX: prefix, RT_HOST_ID: "auto", RT_LEASE_MS: String(LEASE_MS), RT_PARTITIONS: String(P) },
    stdout: "pipe",
    stderr: "inherit",
  });
  procs.push(proc);
  const reader = proc.stdout.getReader();
  let out = "";
  const deadline = Date.now() + PROCESS_START_MS;
  while (!out.includes("ready")) {
    if (Date.now() > deadline) throw new Error(`worker did not become ready: ${out}`);
    const { value, done } = await reader.read();
    if (done) throw new Error(`worker exited before ready: ${out}`);
    out += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return proc;
}

async function holders(): Promise<(string | null)[]> {
  return Promise.all(Array.from({ length: P }, (_, p) => redis.get(keys.lease("rec", p))));
}

function startHost(): Host {
  const h = runtime.startHost({ actors: [rec], leaseMs: LEASE_MS, blockMs: 200 });
  hosts.push(h);
  return h;
}

test("a restarted host takes a killed host's partitions at once (not after its 10 s lease) and runs what it left", async () => {
  const worker = await spawnWorker();
  await waitFor(async () => (await holders()).every((h) => h?.includes(`-${worker.pid}-`)), 10_000);
  worker.kill("SIGKILL");
  await worker.exited;
  await runtime.sendMany(rec, Array.from({ length: 20 }, (_, i) => ({ key: `k${i}`, seq: i })));
  const t0 = performance.now();
  const host = startHost();
  await host.ready;
  const ownedAll = await waitFor(() => (host.owned().get("rec")?.length ?? 0) === P, 8_000, 20);
  const tookMs = performance.now() - t0;
  expect(ownedAll).toBe(true);
  expect(tookMs).toBeLessThan(LEASE_MS / 2);
  expect((await holders()).every((h) => h === host.id)).toBe(true);
  await waitFor(() => ran.length >= 20, 10_000);
  expect(ran.length).toBe(20);
});

test("a live host of the same machine takes a killed peer's partitions within seconds", async () => {
  const host = startHost();
  await host.ready;
  const worker = await spawnWorker();
  // the live host gives back half at its next round; the worker takes them
  await waitFor(async () => (await holders()).some((h) => h?.includes(`-${worker.pid}-`)), 15_000);
  worker.kill("SIGKILL");
  await worker.exited;
  const t0 = performance.now();
  const ownedAll = await waitFor(() => (host.owned().get("rec")?.length ?? 0) === P, 8_000, 20);
  expect(ownedAll).toBe(true);
  expect(performance.now() - t0).toBeLessThan(LEASE_MS / 2);
});

test("a lease whose holder may be alive (another machine, or a live pid here) is left until it expires", async () => {
  const sleeper = Bun.spawn(["sleep", "30"]);
  procs.push(sleeper);
  // partition 0: a holder on another machine; partition 1: a live process of this machine
  await redis.set(keys.lease("rec", 0), `elsewhere-4242-abc123@${ns}`, "PX", LEASE_MS);
  await redis.set(keys.lease("rec", 1), `${hostname()}-${sleeper.pid}-abc123@${ns}`, "PX", LEASE_MS);
  const host = startHost();
  await host.ready;
  await Bun.sleep(1500);
  const owned = host.owned().get("rec") ?? [];
  expect(owned).not.toContain(0);
  expect(owned).not.toContain(1);
  expect(owned.length).toBe(P - 2);
  expect(await redis.get(keys.lease("rec", 0))).toBe(`elsewhere-4242-abc123@${ns}`);
});

test("a job's named lease (reconciler, repair scans) is taken at once from a dead holder of this machine, never from a live one", async () => {
  const gone = Bun.spawn(["true"]);
  await gone.exited;
  const sleeper = Bun.spawn(["sleep", "30"]);
  procs.push(sleeper);
  const dead = `${hostname()}-${gone.pid}-abc123@${ns}`;
  const alive = `${hostname()}-${sleeper.pid}-abc123@${ns}`;
  await redis.set(keys.namedLease("job-a"), dead, "PX", 30_000);
  await redis.set(keys.namedLease("job-b"), alive, "PX", 30_000);
  const a = createLease(runtime, "job-a", { ttlMs: 30_000, takeFromDead: true });
  const b = createLease(runtime, "job-b", { ttlMs: 30_000, takeFromDead: true });
  // a lease that marks work done (no takeFromDead) keeps the old rule: only after its ttl
  const c = createLease(runtime, "job-a", { ttlMs: 30_000 });
  expect(await a.hold()).toBe(true);
  expect(await redis.get(keys.namedLease("job-a"))).toBe(a.holder);
  expect(await b.hold()).toBe(false);
  expect(await redis.get(keys.namedLease("job-b"))).toBe(alive);
  expect(await c.hold()).toBe(false);
  // the holder's own id is a host id: a restarted process could prove it dead in turn
  expect(a.holder).toContain(`-${process.pid}-`);
  await a.release();
  expect(await redis.get(keys.namedLease("job-a"))).toBeNull();
});
