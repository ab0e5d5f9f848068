// The runtime on a real Redis Cluster while masters fail over (CLUSTER FAILOVER on their replicas)
// under a steady flow of messages: every message sent is handled, per-key order holds, timers
// scheduled before fire after, the host keeps every lease, and readers follow their slots.
import { afterAll, describe, expect, test } from "bun:test";
import { createRuntime, defineActor, runtimeKeys, type Host, type Runtime, type RuntimeLogger } from "../../runtime";
import type { RedisClient } from "../../runtime/redis-client";
import { clusterUnavailableReason, sharedRedisCluster } from "../support/redis-cluster";
import { connect, deletePrefix, randomPrefix, sleep, waitFor } from "../support/runtime-redis";

const skip = process.env.TEST_REDIS_CLUSTER === "0" ? "TEST_REDIS_CLUSTER=0" : clusterUnavailableReason();
if (skip) console.warn(`[redis-cluster] skipping runtime failover tests: ${skip}`);

interface Msg {
  key: string;
  seq: number;
}

const P = 8;
const prefix = randomPrefix("failover");
let runtime: Runtime | null = null;
let host: Host | null = null;
let admin: RedisClient | null = null;

afterAll(async () => {
  await host?.stop();
  await runtime?.close();
  if (admin) {
    await deletePrefix(admin, prefix);
    await admin.quit();
  }
});

describe.skipIf(!!skip)("runtime on a Redis Cluster during failover", () => {
  test("two masters fail over while messages flow: nothing lost, key order kept, timers fire, leases held, readers move", async () => {
    const cluster = await sharedRedisCluster();
    admin = connect(cluster.url);
    const warnings: string[] = [];
    const logger: RuntimeLogger = {
      debug() {},
      info() {},
      warn: (_o, msg) => void warnings.push(msg ?? ""),
      error: (_o, msg) => void warnings.push(msg ?? ""),
    };
    runtime = createRuntime({ redisUrl: cluster.url, prefix, partitions: P, logger });
    const handled: string[] = [];
    const rec = defineActor<Msg>({
      name: "rec",
      keyOf: (m) => m.key,
      async handle(m) {
        handled.push(`${m.key}|${m.seq}`);
      },
    });
    host = runtime.startHost({ actors: [rec], leaseMs: 3000, blockMs: 200, timerPollMs: 50, hostId: "failover-host" });
    await host.ready;
    expect(host.owned().get("rec")).toHaveLength(P);

    // Timers due after both failovers, one per partition's worth of keys.
    const timerKeys = Array.from({ length: 16 }, (_, i) => `timer-${i}`);
    await Promise.all(timerKeys.map((key) => runtime!.schedule(rec, `t:${key}`, 2500, { key, seq: -1 })));

    // A steady flow: 10 messages over 40 keys every 20 ms; a batch counts as sent once sendMany resolved.
    const sent: Msg[] = [];
    let sendFailures = 0;
    const sendErrors: string[] = [];
    let seq = 0;
    let flowing = true;
    const flow = (async () => {
      while (flowing) {
        const batch = Array.from({ length: 10 }, () => ({ key: `k${seq % 40}`, seq: seq++ }));
        try {
          await runtime!.sendMany(rec, batch);
          sent.push(...batch);
        } catch (err) {
          sendFailures++;
          sendErrors.push(String(err));
        }
        await sleep(20);
      }
    })();

    await sleep(400);
    const streamsByMaster = new Map<number, number>();
    for (let p = 0; p < P; p++) {
      const m = await cluster.masterOf(runtimeKeys(prefix).stream("rec", p));
      streamsByMaster.set(m.port, (streamsByMaster.get(m.port) ?? 0) + 1);
    }
    // The two masters holding most partitions, one after the other.
    const victims = [...streamsByMaster].sort((a, b) => b[1] - a[1]).slice(0, 2).map(([port]) => port);
    for (const port of victims) {
      await cluster.failover(port);
      await sleep(300);
    }
    await sleep(500);
    flowing = false;
    await flow;

    expect(sent.length).toBeGreaterThan(200);
    const want = new Set(sent.map((m) => `${m.key}|${m.seq}`));
    const allHandled = await waitFor(() => [...want].every((id) => handled.includes(id)), 20_000, 100);
    const missing = [...want].filter((id) => !handled.includes(id));
    expect(missing).toEqual([]);
    expect(allHandled).toBe(true);
    expect(sendErrors).toEqual([]); // the client rides out a manual failover
    expect(sendFailures).toBe(0);

    // Per key, first occurrences follow send order (redeliveries may repeat a message, never reorder).
    const firstSeen = new Map<string, number[]>();
    const seen = new Set<string>();
    for (const id of handled) {
      if (seen.has(id)) continue;
      seen.add(id);
      const [key, s] = id.split("|");
      if (Number(s) < 0) continue;
      firstSeen.set(key!, [...(firstSeen.get(key!) ?? []), Number(s)]);
    }
    for (const [, seqs] of firstSeen) expect(seqs).toEqual([...seqs].sort((a, b) => a - b));

    // Timers scheduled before the failovers fire after them.
    expect(await waitFor(() => timerKeys.every((k) => handled.includes(`${k}|-1`)), 10_000, 100)).toBe(true);

    // The host kept (or took back) every partition, and Redis says so.
    expect(host.owned().get("rec")).toHaveLength(P);
    const holders = await Promise.all(Array.from({ length: P }, (_, p) => admin!.get(runtimeKeys(prefix).lease("rec", p))));
    expect(holders.every((h) => h === "failover-host")).toBe(true);
    // Readers blocked on a master that became a replica moved to the new master.
    expect(warnings.filter((w) => /follows its slot/.test(w)).length).toBeGreaterThan(0);
    console.log(`failover: ${sent.length} sent, ${handled.length - want.size - timerKeys.length} redelivered, masters ${victims.join(", ")} failed over`);
  }, 60_000);
});
