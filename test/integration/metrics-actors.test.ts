// Actor metrics: the per-partition gauges read on scrape for the partitions a host owns (stream
// length, pending, oldest pending age, lag, timers, dead letters), and a channel-sender process's
// own /metrics listener (METRICS_PORT, METRICS_TOKEN) whose counters move when it handles a message.
import { afterAll, describe, expect, test } from "bun:test";
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { runtimeObserver } from "../../basics/metrics";
import { config } from "../../config";
import { createRuntime, defineActor } from "../../runtime";
import { collectMetrics, watchHost } from "../../store/metrics";
import { call, createTenant } from "../support/fixtures";
import { parseExposition } from "../support/prom-text";
import { REDIS_URL, connect, deletePrefix, randomPrefix, sleep, waitFor } from "../support/runtime-redis";
import { PROCESS_START_MS, stopChild } from "../support/spawn-ready";
import { waitForStatus } from "./delivery-support";

const root = join(import.meta.dir, "..", "..");
const children: ChildProcess[] = [];
afterAll(async () => {
  // every process is gone before the file ends: a live channel sender would take the next files' messages
  await Promise.all(children.map((c) => stopChild(c)));
});

async function scrapeLocal() {
  return parseExposition((await collectMetrics()).text);
}

describe("partition gauges of a watched host", () => {
  test("stream length, pending, oldest pending age, lag, timers and dead letters of owned partitions; counters after the run", async () => {
    const prefix = randomPrefix("metrics");
    const runtime = createRuntime({ redisUrl: REDIS_URL, prefix, partitions: 2, observer: runtimeObserver });
    const admin = connect();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let started = 0;
    let handled = 0;
    const actor = defineActor<{ key: string; n: number }>({
      name: "metered",
      keyOf: (m) => m.key,
      async handle() {
        started++;
        await gate;
        handled++;
      },
    });
    const labels = { actor: "metered", partition: String(runtime.partitionFor(actor, { key: "k", n: 0 })) };
    const other = { actor: "metered", partition: String(1 - Number(labels.partition)) };
    const before = await scrapeLocal();
    for (let n = 0; n < 3; n++) await runtime.send(actor, { key: "k", n });
    await runtime.schedule(actor, "later", 3_600_000, { key: "elsewhere", n: 9 });
    const timerPartition = String(runtime.partitionFor(actor, { key: "elsewhere", n: 9 }));
    await admin.xadd(runtime.keys.dead("metered"), "*", "actor", "metered", "id", "0-1", "k", "k", "m", "{}", "error", "x", "deliveries", "5");
    // one message in flight at a time: the other two stay unread (lag) while the first is held
    const host = runtime.startHost({ actors: [actor], leaseMs: 1500, batch: 1, maxInFlight: 1 });
    await host.ready;
    const unwatch = watchHost(host, runtime);
    try {
      expect(await waitFor(() => started === 1, 5000)).toBe(true);
      await sleep(300);
      const held = await scrapeLocal();
      expect(held.value("nms_actor_partitions_owned", { actor: "metered" })).toBe(2);
      expect(held.value("nms_actor_stream_length", labels)).toBe(3);
      expect(held.value("nms_actor_pending_messages", labels)).toBe(1);
      expect(held.value("nms_actor_consumer_lag", labels)).toBe(2);
      expect(held.value("nms_actor_oldest_pending_age_seconds", labels)).toBeGreaterThanOrEqual(0.25);
      expect(held.value("nms_actor_pending_messages", other)).toBe(0);
      expect(held.value("nms_actor_timers_pending", { actor: "metered", partition: timerPartition })).toBe(1);
      expect(held.value("nms_actor_dead_letters", { actor: "metered" })).toBe(1);
      expect(held.value("nms_actor_host_in_flight")).toBeGreaterThanOrEqual(1);

      release();
      expect(await waitFor(() => handled === 3, 5000)).toBe(true);
      // acks go out on the next tick: poll (bounded) until they have, rather than sleep a guess
      await waitFor(async () => (await scrapeLocal()).value("nms_actor_pending_messages", labels) === 0, 5000);
      const done = await scrapeLocal();
      const ok = { actor: "metered", outcome: "ok" };
      expect(done.value("nms_actor_handler_outcomes_total", ok) - before.value("nms_actor_handler_outcomes_total", ok)).toBe(3);
      expect(done.value("nms_actor_handler_duration_seconds_count", ok) - before.value("nms_actor_handler_duration_seconds_count", ok)).toBe(3);
      expect(done.value("nms_actor_pending_messages", labels)).toBe(0);
      expect(done.value("nms_actor_consumer_lag", labels)).toBe(0);
      expect(done.value("nms_actor_oldest_pending_age_seconds", labels)).toBe(0);
    } finally {
      unwatch();
      await host.stop();
      await runtime.close();
      await deletePrefix(admin, prefix);
      await admin.quit();
    }
    // a stopped, unwatched host's partitions leave the exposition instead of freezing there
    const after = await scrapeLocal();
    expect(after.find("nms_actor_stream_length", { actor: "metered" })).toEqual([]);
  });
});

/** `bun scripts/start.ts [--only <kind>]` with env; resolves with the metrics URL once it is ready. */
async function startKind(kind: string | null, env: Record<string, string>, urlLine = /Metrics: (\S+)/) {
  const child = spawn(join(root, "node_modules", ".bin", "bun"), ["scripts/start.ts", ...(kind ? ["--only", kind] : [])], {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let output = "";
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${kind} did not start:\n${output}`)), PROCESS_START_MS);
    child.stdout!.on("data", (c: Buffer) => {
      output += c.toString();
      const m = urlLine.exec(output);
      if (m && output.includes("ready:")) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.stderr!.on("data", (c: Buffer) => (output += c.toString()));
    child.once("exit", (code) => reject(new Error(`${kind} exited ${code}:\n${output}`)));
  });
  return { child, url };
}

describe("an actor process's own /metrics listener", () => {
  test("a channel-sender process serves /metrics on METRICS_PORT behind METRICS_TOKEN; a handled message moves its counters", async () => {
    const token = "metrics-token-for-this-test";
    // the sender reads this run's prefix, where app.handle enqueues
    const { child, url } = await startKind("channel-sender", { METRICS_PORT: "0", METRICS_TOKEN: token, REDIS_PREFIX: config.redisPrefix });
    const scrape = async () => {
      const r = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
      expect(r.status).toBe(200);
      return parseExposition(await r.text());
    };
    const refused = await fetch(url);
    expect(refused.status).toBe(401);
    expect(await refused.json()).toEqual({ error: { code: "invalid_metrics_token", message: expect.any(String) } });
    const elsewhere = await fetch(url.replace(/\/metrics$/, "/health"));
    expect(elsewhere.status).toBe(404);
    expect((await elsewhere.json()).error.code).toBe("not_found");

    const before = await scrape();
    expect(before.value("nms_actor_partitions_owned", { actor: "channel-sender" })).toBe(config.partitions);
    expect(before.find("nms_actor_stream_length", { actor: "channel-sender" })).toHaveLength(config.partitions);

    const t = await createTenant();
    const r = await call("POST", "/v1/notifications", { key: t.sandboxKey, body: { channel: "sms", to: "+5511912340077", data: { content: "metrics" } } });
    expect(r.status).toBe(202);
    const row = await waitForStatus(r.body.data.id, ["delivered", "failed"], 15_000);
    expect(row!.status).toBe("delivered");

    const after = await scrape();
    const ok = { actor: "channel-sender", outcome: "ok" };
    expect(after.value("nms_actor_handler_outcomes_total", ok) - before.value("nms_actor_handler_outcomes_total", ok)).toBeGreaterThanOrEqual(1);
    const sandbox = { provider: "sandbox", outcome: "ok" };
    expect(after.value("nms_provider_calls_total", sandbox) - before.value("nms_provider_calls_total", sandbox)).toBeGreaterThanOrEqual(1);
    expect(after.value("nms_provider_call_duration_seconds_count", sandbox)).toBeGreaterThanOrEqual(1);
    expect(after.value("nms_pg_pool_connections")).toBeGreaterThanOrEqual(1);

    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
  }, 90_000);
});

describe("a process running several kinds (npm start)", () => {
  test("serves the API's and the actors' metrics on its one /metrics", async () => {
    const prefix = randomPrefix("metrics-all");
    const { child, url } = await startKind(null, { PORT: "0", REDIS_PREFIX: prefix }, /NMS API listening at (\S+)/);
    try {
      expect((await fetch(`${url}/health`)).status).toBe(200);
      const m = parseExposition(await (await fetch(`${url}/metrics`)).text());
      expect(m.value("nms_http_requests_total", { route: "/health", status: "200" })).toBe(1);
      expect(m.value("nms_actor_partitions_owned", { actor: "channel-sender" })).toBe(config.partitions);
      expect(m.find("nms_actor_pending_messages", { actor: "channel-sender" })).toHaveLength(config.partitions);
      // the actors run on a thread of their own (ACTOR_THREAD): its metrics are merged in, the process's own once
      expect(m.find("nms_process_start_time_seconds", {})).toHaveLength(1);
      expect(m.find("nms_pg_pool_max_connections", {})).toHaveLength(1);
      expect(m.value("nms_pg_pool_max_connections", {})).toBe(2 * config.databasePoolSize); // a pool per thread
    } finally {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
      const admin = connect();
      await deletePrefix(admin, prefix);
      await admin.quit();
    }
  }, 90_000);
});
