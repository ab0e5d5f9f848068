// kill -9 of the webhook-dispatcher (its host, its relay, its repair scan) loses no event: each event
// reaches each subscribed receiver at least once, and a duplicate carries the same id and body.
import { afterAll, expect, test } from "bun:test";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { config } from "../../config";
import { relayOnce } from "../../domain/webhooks/relay";
import { createRuntime } from "../../runtime/runtime";
import { sql } from "../../store/db";
import { createTenant } from "../support/fixtures";
import { connect, deletePrefix, sleep } from "../support/runtime-redis";
import { PROCESS_START_MS } from "../support/spawn-ready";
import { startReceiver, type Receiver } from "../support/webhook-receiver";
import { cleanupTenants, createWebhook, dropDispatcherKeys, emit, until } from "./webhook-support";

const root = join(import.meta.dir, "..", "..");
const BUN = join(root, "node_modules", ".bin", "bun");
const WORKER = join(root, "test", "support", "webhook-dispatcher-worker.ts");

const procs: Subprocess[] = [];
const receivers: Receiver[] = [];
const tenants: string[] = [];

afterAll(async () => {
  for (const p of procs) if (p.exitCode === null) p.kill("SIGKILL");
  await Promise.all(procs.map((p) => p.exited));
  await cleanupTenants(tenants);
  for (const r of receivers) await r.stop();
  const redis = connect();
  await deletePrefix(redis, config.redisPrefix);
  await redis.quit();
});

async function spawnDispatcher(hostId: string, env: Record<string, string> = {}): Promise<Subprocess<"ignore", "pipe", "inherit">> {
  const proc = Bun.spawn([BUN, WORKER], {
    cwd: root,
    env: { ...process.env, RT_HOST_ID: hostId, WEBHOOK_ALLOW_PRIVATE: "true", TIME_SCALE: "0.0001", LOG_LEVEL: "error", ...env },
    stdout: "pipe",
    stderr: "inherit",
  });
  procs.push(proc);
  const reader = proc.stdout.getReader();
  let out = "";
  const deadline = Date.now() + PROCESS_START_MS;
  while (!out.includes(`ready ${hostId}`)) {
    if (Date.now() > deadline) throw new Error(`dispatcher ${hostId} did not become ready: ${out}`);
    const { value, done } = await reader.read();
    if (done) throw new Error(`dispatcher ${hostId} exited before ready: ${out}`);
    out += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return proc;
}

test("kill -9 of the dispatcher under load: every event reaches every subscribed receiver at least once", async () => {
  const savedPrivate = config.webhookAllowPrivate;
  (config as any).webhookAllowPrivate = true;
  const slowly = async () => {
    await sleep(5 + Math.random() * 15);
    return new Response("ok");
  };
  const [r1, r2, r3] = [startReceiver(slowly), startReceiver(slowly), startReceiver(slowly)];
  receivers.push(r1, r2, r3);
  const t1 = await createTenant();
  const t2 = await createTenant();
  tenants.push(t1.tenant.id, t2.tenant.id);
  try {
    await createWebhook(t1.secretKey, r1.url, ["notification.sent"]);
    await createWebhook(t1.secretKey, r2.url, ["notification.sent", "notification.delivered"]);
    await createWebhook(t2.secretKey, r3.url, ["notification.sent"]);
  } finally {
    (config as any).webhookAllowPrivate = savedPrivate;
  }

  const first = await spawnDispatcher("wh-a");
  const sentT1: string[] = [];
  const sentT2: string[] = [];
  // the emitters keep writing while the dispatcher dies and its successor takes over, up to a
  // fixed number of events (a quiet run emits ~900 per tenant): on a loaded machine the successor
  // starts slowly, and writing for all that time made more work than its deadline below allows
  const MAX_EVENTS = 1000;
  let emitting = true;
  const emitter = (async () => {
    while (emitting && sentT1.length < MAX_EVENTS) {
      sentT1.push(...(await emit(t1.tenant.id, "production", "notification.sent", 20)));
      sentT2.push(...(await emit(t2.tenant.id, "production", "notification.sent", 20)));
      await sleep(10);
    }
  })();
  await until(() => r1.received.length >= 100, 10_000);
  expect(r1.received.length).toBeLessThan(sentT1.length + 1); // mid-flight, not finished
  first.kill("SIGKILL");
  await first.exited;
  const killedAt = { r1: r1.received.length, r2: r2.received.length, r3: r3.received.length };
  const second = await spawnDispatcher("wh-b");
  await sleep(500);
  emitting = false;
  await emitter;
  expect(sentT1.length).toBeGreaterThan(killedAt.r1);

  const covered = (r: Receiver, ids: string[]) => {
    const got = new Set(r.ids());
    return ids.every((id) => got.has(id));
  };
  await until(() => covered(r1, sentT1) && covered(r2, sentT1) && covered(r3, sentT2), 30_000, 100);
  expect(covered(r1, sentT1)).toBe(true);
  expect(covered(r2, sentT1)).toBe(true);
  expect(covered(r3, sentT2)).toBe(true);
  // tenants never cross
  expect(r3.ids().some((id) => sentT1.includes(id))).toBe(false);
  expect(r1.ids().some((id) => sentT2.includes(id))).toBe(false);

  // a duplicate is the same event: same id in the body and the webhook-id header, same bytes
  let duplicates = 0;
  for (const r of [r1, r2, r3]) {
    const byId = new Map<string, string>();
    for (const x of r.received) {
      expect(x.headers["webhook-id"]).toBe(x.json.id);
      const seen = byId.get(x.json.id);
      if (seen !== undefined) {
        duplicates++;
        expect(x.body).toBe(seen);
      } else byId.set(x.json.id, x.body);
    }
  }
  // every delivery is recorded as a success exactly once per event and webhook
  // (the last records may still be on their way in after the receiver answered)
  const pairs = async () =>
    (await sql`select count(distinct (webhook_id, event_id))::int as pairs
      from webhook_deliveries where tenant_id in (${t1.tenant.id}, ${t2.tenant.id}) and status = 'success'`)[0]!.pairs as number;
  await until(async () => (await pairs()) === sentT1.length * 2 + sentT2.length, 5000);
  expect(await pairs()).toBe(sentT1.length * 2 + sentT2.length);
  console.log(`webhook crash test: ${sentT1.length + sentT2.length} events, ${sentT1.length * 2 + sentT2.length} deliveries, ${duplicates} duplicates after the kill`);

  second.kill("SIGTERM");
  await second.exited;
}, 60_000);

test("kill -9 during the repair scan loses nothing: every event Redis lost reaches the receiver, each attempt recorded once", async () => {
  const slowly = async () => {
    await sleep(5 + Math.random() * 10);
    return new Response("ok");
  };
  const rx = startReceiver(slowly);
  receivers.push(rx);
  const t = await createTenant();
  tenants.push(t.tenant.id);
  const savedPrivate = config.webhookAllowPrivate;
  (config as any).webhookAllowPrivate = true;
  const W = await createWebhook(t.secretKey, rx.url, ["notification.delivered"]).finally(() => ((config as any).webhookAllowPrivate = savedPrivate));
  const ids: string[] = [];
  for (let i = 0; i < 6; i++) ids.push(...(await emit(t.tenant.id, "production", "notification.delivered", 100)));

  // relayed with no dispatcher running, then lost with the dispatcher's Redis keys
  const runtime = createRuntime({ redisUrl: config.redisUrl, prefix: config.redisPrefix, partitions: config.partitions });
  await until(async () => {
    await relayOnce({ runtime });
    const [left] = await sql`select count(*)::int as n from webhook_outbox where webhook_id = ${W.id}`;
    return left!.n === 0;
  });
  await runtime.close();
  await dropDispatcherKeys();
  const markers = async () =>
    (await sql`select count(*)::int as n, (count(*) filter (where repairs = 0))::int as untouched from webhook_due where webhook_id = ${W.id}`)[0] as {
      n: number;
      untouched: number;
    };
  expect(await markers()).toEqual({ n: 600, untouched: 600 });

  // small pages, so the scan is still going through the markers when the process dies
  const env = { WH_REPAIR_GRACE_MS: "200", WH_REPAIR_EVERY_MS: "50", WH_REPAIR_LIMIT: "10", WH_REPAIR_TENANT: t.tenant.id };
  await sleep(250);
  const first = await spawnDispatcher("wh-repair-a", env);
  const atKill = await until(async () => {
    const m = await markers();
    return m.untouched <= 450 ? m : null;
  }, 10_000, 2);
  first.kill("SIGKILL");
  await first.exited;
  expect(atKill!.untouched).toBeGreaterThan(0); // killed part way through the repair
  const receivedAtKill = rx.received.length;

  // only the first scan has to be slow enough to be killed part way; the successor takes full pages
  const second = await spawnDispatcher("wh-repair-b", { ...env, WH_REPAIR_LIMIT: "100" });
  await until(() => new Set(rx.ids()).size === ids.length, 30_000, 50);
  expect(new Set(rx.ids())).toEqual(new Set(ids));
  // every attempt 1 recorded once, as a success; no attempt was recorded twice or renumbered
  const recorded = async () =>
    (await sql`select count(*)::int as n, count(distinct event_id)::int as events, max(attempt)::int as max_attempt
      from webhook_deliveries where webhook_id = ${W.id} and status = 'success'`)[0] as { n: number; events: number; max_attempt: number };
  await until(async () => (await recorded()).n === ids.length, 5000);
  expect(await recorded()).toEqual({ n: ids.length, events: ids.length, max_attempt: 1 });
  expect(await until(async () => (await markers()).n === 0, 5000)).toBe(true);
  // a duplicate (a request in flight when the process died) is the same event
  const byId = new Map<string, string>();
  let duplicates = 0;
  for (const x of rx.received) {
    const seen = byId.get(x.json.id);
    if (seen !== undefined) {
      duplicates++;
      expect(x.body).toBe(seen);
    } else byId.set(x.json.id, x.body);
  }
  console.log(
    `webhook repair crash test: ${ids.length} lost events, killed with ${atKill!.untouched} markers not yet repaired and ${receivedAtKill} received, ${duplicates} duplicates`,
  );
  second.kill("SIGTERM");
  await second.exited;
}, 60_000);
