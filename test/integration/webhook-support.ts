// Test support for webhook delivery: the webhook-dispatcher in a runtime host on this test process's
// REDIS_PREFIX with a tiny TIME_SCALE, its relay loop, event emission and polling helpers.
import { webhookDispatcher, WEBHOOK_HOST_OPTIONS } from "../../actors/webhook-dispatcher";
import { startWebhookRelay, type RepairLoopOptions } from "../../jobs/webhook-relay";
import { config } from "../../config";
import { emitEvents } from "../../domain/events/outbox";
import { createRuntime, type Runtime } from "../../runtime/runtime";
import { webhookDispatcherAddress } from "../../domain/webhooks/webhook-dispatcher-mail";
import { sql } from "../../store/db";
import { call } from "../support/fixtures";
import { deleteTenants } from "../support/tenant-cleanup";
import { connect, deletePrefix, waitFor } from "../support/runtime-redis";

export const TEST_TIME_SCALE = 0.0001;

/**
 * Starts the dispatcher host and the relay. config.timeScale is set to TEST_TIME_SCALE meanwhile
 * (the dispatcher computes its real-time waits from it), and put back by stop().
 */
export async function startWebhookHost(opts: { timeScale?: number; repair?: RepairLoopOptions | false } = {}) {
  const saved = { timeScale: config.timeScale, allowPrivate: config.webhookAllowPrivate };
  const timeScale = opts.timeScale ?? TEST_TIME_SCALE;
  (config as any).timeScale = timeScale;
  (config as any).webhookAllowPrivate = true; // local receivers listen on 127.0.0.1
  const runtime = createRuntime({ redisUrl: config.redisUrl, prefix: config.redisPrefix, partitions: config.partitions, timeScale });
  const host = runtime.startHost({ ...WEBHOOK_HOST_OPTIONS, actors: [webhookDispatcher], leaseMs: 3000, blockMs: 100, timerPollMs: 10 });
  await host.ready;
  // the repair scan runs only where a test asks for it (tests call repairWebhookWork themselves)
  const relay = startWebhookRelay({ everyMs: 20, runtime, repair: opts.repair ?? false });
  return {
    runtime,
    host,
    /** Stops the dispatcher (host and relay) and leaves its Redis keys: a dispatcher that is not running. */
    async halt() {
      await relay.stop();
      await host.stop();
    },
    async stop() {
      await relay.stop();
      await host.stop();
      await runtime.close();
      const r = connect();
      await deletePrefix(r, config.redisPrefix);
      await r.quit();
      (config as any).timeScale = saved.timeScale;
      (config as any).webhookAllowPrivate = saved.allowPrivate;
    },
  };
}

/** POST /v1/webhooks (the caller's config decides whether a 127.0.0.1 receiver is allowed). */
export async function createWebhook(key: string, url: string, events: string[]) {
  const r = await call("POST", "/v1/webhooks", { key, body: { url, events } });
  if (r.status !== 201) throw new Error(`webhook not created: ${r.status} ${r.text}`);
  return r.body.data as { id: string; signing_secret: string; url: string };
}

/** createWebhook for a receiver on this machine (127.0.0.1): private addresses are allowed for the call only. */
export async function createLocalWebhook(key: string, url: string, events: string[]) {
  const saved = config.webhookAllowPrivate;
  (config as any).webhookAllowPrivate = true;
  try {
    return await createWebhook(key, url, events);
  } finally {
    (config as any).webhookAllowPrivate = saved;
  }
}

/** Writes events the way every feature does (domain/events/outbox.ts, in a transaction); returns their ids. */
export async function emit(tenantId: string, environment: string, type: string, count = 1, data: (i: number) => Record<string, unknown> = (i) => ({ n: i })) {
  const records = await sql.begin((tx) =>
    emitEvents(
      tx,
      Array.from({ length: count }, (_, i) => ({ tenantId, environment, type, data: data(i) })),
    ),
  );
  return records.map((r) => r.id);
}

export async function deliveriesOf(webhookId: string, eventId?: string) {
  return await sql`select * from webhook_deliveries where webhook_id = ${webhookId} ${eventId ? sql`and event_id = ${eventId}` : sql``} order by attempt, created_at`;
}

/** The webhook's delivery records once there are at least `n` (null if not within the time). */
export async function deliveriesAtLeast(webhookId: string, n: number, timeoutMs = 10_000) {
  return await waitFor(async () => {
    const x = await deliveriesOf(webhookId);
    return x.length >= n ? x : null;
  }, timeoutMs, 20);
}

/** waitFor with this file's defaults: 10 s, every 20 ms. */
export const until = <T>(check: () => Promise<T> | T, timeoutMs = 10_000, everyMs = 20) => waitFor(check, timeoutMs, everyMs);

/** Deletes test tenants and everything of theirs (webhooks, deliveries, events, audit), queued outbox rows and markers first. */
export async function cleanupTenants(tenantIds: string[]) {
  if (!tenantIds.length) return;
  const webhooks = (await sql<{ id: string }[]>`select id from webhooks where tenant_id = any(${tenantIds}::uuid[])`).map((w) => w.id);
  await sql`delete from webhook_outbox where webhook_id = any(${webhooks}::uuid[])`;
  await deleteTenants(tenantIds);
  // after the tenants: an outcome recorded meanwhile (its record needs the tenant row) left its marker
  await sql`delete from webhook_due where webhook_id = any(${webhooks}::uuid[])`;
}

/**
 * Deletes this run's Redis keys of the webhook-dispatcher's partitions (streams, timers, timer data,
 * failure counts), as a Redis restart without persistence would; `endingWith` picks some (":timers").
 */
export async function dropDispatcherKeys(endingWith?: string[]): Promise<number> {
  const r = connect();
  let cursor = "0";
  let deleted = 0;
  try {
    do {
      const [next, keys] = await r.scan(cursor, "MATCH", `${config.redisPrefix}:{webhook-dispatcher:*`, "COUNT", 1000);
      cursor = next;
      const picked = endingWith ? keys.filter((k) => endingWith.some((e) => k.endsWith(e))) : keys;
      if (picked.length) deleted += await r.del(...picked);
    } while (cursor !== "0");
  } finally {
    await r.quit();
  }
  return deleted;
}

/** Messages for one webhook now in the dispatcher's streams (read or not). */
export async function messagesInStreams(runtime: Runtime, webhookId: string): Promise<number> {
  let n = 0;
  for (let p = 0; p < runtime.partitionsOf(webhookDispatcherAddress); p++) {
    const entries = await runtime.redis.xrange(runtime.keys.stream(webhookDispatcherAddress.name, p), "-", "+");
    n += entries.filter(([, fields]) => String(fields[1]).startsWith(`${webhookId}:`)).length;
  }
  return n;
}
