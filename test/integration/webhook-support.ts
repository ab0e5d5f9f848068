// Test support for webhook delivery: the webhook-dispatcher in a runtime host on this test process's
// REDIS_PREFIX with a tiny TIME_SCALE, its relay loop, event emission and polling helpers.
import { startWebhookRelay, webhookDispatcher, WEBHOOK_HOST_OPTIONS } from "../../actors/webhook-dispatcher";
import { config } from "../../config";
import { emitEvents } from "../../domain/events";
import { createRuntime } from "../../runtime/runtime";
import { sql } from "../../store/db";
import { call } from "../support/fixtures";
import { deleteTenants } from "../support/tenant-cleanup";
import { connect, deletePrefix, waitFor } from "../support/runtime-redis";

export const TEST_TIME_SCALE = 0.0001;

/**
 * Starts the dispatcher host and the relay. config.timeScale is set to TEST_TIME_SCALE meanwhile
 * (the dispatcher computes its real-time waits from it), and put back by stop().
 */
export async function startWebhookHost(opts: { timeScale?: number } = {}) {
  const saved = { timeScale: config.timeScale, allowPrivate: config.webhookAllowPrivate };
  const timeScale = opts.timeScale ?? TEST_TIME_SCALE;
  (config as any).timeScale = timeScale;
  (config as any).webhookAllowPrivate = true; // local receivers listen on 127.0.0.1
  const runtime = createRuntime({ redisUrl: config.redisUrl, prefix: config.redisPrefix, partitions: config.partitions, timeScale });
  const host = runtime.startHost({ ...WEBHOOK_HOST_OPTIONS, actors: [webhookDispatcher], leaseMs: 3000, blockMs: 100, timerPollMs: 10 });
  await host.ready;
  const relay = startWebhookRelay({ everyMs: 20, runtime });
  return {
    runtime,
    host,
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

/** Writes events the way every feature does (domain/events.ts, in a transaction); returns their ids. */
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

/** waitFor with this file's defaults: 10 s, every 20 ms. */
export const until = <T>(check: () => Promise<T> | T, timeoutMs = 10_000, everyMs = 20) => waitFor(check, timeoutMs, everyMs);

/** Deletes test tenants and everything of theirs (webhooks, deliveries, events, audit), queued outbox rows first. */
export async function cleanupTenants(tenantIds: string[]) {
  if (!tenantIds.length) return;
  await sql`delete from webhook_outbox where webhook_id in (select id from webhooks where tenant_id = any(${tenantIds}::uuid[]))`;
  await deleteTenants(tenantIds);
}
