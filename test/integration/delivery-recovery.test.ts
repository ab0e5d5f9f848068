// DESIGN.md 3: "PostgreSQL is the source of truth; Redis carries work. The reconciler re-enqueues
// work whose message is gone, so a Redis restart without persistence loses nothing."
import { afterAll, expect, test } from "bun:test";
import { reconcileOnce } from "../../domain/delivery/reconcile";
import { startReconciler } from "../../jobs/reconciler";
import { config } from "../../config";
import { sql } from "../../store/db";
import { redis } from "../../store/redis";
import { redisKey } from "../../store/redis-keys";
import { call, createTenant } from "../support/fixtures";
import { connect, deletePrefix, sleep } from "../support/runtime-redis";
import { startDeliveryHost, waitForEnqueued, waitForStatus } from "./delivery-support";

let stopHost: (() => Promise<void>) | null = null;
afterAll(async () => {
  await stopHost?.();
  const r = connect();
  await deletePrefix(r, config.redisPrefix);
  await r.quit();
});

test("accepted, then Redis loses every stream: the reconciler re-enqueues and the notification is delivered", async () => {
  const t = await createTenant();
  const r = await call("POST", "/v1/notifications", { key: t.sandboxKey, body: { channel: "sms", to: "+5511912340001", data: { content: "x" } } });
  expect(r.status).toBe(202);
  expect(await waitForEnqueued(r.body.data.id)).toBe(true); // the XADD follows the 202
  const wipe = connect();
  await deletePrefix(wipe, config.redisPrefix); // as after a restart without persistence
  await wipe.quit();
  await sql`update notifications set updated_at = now() - interval '2 minutes' where id = ${r.body.data.id}`;

  const delivery = await startDeliveryHost();
  stopHost = () => delivery.stop();
  await sleep(300);
  const [still] = await sql`select status from notifications where id = ${r.body.data.id}`;
  expect(still!.status).toBe("pending"); // nothing left in Redis to deliver it

  const result = await reconcileOnce({ tenantId: t.tenant.id });
  expect(result.requeued).toBeGreaterThanOrEqual(1);
  const row = await waitForStatus(r.body.data.id, ["delivered", "failed"]);
  expect(row!.status).toBe("delivered");
  expect(row!.attempt_count).toBe(1);
});

test("the periodic reconciler runs under a Redis lease: a second instance does not scan while the first holds it", async () => {
  // scoped to a fresh tenant: the shared test database holds other files' pending rows
  const scope = (await createTenant()).tenant.id;
  const a = startReconciler({ everyMs: 30, tenantId: scope });
  await sleep(120);
  const holder = await redis.get(redisKey("lease", "{reconciler}")); // the runtime's named lease
  expect(holder).toBeTruthy();
  const b = startReconciler({ everyMs: 30, tenantId: scope });
  await sleep(120);
  expect(await redis.get(redisKey("lease", "{reconciler}"))).toBe(holder);
  await a.stop();
  await b.stop();
});
