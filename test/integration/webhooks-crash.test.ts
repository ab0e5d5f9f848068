// kill -9 of the webhook-dispatcher (its host and its relay) under load loses no event: each event
// reaches each subscribed receiver at least once, and a duplicate carries the same id and body.
import { afterAll, expect, test } from "bun:test";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { config } from "../../config";
import { sql } from "../../store/db";
import { createTenant } from "../support/fixtures";
import { connect, deletePrefix, sleep } from "../support/runtime-redis";
import { startReceiver, type Receiver } from "../support/webhook-receiver";
import { cleanupTenants, createWebhook, emit, until } from "./webhook-support";

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

async function spawnDispatcher(hostId: string): Promise<Subprocess<"ignore", "pipe", "inherit">> {
  const proc = Bun.spawn([BUN, WORKER], {
    cwd: root,
    env: { ...process.env, RT_HOST_ID: hostId, WEBHOOK_ALLOW_PRIVATE: "true", TIME_SCALE: "0.0001", LOG_LEVEL: "error" },
    stdout: "pipe",
    stderr: "inherit",
  });
  procs.push(proc);
  const reader = proc.stdout.getReader();
  let out = "";
  const deadline = Date.now() + 15_000;
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
  // the emitters keep writing while the dispatcher dies and its successor takes over
  let emitting = true;
  const emitter = (async () => {
    while (emitting) {
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
