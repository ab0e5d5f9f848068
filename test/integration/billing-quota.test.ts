// The notification quota against real Redis and PostgreSQL: exact at the limit with 20 concurrent
// senders, sandbox exempt, seeded from PostgreSQL, idempotent repeats free, quota.warning and
// quota.exceeded once each, the overshoot bound when Redis loses a live counter, and the cron
// settling reservations that a dead process left.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ADMIN_TOKEN, call, createTenant } from "../support/fixtures";
import { deleteTenants } from "../support/tenant-cleanup";
import { acceptNotification } from "../../domain/notifications/accept";
import { runBillingOnce, STALE_RESERVATION_MS } from "../../domain/billing/billing-run";
import { billingOf, forgetBilling } from "../../domain/billing/cache";
import { quotaRefOf, withinQuota } from "../../domain/billing/quota";
import { sql } from "../../store/db";
import { dropQuota, readQuota, reserveQuota } from "../../store/quota-counters";

const run = crypto.randomUUID().slice(0, 8);
const admin = { key: ADMIN_TOKEN };
const tenants: string[] = [];
const plan = (n: string) => `q-${run}-${n}`;

beforeAll(async () => {
  for (const [id, limit, price] of [["fifty", 50, 1000], ["twelve", 12, 1000], ["ten", 10, 1000], ["unlimited", null, 100]] as const) {
    const r = await call("POST", "/v1/admin/plans", { ...admin, body: { id: plan(id), name: id, price_cents: price, limits: { notifications_per_month: limit } } });
    expect(r.status).toBe(201);
  }
});

afterAll(async () => {
  for (const id of tenants) {
    forgetBilling(id);
    const b = await billingOf(id);
    await dropQuota(quotaRefOf(id, b));
  }
  await deleteTenants(tenants);
  await sql`delete from plans where id like ${`q-${run}-%`}`;
});

/** A tenant on `planId` with a production SMS channel (sandbox provider) to send through. */
async function tenantOn(planId: string | null) {
  const t = await createTenant();
  tenants.push(t.tenant.id);
  expect((await call("POST", "/v1/channels", { key: t.secretKey, body: { channel: "sms", provider: "sandbox" } })).status).toBe(201);
  if (planId) expect((await call("POST", "/v1/subscription", { key: t.secretKey, body: { plan_id: planId } })).status).toBe(200);
  return t;
}

const send = (key: string, i: number) => call("POST", "/v1/notifications", { key, body: { channel: "sms", to: `+1555000${String(i).padStart(4, "0")}`, data: { content: `n${i}` } } });

async function productionRows(tenantId: string): Promise<number> {
  const [{ n }] = (await sql`select count(*)::int as n from notifications where tenant_id = ${tenantId} and environment = 'production'`) as any;
  return n;
}

describe("refusal at exactly the limit", () => {
  test("20 concurrent senders, 100 notifications, limit 50: exactly 50 accepted, 50 refused with 402 quota_exceeded", async () => {
    const t = await tenantOn(plan("fifty"));
    const statuses: number[] = [];
    let refusal: any = null;
    await Promise.all(
      Array.from({ length: 20 }, async (_, sender) => {
        for (let k = 0; k < 5; k++) {
          const r = await send(t.secretKey, sender * 5 + k);
          statuses.push(r.status);
          if (r.status === 402) refusal ??= r.body;
        }
      }),
    );
    expect(statuses.filter((s) => s === 202)).toHaveLength(50);
    expect(statuses.filter((s) => s === 402)).toHaveLength(50);
    expect(await productionRows(t.tenant.id)).toBe(50);
    expect(refusal.error.code).toBe("quota_exceeded");
    expect(refusal.error.details).toMatchObject({ limit: ["50"], usage: ["50"], plan_id: [plan("fifty")] });
    expect(refusal.error.details.period_end[0]).toMatch(/^\d{4}-\d{2}-\d{2}T/);

    const usage = await call("GET", "/v1/subscription", { key: t.secretKey });
    expect(usage.body.data.usage.notifications_this_period).toBe(50);

    // quota.warning (at 40 of 50) and quota.exceeded (at 50): one event each, in production
    const events = await sql`select type, environment, data from events where tenant_id = ${t.tenant.id} and type like 'quota.%' order by type`;
    expect(events.map((e) => e.type)).toEqual(["quota.exceeded", "quota.warning"]);
    for (const e of events) expect(e.environment).toBe("production");
    expect(events[0]!.data).toMatchObject({ plan_id: plan("fifty"), limit: 50, usage: 50, threshold_percent: 100 });
    expect(events[1]!.data).toMatchObject({ limit: 50, threshold_percent: 80 });
    expect(events[1]!.data.usage).toBeGreaterThanOrEqual(40);

    // more refusals send no second alert
    expect((await send(t.secretKey, 999)).status).toBe(402);
    expect(await sql`select 1 from events where tenant_id = ${t.tenant.id} and type like 'quota.%'`).toHaveLength(2);
  });

  test("sandbox never counts: sandbox sends pass at the limit and leave the production count alone", async () => {
    const t = await tenantOn(plan("ten"));
    for (let i = 0; i < 10; i++) expect((await send(t.secretKey, i)).status).toBe(202);
    expect((await send(t.secretKey, 10)).status).toBe(402);
    for (let i = 0; i < 15; i++) expect((await send(t.sandboxKey, i)).status).toBe(202);
    expect((await call("GET", "/v1/subscription", { key: t.secretKey })).body.data.usage.notifications_this_period).toBe(10);
  });

  test("the counter starts from PostgreSQL: the period's notifications sent before the limit count against it", async () => {
    const t = await tenantOn(plan("unlimited")); // no limit, so no counter
    for (let i = 0; i < 10; i++) expect((await send(t.secretKey, i)).status).toBe(202);
    // an upgrade keeps the period: its 10 notifications count
    const up = await call("POST", "/v1/subscription", { key: t.secretKey, body: { plan_id: plan("twelve") } });
    expect(up.body.data).toMatchObject({ plan_id: plan("twelve"), usage: { notifications_this_period: 10 } });
    expect((await send(t.secretKey, 10)).status).toBe(202);
    expect((await send(t.secretKey, 11)).status).toBe(202);
    const r = await send(t.secretKey, 12);
    expect(r.status).toBe(402);
    expect(r.body.error.details.usage).toEqual(["12"]);
  });

  test("an idempotent repeat (a workflow step's key) does not count twice; an upgrade lifts the refusal at once", async () => {
    const t = await tenantOn(plan("ten"));
    const step = (i: number) =>
      acceptNotification({ tenantId: t.tenant.id, environment: "production", channel: "sms", recipient: "+15550009999", data: { content: "step" }, idempotencyKey: `wfrun:${run}:step:${i}` });
    for (let i = 0; i < 5; i++) {
      expect((await step(i)).created).toBe(true);
      expect((await step(i)).created).toBe(false); // the job ran again
    }
    for (let i = 0; i < 5; i++) expect((await send(t.secretKey, i)).status).toBe(202);
    await expect(step(99)).rejects.toMatchObject({ code: "quota_exceeded" });
    expect(await productionRows(t.tenant.id)).toBe(10);
    await call("POST", "/v1/subscription", { key: t.secretKey, body: { plan_id: plan("twelve") } });
    expect((await send(t.secretKey, 100)).status).toBe(202);
  });
});

describe("the bounds when something fails", () => {
  test("Redis loses a live counter with k reservations in flight: at most limit + k are accepted in that period", async () => {
    const t = await tenantOn(plan("ten"));
    const b = await billingOf(t.tenant.id);
    const ref = quotaRefOf(t.tenant.id, b);
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    const k = 3;
    // k accepts hold their reservation while their insert waits
    const inFlight = Array.from({ length: k }, () => withinQuota({ tenantId: t.tenant.id, environment: "production", id: crypto.randomUUID() }, async () => (await gate, true)));
    for (let i = 0; i < 100 && (await readQuota(ref)) !== k; i++) await Bun.sleep(10);
    expect(await readQuota(ref)).toBe(k);
    await dropQuota(ref); // Redis restarted empty
    const later = await Promise.allSettled(Array.from({ length: 20 }, () => withinQuota({ tenantId: t.tenant.id, environment: "production", id: crypto.randomUUID() }, async () => true)));
    open();
    const held = await Promise.all(inFlight);
    const accepted = held.filter(Boolean).length + later.filter((r) => r.status === "fulfilled").length;
    // the reseed counted PostgreSQL (none of the k had committed): exactly limit + k, never more
    expect(accepted).toBe(10 + k);
    expect(later.filter((r) => r.status === "rejected").every((r) => (r as PromiseRejectedResult).reason.code === "quota_exceeded")).toBe(true);
    // the k settles found no open reservation in the new counter and left it alone
    expect(await readQuota(ref)).toBe(10);
  });

  test("a reservation whose process died is settled by the billing cron from PostgreSQL: given back unless its row exists", async () => {
    const t = await tenantOn(plan("ten"));
    for (let i = 0; i < 2; i++) expect((await send(t.secretKey, i)).status).toBe(202);
    const b = await billingOf(t.tenant.id);
    const ref = quotaRefOf(t.tenant.id, b);
    // a row standing for an insert that committed before its process died (a sandbox send, so it is not counted already)
    expect((await send(t.sandboxKey, 7)).status).toBe(202);
    const [committed] = await sql`select id from notifications where tenant_id = ${t.tenant.id} and environment = 'sandbox'`;
    // two reservations left open by a dead process: one never inserted, one inserted but never settled
    const longAgo = Date.now() - STALE_RESERVATION_MS - 60_000;
    expect((await reserveQuota(ref, crypto.randomUUID(), 10, longAgo)).status).toBe("reserved");
    expect((await reserveQuota(ref, committed!.id, 10, longAgo)).status).toBe("reserved");
    expect(await readQuota(ref)).toBe(4);
    const r = await runBillingOnce(new Date());
    expect(r.reservationsSettled).toBeGreaterThanOrEqual(2);
    // the lost one is given back; the committed one keeps its count
    expect(await readQuota(ref)).toBe(3);
    const again = await runBillingOnce(new Date());
    expect(await readQuota(ref)).toBe(3);
    expect(again.reservationsSettled).toBe(0);
  });
});
