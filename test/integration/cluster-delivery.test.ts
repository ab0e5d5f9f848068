// The whole service on a real Redis Cluster (test/support/service-process-main.ts: an API process and
// a channel sender + reconciler process): accept -> delivered, idempotency and rate limits, the inbox stream
// through sharded pub/sub, and a manual failover plus a kill -9 of a master (losing what its replica had
// not copied and the stopped sender had not read) while notifications flow: the reconciler repairs from PostgreSQL.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { runtimeKeys } from "../../runtime";
import type { RedisClient } from "../../runtime/redis-client";
import { sql } from "../../store/db";
import { createTenant } from "../support/fixtures";
import { clusterUnavailableReason, sharedRedisCluster, type LocalRedisCluster } from "../support/redis-cluster";
import { connect, deletePrefix, randomPrefix, sleep, waitFor } from "../support/runtime-redis";
import { PROCESS_START_MS, stopChild } from "../support/spawn-ready";
import { waitForStatus } from "./delivery-support";

const root = join(import.meta.dir, "..", "..");
const skip = process.env.TEST_REDIS_CLUSTER === "0" ? "TEST_REDIS_CLUSTER=0" : clusterUnavailableReason();
if (skip) console.warn(`[redis-cluster] skipping service-on-cluster tests: ${skip}`);

const HOST_ID = "cluster-svc";
const PARTITIONS = 16;
let cluster: LocalRedisCluster;
let admin: RedisClient;
let base = "";
let tenant: Awaited<ReturnType<typeof createTenant>>;
const prefix = randomPrefix("svc");
const logLines: any[] = [];
const children: ChildProcess[] = [];
let actors: ChildProcess;

/** Starts a service process (SVC_ONLY api or actors) on the cluster; resolves to its HTTP port (0 for actors). */
async function startService(only: "api" | "actors"): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(join(root, "node_modules", ".bin", "bun"), [join(root, "test/support/service-process-main.ts")], {
    cwd: root,
    env: {
      ...process.env,
      REDIS_URL: cluster.url,
      REDIS_PREFIX: prefix,
      PARTITIONS: String(PARTITIONS),
      TIME_SCALE: "0.01",
      LOG_LEVEL: "info",
      PORT: "0",
      SVC_ONLY: only,
      SVC_TENANT_ID: tenant.tenant.id,
      SVC_HOST_ID: HOST_ID,
      SVC_RECONCILE_EVERY_MS: "500",
      // the staleness window is the default 60 s: only the failover watch (runtime/failover-watch.ts) can
      // re-enqueue what a killed master lost before the test gives up waiting (40 s)
      SVC_STALE_AFTER_MS: "60000",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let out = "";
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${only} process did not start:\n${out.slice(-3000)}`)), PROCESS_START_MS);
    let buf = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      buf += chunk.toString();
      let nl;
      while ((nl = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        out += line + "\n";
        const m = /^listening (\d+)/.exec(line);
        if (m) {
          clearTimeout(timer);
          resolve(Number(m[1]));
        } else if (line.startsWith("{")) {
          try {
            logLines.push(JSON.parse(line));
          } catch {
            /* not a log line */
          }
        }
      }
    });
    child.stderr!.on("data", (c: Buffer) => (out += c.toString()));
    child.once("exit", (code) => reject(new Error(`${only} process exited ${code}:\n${out.slice(-3000)}`)));
  });
  return { child, port };
}

async function post(path: string, body: unknown, key: string, headers: Record<string, string> = {}) {
  const res = await fetch(base + path, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: (await res.json().catch(() => null)) as any };
}

beforeAll(async () => {
  if (skip) return;
  cluster = await sharedRedisCluster();
  admin = connect(cluster.url);
  tenant = await createTenant();
  const [api, worker] = await Promise.all([startService("api"), startService("actors")]);
  base = `http://127.0.0.1:${api.port}`;
  actors = worker.child;
}, 60_000);

afterAll(async () => {
  for (const child of children) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    child.kill("SIGCONT"); // a test may have left it stopped
    await stopChild(child);
  }
  if (admin) {
    await deletePrefix(admin, prefix);
    await admin.quit();
  }
});

describe.skipIf(!!skip)("the service on a Redis Cluster", () => {
  test("accept -> delivered through the channel sender; idempotency replays, rate-limit headers and /health come from the cluster", async () => {
    const body = { channel: "sms", to: "+5511900000001", data: { content: "hello cluster" } };
    const first = await post("/v1/notifications", body, tenant.sandboxKey, { "idempotency-key": "cluster-1" });
    expect(first.status).toBe(202);
    const limit = Number(first.headers.get("x-ratelimit-limit"));
    expect(limit).toBeGreaterThan(0);
    expect(Number(first.headers.get("x-ratelimit-remaining"))).toBe(limit - 1);
    const again = await post("/v1/notifications", body, tenant.sandboxKey, { "idempotency-key": "cluster-1" });
    expect(again.status).toBe(202);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body.data.id).toBe(first.body.data.id);

    const row = await waitForStatus(first.body.data.id, ["delivered", "failed"], 15_000);
    expect(row!.status).toBe("delivered");
    // /health pings every master of the cluster
    const health = await fetch(`${base}/health`);
    expect(health.status).toBe(200);
    expect(((await health.json()) as any).checks.redis.status).toBe("ok");
    // the message went through the cluster: its partition stream lives there
    const streams = await Promise.all(Array.from({ length: PARTITIONS }, (_, p) => admin.xlen(runtimeKeys(prefix).stream("channel-sender", p))));
    expect(streams.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(1);
  }, 30_000);

  test("an in-app notification reaches a live inbox stream through sharded pub/sub", async () => {
    const external = `cl-${crypto.randomUUID().slice(0, 8)}`;
    const sub = await post("/v1/subscribers", { external_id: external }, tenant.secretKey);
    expect(sub.status).toBe(201);
    const abort = new AbortController();
    const res = await fetch(`${base}/v1/subscribers/${sub.body.data.id}/notifications/stream`, {
      headers: { authorization: `Bearer ${tenant.secretKey}` },
      signal: abort.signal,
    });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    let text = "";
    const received = (async () => {
      while (!text.includes("event: inbox.notification.received")) {
        const { value, done } = await reader.read();
        if (done) break;
        text += new TextDecoder().decode(value);
      }
      return text;
    })();
    // the stream subscribed before answering 200; an item now is pushed live
    const sent = await post("/v1/notifications", { channel: "in_app", to: external, data: { title: "Hi", body: "from the cluster" } }, tenant.secretKey);
    expect(sent.status).toBe(202);
    const got = await Promise.race([received, sleep(15_000).then(() => "timeout")]);
    // sharded: while the stream is open its channel has one shard subscriber and no plain one
    const channel = `${prefix}:inbox:${tenant.tenant.id}:production:${sub.body.data.id}`;
    const count = (kind: string) => cluster.ports.reduce((n, port) => n + Number(cluster.cli(port, "PUBSUB", kind, channel).trim().split("\n")[1] ?? 0), 0);
    const shard = count("SHARDNUMSUB"); // over every node: PUBSUB answers for the node it runs on
    const plain = count("NUMSUB");
    abort.abort();
    expect(got).toContain("event: inbox.notification.received");
    expect(got).toContain("from the cluster");
    expect(shard).toBe(1);
    expect(plain).toBe(0);
  }, 30_000);

  test("a manual failover, then a kill -9 of a master whose replica lags while the sender is behind: every accepted notification is delivered, once", async () => {
    const accepted: string[] = [];
    let refused = 0;
    let n = 0;
    let flowing = true;
    const flow = (async () => {
      while (flowing) {
        const batch = await Promise.all(
          Array.from({ length: 10 }, () =>
            post("/v1/notifications", { channel: "sms", to: `+55119${String(10_000_000 + n++).padStart(8, "0")}`, data: { content: "x" } }, tenant.sandboxKey).catch(
              () => ({ status: 0, body: null }),
            ),
          ),
        );
        for (const r of batch) {
          if (r.status === 202) accepted.push(r.body.data.id);
          else refused++;
        }
        await sleep(50);
      }
    })();

    const keys = runtimeKeys(prefix);
    const byMaster = new Map<number, number>();
    for (let p = 0; p < PARTITIONS; p++) {
      const m = await cluster.masterOf(keys.stream("channel-sender", p));
      byMaster.set(m.port, (byMaster.get(m.port) ?? 0) + 1);
    }
    const [first, second] = [...byMaster].sort((a, b) => b[1] - a[1]).map(([port]) => port);
    await sleep(500);
    await cluster.failover(first!); // graceful: the replica catches up first
    await sleep(500);
    const killed = (await cluster.nodes()).find((x) => x.port === second)!;
    // The sender falls behind (stopped), and the second master dies abruptly with its replica 800 ms
    // behind: what was enqueued in that time and not yet read exists only in PostgreSQL.
    actors.kill("SIGSTOP");
    await cluster.killWithLoss(second!, 800);
    const killedAt = Date.now();
    actors.kill("SIGCONT");
    // its replica is promoted once the others agree it failed (cluster-node-timeout, then an election)
    const replaced = await waitFor(async () => (await cluster.nodes()).some((x) => x.role === "master" && x.alive && x.port !== second && x.slots.some(([a]) => a === killed.slots[0]![0])), 20_000, 100);
    expect(replaced).toBe(true);
    const failoverMs = Date.now() - killedAt;
    await sleep(1000);
    // the flow goes on to its count: on a loaded machine the steps above passed with only 70 accepted
    await waitFor(() => accepted.length > 100, 30_000, 100);
    flowing = false;
    await flow;
    await cluster.restart(second!); // it rejoins as a replica of its replacement
    await cluster.waitHealthy(30_000);

    expect(refused).toBe(0); // accepting never waits on Redis: PostgreSQL commits, the enqueue follows
    expect(accepted.length).toBeGreaterThan(100);
    const deliveredAll = await waitFor(async () => {
      const [{ count }] = await sql<{ count: number }[]>`select count(*)::int as count from notifications where id = any(${accepted}::uuid[]) and status = 'delivered'`;
      return count === accepted.length;
    }, 40_000, 250);
    const [{ count: delivered }] = await sql<{ count: number }[]>`select count(*)::int as count from notifications where id = any(${accepted}::uuid[]) and status = 'delivered'`;
    expect(delivered).toBe(accepted.length);
    expect(deliveredAll).toBe(true);
    // once: no notification reached the provider twice
    const twice = await sql`
      select notification_id from notification_attempts where notification_id = any(${accepted}::uuid[]) and status = 'success'
      group by notification_id having count(*) > 1`;
    expect(twice.length).toBe(0);
    // the sender host holds every partition again
    const holders = await Promise.all(Array.from({ length: PARTITIONS }, (_, p) => admin.get(keys.lease("channel-sender", p))));
    expect(await waitFor(async () => {
      const h = await Promise.all(Array.from({ length: PARTITIONS }, (_, p) => admin.get(keys.lease("channel-sender", p))));
      return h.every((x) => x === HOST_ID);
    }, 10_000, 200)).toBe(true);
    expect(children.every((c) => c.exitCode === null)).toBe(true);
    // the messages lost with the master were re-enqueued from PostgreSQL
    const repaired = logLines.filter((l) => l.msg === "reconciler re-enqueued pending notifications").reduce((sum, l) => sum + (l.requeued ?? 0), 0);
    expect(repaired).toBeGreaterThan(0);
    // found by the failover watch (the staleness window is 60 s here): the re-enqueue after the kill
    expect(logLines.some((l) => l.msg === "Redis may have lost acknowledged writes; repairing recent work now")).toBe(true);
    const afterKill = logLines.filter((l) => l.msg === "reconciler re-enqueued work Redis lost (failover)" && l.time >= killedAt);
    expect(afterKill.length).toBeGreaterThan(0);
    console.log(
      `cluster failover: ${accepted.length} accepted and delivered, ${repaired} re-enqueued by the reconciler, ` +
        `replica of the killed master promoted after ${failoverMs} ms, lost work re-enqueued ${afterKill[0].time - killedAt} ms after the kill ` +
        `(${afterKill.reduce((n, l) => n + (l.requeued ?? 0), 0)} messages), leases before the end ${holders.filter((h) => h === HOST_ID).length}/${PARTITIONS}`,
    );
  }, 90_000);
});
