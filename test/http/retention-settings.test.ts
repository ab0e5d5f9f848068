// GET/PUT /v1/settings/retention (issue 26 item 2): defaults 30/365/30, partial updates with an audit
// entry, 422 validation_failed keyed by field (nothing changes), the plan's retention_days as a cap.
import { afterAll, describe, expect, test } from "bun:test";
import { ADMIN_TOKEN, call, createKey, createTenant } from "../support/fixtures";
import { deleteTenants } from "../support/tenant-cleanup";
import { sql } from "../../store/db";

const run = crypto.randomUUID().slice(0, 8);
const admin = { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } };
const tenants: string[] = [];
const planId = `ret-${run}`;

async function tenant() {
  const t = await createTenant(`retention-${run}`);
  tenants.push(t.tenant.id);
  return t;
}

afterAll(async () => {
  await deleteTenants(tenants);
  await sql`delete from plans where id = ${planId}`;
});

describe("GET /v1/settings/retention", () => {
  test("a tenant that never changed them has the defaults: 30 days of notifications, 365 of inbox, 30 of webhook deliveries", async () => {
    const t = await tenant();
    const r = await call("GET", "/v1/settings/retention", { key: t.secretKey });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ notifications_days: 30, inbox_days: 365, webhook_deliveries_days: 30, updated_at: null });
    expect(typeof r.body.data.plan_id).toBe("string");
    // the sandbox key reads the same (per tenant, not per environment)
    const s = await call("GET", "/v1/settings/retention", { key: t.sandboxKey });
    expect(s.body.data.notifications_days).toBe(30);
  });

  test("without a key it is 401, a read-only key may not PUT", async () => {
    const t = await tenant();
    expect((await call("GET", "/v1/settings/retention")).status).toBe(401);
    const ro = await createKey(t.tenant.id, { permissions: ["read"] });
    expect((await call("GET", "/v1/settings/retention", { key: ro.raw })).status).toBe(200);
    expect((await call("PUT", "/v1/settings/retention", { key: ro.raw, body: { inbox_days: 10 } })).status).toBe(403);
  });
});

describe("PUT /v1/settings/retention", () => {
  test("changes the given windows, keeps the others, and writes retention_settings.updated with before and after", async () => {
    const t = await tenant();
    const r = await call("PUT", "/v1/settings/retention", { key: t.secretKey, body: { notifications_days: 7, webhook_deliveries_days: 90 } });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ notifications_days: 7, inbox_days: 365, webhook_deliveries_days: 90 });
    expect(r.body.data.updated_at).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    const again = await call("PUT", "/v1/settings/retention", { key: t.secretKey, body: { inbox_days: 30 } });
    expect(again.body.data).toMatchObject({ notifications_days: 7, inbox_days: 30, webhook_deliveries_days: 90 });
    const got = await call("GET", "/v1/settings/retention", { key: t.secretKey });
    expect(got.body.data).toMatchObject({ notifications_days: 7, inbox_days: 30, webhook_deliveries_days: 90 });
    const audit = await sql`select actor_type, actor_id, metadata from audit_logs
      where tenant_id = ${t.tenant.id} and action = 'retention_settings.updated' order by inserted_at`;
    expect(audit.length).toBe(2);
    expect(audit[0]).toMatchObject({ actor_type: "api_key", actor_id: t.secretKeyId });
    expect(audit[0]!.metadata).toEqual({
      before: { notifications_days: 30, inbox_days: 365, webhook_deliveries_days: 30 },
      after: { notifications_days: 7, inbox_days: 365, webhook_deliveries_days: 90 },
    });
  });

  test("bad values are 422 validation_failed with details by field, and change nothing", async () => {
    const t = await tenant();
    for (const [body, field] of [
      [{ notifications_days: 0 }, "notifications_days"],
      [{ inbox_days: 3651 }, "inbox_days"],
      [{ webhook_deliveries_days: "thirty" }, "webhook_deliveries_days"],
      [{ notifications_days: 1.5 }, "notifications_days"],
    ] as const) {
      const r = await call("PUT", "/v1/settings/retention", { key: t.secretKey, body });
      expect(r.status).toBe(422);
      expect(r.body.error.code).toBe("validation_failed");
      expect(Object.keys(r.body.error.details)).toContain(field);
    }
    const empty = await call("PUT", "/v1/settings/retention", { key: t.secretKey, body: {} });
    expect(empty.status).toBe(422);
    expect(empty.body.error.code).toBe("validation_failed");
    const got = await call("GET", "/v1/settings/retention", { key: t.secretKey });
    expect(got.body.data).toMatchObject({ notifications_days: 30, inbox_days: 365, webhook_deliveries_days: 30, updated_at: null });
  });

  test("a day count sent as a JSON string is 422 on its field and stored nowhere (the validator would have read \"14\" as 14)", async () => {
    const t = await tenant();
    for (const body of [{ notifications_days: "14" }, { inbox_days: "90", webhook_deliveries_days: 7 }, { webhook_deliveries_days: "" }, { notifications_days: "1e1" }]) {
      const r = await call("PUT", "/v1/settings/retention", { key: t.secretKey, body });
      expect(r.status).toBe(422);
      expect(r.body.error.code).toBe("validation_failed");
      const field = Object.keys(body).find((k) => typeof (body as Record<string, unknown>)[k] === "string")!;
      expect(r.body.error.details[field]).toEqual(["must be integer"]);
    }
    const got = await call("GET", "/v1/settings/retention", { key: t.secretKey });
    expect(got.body.data).toMatchObject({ notifications_days: 30, inbox_days: 365, webhook_deliveries_days: 30, updated_at: null });
    expect((await sql`select count(*)::int as n from audit_logs where tenant_id = ${t.tenant.id} and action = 'retention_settings.updated'`)[0]!.n).toBe(0);
    // still the caller's access first: no key is 401, a read-only key 403, whatever the body
    expect((await call("PUT", "/v1/settings/retention", { body: { notifications_days: "14" } })).status).toBe(401);
    const ro = await createKey(t.tenant.id, { permissions: ["read"] });
    expect((await call("PUT", "/v1/settings/retention", { key: ro.raw, body: { notifications_days: "14" } })).status).toBe(403);
    // next to an unknown field: 422 naming both, still nothing stored
    const both = await call("PUT", "/v1/settings/retention", { key: t.secretKey, body: { notifications_days: "14", foo: 1 } });
    expect(both.status).toBe(422);
    expect(both.body.error.details).toEqual({ foo: ["is not allowed"], notifications_days: ["must be integer"] });
    expect((await call("GET", "/v1/settings/retention", { key: t.secretKey })).body.data.notifications_days).toBe(30);
  });

  test("an empty object, or one with only unknown fields, is 422 naming the fields it may set", async () => {
    const t = await tenant();
    const may = "must set at least one of notifications_days, inbox_days, webhook_deliveries_days";
    const empty = await call("PUT", "/v1/settings/retention", { key: t.secretKey, body: {} });
    expect(empty.status).toBe(422);
    expect(empty.body.error.details).toEqual({ body: [may] });
    const unknown = await call("PUT", "/v1/settings/retention", { key: t.secretKey, body: { NOTIFICATIONS_DAYS: 14 } });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.details).toEqual({ body: [may], NOTIFICATIONS_DAYS: ["is not allowed"] });
  });

  test("the plan's retention_days caps every window: longer is 422 naming the field and the plan; GET shows max_days", async () => {
    const created = await call("POST", "/v1/admin/plans", { ...admin, body: { id: planId, name: "Retention", price_cents: 100, limits: { retention_days: 60 } } });
    expect(created.status).toBe(201);
    expect(created.body.data.limits.retention_days).toBe(60);
    const t = await tenant();
    expect((await call("POST", "/v1/subscription", { key: t.secretKey, body: { plan_id: planId } })).status).toBe(200);
    const got = await call("GET", "/v1/settings/retention", { key: t.secretKey });
    expect(got.body.data).toMatchObject({ max_days: 60, plan_id: planId });
    const r = await call("PUT", "/v1/settings/retention", { key: t.secretKey, body: { notifications_days: 45, inbox_days: 365 } });
    expect(r.status).toBe(422);
    expect(r.body.error.details).toEqual({ inbox_days: [`must be at most 60 days on the plan ${planId}`] });
    expect((await call("GET", "/v1/settings/retention", { key: t.secretKey })).body.data.notifications_days).toBe(30);
    const ok = await call("PUT", "/v1/settings/retention", { key: t.secretKey, body: { notifications_days: 45, inbox_days: 60 } });
    expect(ok.status).toBe(200);
    expect(ok.body.data).toMatchObject({ notifications_days: 45, inbox_days: 60, max_days: 60 });
  });
});
