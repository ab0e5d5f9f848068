// Billing over HTTP against real PostgreSQL and Redis (manual gateway: no Stripe configured here):
// the operator's plans, a tenant's subscription with SPEC's subscription.* audit entries (exact
// metadata keys and actor types), owners only among dashboard users, upgrade now and downgrade at
// the period end (a simulated clock), the plan's rate limit in X-RateLimit-*, resource limits (402).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ADMIN_TOKEN, call, createKey, createTenant } from "../support/fixtures";
import { deleteTenants } from "../support/tenant-cleanup";
import { config } from "../../config";
import { runBillingOnce } from "../../domain/billing/billing-run";
import { subscriptionView } from "../../domain/billing/view";
import { SESSION_COOKIE } from "../../http/session";
import { sql, type Tx } from "../../store/db";
import { createSession } from "../../store/sessions";
import { insertUser, type Role } from "../../store/users";

const run = crypto.randomUUID().slice(0, 8);
const admin = { key: ADMIN_TOKEN };
const planId = (name: string) => `b-${run}-${name}`;
const tenants: string[] = [];
const APP_ORIGIN = new URL(config.appUrl).origin;

beforeAll(async () => {
  // plans of several prices; cheap < mid < dear by monthly price, yearly compared per month
  const plans = [
    { id: planId("cheap"), name: "Cheap", price_cents: 900, limits: { webhooks: 1, subscribers: 2, domains: 1, team_members: 2, api_requests_per_minute: 7 } },
    { id: planId("mid"), name: "Mid", price_cents: 2900, limits: { webhooks: 3 } },
    { id: planId("dear"), name: "Dear", price_cents: 9900 },
    { id: planId("yearly"), name: "Yearly", price_cents: 30000, interval: "year" },
  ];
  for (const body of plans) expect((await call("POST", "/v1/admin/plans", { ...admin, body })).status).toBe(201);
});

afterAll(async () => {
  await deleteTenants(tenants);
  await sql`delete from plans where id like ${`b-${run}-%`}`;
});

async function tenant() {
  const t = await createTenant();
  tenants.push(t.tenant.id);
  return t;
}

async function auditOf(tenantId: string, action: string) {
  const r = await call("GET", `/api/internal/audit-logs?tenant_id=${tenantId}&action=${action}`, admin);
  expect(r.status).toBe(200);
  return r.body.audit_logs as any[];
}

async function session(tenantId: string, role: Role) {
  const { token } = await sql.begin(async (t) => {
    const tx: Tx = t;
    const user = await insertUser(tx, { tenantId, email: `${role}-${crypto.randomUUID().slice(0, 6)}@billing-${run}.example`, role });
    return { user, ...(await createSession(tx, { userId: user.id, tenantId, ip: null, userAgent: null })) };
  });
  return { cookie: `${SESSION_COOKIE}=${token}`, origin: APP_ORIGIN };
}

describe("plans (admin token)", () => {
  test("create 201 with every limit (unset ones null), 409 for a taken id, 401 without the token", async () => {
    const r = await call("GET", `/v1/admin/plans/${planId("cheap")}`, admin);
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ id: planId("cheap"), name: "Cheap", price_cents: 900, currency: "usd", interval: "month", gateway_price_id: null, default: false });
    expect(r.body.data.limits).toEqual({ notifications_per_month: null, api_requests_per_minute: 7, webhooks: 1, domains: 1, team_members: 2, subscribers: 2, retention_days: null });
    const dup = await call("POST", "/v1/admin/plans", { ...admin, body: { id: planId("cheap"), name: "Again", price_cents: 1 } });
    expect(dup.status).toBe(409);
    expect(dup.body.error.code).toBe("plan_already_exists");
    expect((await call("GET", "/v1/admin/plans")).status).toBe(401);
    const t = await tenant();
    expect((await call("POST", "/v1/admin/plans", { key: t.secretKey, body: { id: planId("x"), name: "X", price_cents: 1 } })).status).toBe(401);
  });

  test("bad input is 422 with details by field and stores nothing", async () => {
    const bad = await call("POST", "/v1/admin/plans", {
      ...admin,
      body: { id: "Not A Slug", name: "", price_cents: -1, currency: "dollars", interval: "week", limits: { webhooks: -2, seats: 3 } },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.error.code).toBe("validation_failed");
    expect(Object.keys(bad.body.error.details).sort()).toEqual(expect.arrayContaining(["id", "name", "price_cents", "currency", "interval", "limits.webhooks"]));
    expect(await sql`select 1 from plans where id = 'Not A Slug'`).toHaveLength(0);
    const proto = await call("PUT", `/v1/admin/plans/${planId("mid")}`, { ...admin, rawBody: '{"limits":{"__proto__":{"webhooks":1}}}' });
    expect(proto.status).toBe(422);
    expect((await call("PUT", `/v1/admin/plans/${planId("mid")}`, { ...admin, body: {} })).status).toBe(422);
  });

  test("PUT changes the given fields, merges limits by key and bumps nothing else; 404 for an unknown plan", async () => {
    const r = await call("PUT", `/v1/admin/plans/${planId("dear")}`, { ...admin, body: { name: "Dear plan", limits: { domains: 5 }, currency: "EUR" } });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ name: "Dear plan", currency: "eur", price_cents: 9900 });
    expect(r.body.data.limits).toMatchObject({ domains: 5, webhooks: null });
    const cleared = await call("PUT", `/v1/admin/plans/${planId("dear")}`, { ...admin, body: { limits: { domains: null } } });
    expect(cleared.body.data.limits.domains).toBeNull();
    expect((await call("PUT", `/v1/admin/plans/${planId("nope")}`, { ...admin, body: { name: "x" } })).status).toBe(404);
    const list = await call("GET", "/v1/admin/plans", admin);
    const ids = list.body.data.map((p: any) => p.id);
    expect(ids).toEqual(expect.arrayContaining([planId("cheap"), planId("mid"), planId("dear"), "free"]));
    // cheapest first
    expect(ids.indexOf(planId("cheap"))).toBeLessThan(ids.indexOf(planId("dear")));
    expect(list.body.data.find((p: any) => p.id === "free").default).toBe(true);
  });
});

describe("the subscription: SPEC's audit actions", () => {
  test("a tenant that never subscribed is on the default plan; subscribe writes subscription.created {plan_id, gateway} by the api_key", async () => {
    const t = await tenant();
    const before = await call("GET", "/v1/subscription", { key: t.secretKey });
    expect(before.status).toBe(200);
    expect(before.body.data).toMatchObject({ id: null, plan_id: "free", status: "active", gateway: "manual", effective_plan_id: "free", cancel_at_period_end: false });
    // the default plan counts calendar months
    expect(before.body.data.current_period_start).toMatch(/^\d{4}-\d{2}-01T00:00:00.000Z$/);
    const r = await call("POST", "/v1/subscription", { key: t.secretKey, body: { plan_id: planId("mid") } });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ plan_id: planId("mid"), status: "active", gateway: "manual", effective_plan_id: planId("mid"), pending_plan_id: null });
    expect(r.body.data.id).toMatch(/^[0-9a-f-]{36}$/);
    const [entry] = await auditOf(t.tenant.id, "subscription.created");
    expect(entry).toMatchObject({ actor_type: "api_key", actor_id: t.secretKeyId, resource_type: "subscription", resource_id: r.body.data.id });
    expect(entry.metadata).toEqual({ plan_id: planId("mid"), gateway: "manual" });
    const again = await call("POST", "/v1/subscription", { key: t.secretKey, body: { plan_id: planId("mid") } });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("plan_already_subscribed");
    const unknown = await call("POST", "/v1/subscription", { key: t.secretKey, body: { plan_id: "no-such-plan" } });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.details.plan_id).toBeDefined();
  });

  test("upgrade applies now; downgrade waits for the period end (simulated clock) and both write subscription.plan_changed when asked", async () => {
    const t = await tenant();
    await call("POST", "/v1/subscription", { key: t.secretKey, body: { plan_id: planId("mid") } });
    const up = await call("POST", "/v1/subscription", { key: t.secretKey, body: { plan_id: planId("dear") } });
    expect(up.body.data).toMatchObject({ plan_id: planId("dear"), effective_plan_id: planId("dear"), pending_plan_id: null });
    const down = await call("POST", "/v1/subscription", { key: t.secretKey, body: { plan_id: planId("cheap") } });
    expect(down.status).toBe(200);
    // still the dear plan until the period ends
    expect(down.body.data).toMatchObject({ plan_id: planId("dear"), effective_plan_id: planId("dear"), pending_plan_id: planId("cheap") });
    const changes = (await auditOf(t.tenant.id, "subscription.plan_changed")).reverse();
    expect(changes.map((e) => e.metadata)).toEqual([
      { old_plan_id: planId("mid"), new_plan_id: planId("dear"), change_type: "upgrade" },
      { old_plan_id: planId("dear"), new_plan_id: planId("cheap"), change_type: "downgrade" },
    ]);
    for (const e of changes) expect(e.actor_type).toBe("api_key");

    // a second past the period end the cheap plan applies, in a new period from the same anchor
    const end = new Date(down.body.data.current_period_end);
    const after = new Date(end.getTime() + 1000);
    const seen = await subscriptionView(t.tenant.id, after);
    expect(seen).toMatchObject({ plan_id: planId("cheap"), effective_plan_id: planId("cheap"), pending_plan_id: null, current_period_start: end.toISOString() });
    // the billing cron persists it (and writes no second audit entry: the change was audited when asked)
    const ran = await runBillingOnce(after);
    expect(ran.rolled).toBeGreaterThanOrEqual(1);
    const [row] = await sql`select plan_id, pending_plan_id, current_period_start from subscriptions where tenant_id = ${t.tenant.id}`;
    expect(row).toMatchObject({ plan_id: planId("cheap"), pending_plan_id: null });
    expect(row!.current_period_start.toISOString()).toBe(end.toISOString());
    expect(await auditOf(t.tenant.id, "subscription.plan_changed")).toHaveLength(2);
  });

  test("a yearly plan compares by its monthly price: 30000/year (2500/month) is a downgrade from 2900/month", async () => {
    const t = await tenant();
    await call("POST", "/v1/subscription", { key: t.secretKey, body: { plan_id: planId("mid") } });
    const r = await call("POST", "/v1/subscription", { key: t.secretKey, body: { plan_id: planId("yearly") } });
    expect(r.body.data.pending_plan_id).toBe(planId("yearly"));
    const [e] = await auditOf(t.tenant.id, "subscription.plan_changed");
    expect(e.metadata.change_type).toBe("downgrade");
  });

  test("cancel at the period end, then the default plan; cancel now; subscription.cancelled {reason, cancel_at_period_end}", async () => {
    const t = await tenant();
    await call("POST", "/v1/subscription", { key: t.secretKey, body: { plan_id: planId("mid") } });
    const r = await call("POST", "/v1/subscription/cancel", { key: t.secretKey, body: { reason: "too expensive" } });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ status: "active", cancel_at_period_end: true, effective_plan_id: planId("mid") });
    const twice = await call("POST", "/v1/subscription/cancel", { key: t.secretKey, body: {} });
    expect(twice.status).toBe(409);
    expect(twice.body.error.code).toBe("subscription_not_cancellable");
    const after = new Date(new Date(r.body.data.current_period_end).getTime() + 1000);
    expect(await subscriptionView(t.tenant.id, after)).toMatchObject({ status: "cancelled", effective_plan_id: "free", cancel_at_period_end: false });
    const [entry] = await auditOf(t.tenant.id, "subscription.cancelled");
    expect(entry.metadata).toEqual({ reason: "too expensive", cancel_at_period_end: true });
    expect(entry.actor_type).toBe("api_key");

    const t2 = await tenant();
    expect((await call("POST", "/v1/subscription/cancel", { key: t2.secretKey, body: {} })).body.error.code).toBe("subscription_not_cancellable");
    await call("POST", "/v1/subscription", { key: t2.secretKey, body: { plan_id: planId("mid") } });
    const now = await call("POST", "/v1/subscription/cancel", { key: t2.secretKey, body: { at_period_end: false } });
    expect(now.body.data).toMatchObject({ status: "cancelled", effective_plan_id: "free" });
    const [e2] = await auditOf(t2.tenant.id, "subscription.cancelled");
    expect(e2.metadata).toEqual({ reason: "requested", cancel_at_period_end: false });
    // subscribing again after a cancellation is a new subscription
    const again = await call("POST", "/v1/subscription", { key: t2.secretKey, body: { plan_id: planId("cheap") } });
    expect(again.body.data).toMatchObject({ status: "active", plan_id: planId("cheap") });
    expect(again.body.data.id).not.toBe(now.body.data.id);
    expect(await auditOf(t2.tenant.id, "subscription.created")).toHaveLength(2);
  });

  test("dashboard users: only owners change the subscription (actor user); admins and members read it; read-only keys cannot", async () => {
    const t = await tenant();
    for (const role of ["member", "admin"] as const) {
      const s = await session(t.tenant.id, role);
      const headers = { cookie: s.cookie, origin: s.origin };
      expect((await call("GET", "/v1/subscription", { headers })).status).toBe(200);
      const r = await call("POST", "/v1/subscription", { headers, body: { plan_id: planId("mid") } });
      expect(r.status).toBe(403);
      expect(r.body.error.code).toBe("insufficient_permissions");
      expect((await call("POST", "/v1/subscription/cancel", { headers, body: {} })).status).toBe(403);
    }
    const owner = await session(t.tenant.id, "owner");
    const r = await call("POST", "/v1/subscription", { headers: { cookie: owner.cookie, origin: owner.origin }, body: { plan_id: planId("mid") } });
    expect(r.status).toBe(200);
    const [entry] = await auditOf(t.tenant.id, "subscription.created");
    expect(entry.actor_type).toBe("user");
    expect(entry.ip_address === null || typeof entry.ip_address === "string").toBe(true);
    const readOnly = await createKey(t.tenant.id, { permissions: ["read"] });
    expect((await call("POST", "/v1/subscription/cancel", { key: readOnly.raw, body: {} })).status).toBe(403);
    // a sandbox key reads the account's subscription but cannot change it
    expect((await call("GET", "/v1/subscription", { key: t.sandboxKey })).body.data.plan_id).toBe(planId("mid"));
    const sandbox = await call("POST", "/v1/subscription", { key: t.sandboxKey, body: { plan_id: planId("dear") } });
    expect(sandbox.status).toBe(403);
    expect(sandbox.body.error.message).toContain("sandbox key");
    expect((await call("GET", "/v1/subscription", { key: readOnly.raw })).status).toBe(200);
  });
});

describe("limits from the plan", () => {
  test("X-RateLimit-Limit is the plan's api_requests_per_minute (the default plan's: RATE_LIMIT_PER_MINUTE); 429 past it", async () => {
    const t = await tenant();
    const before = await call("GET", "/v1/subscription", { key: t.secretKey });
    expect(before.headers.get("x-ratelimit-limit")).toBe(String(config.rateLimitPerMinute));
    await call("POST", "/v1/subscription", { key: t.secretKey, body: { plan_id: planId("cheap") } });
    const key = await createKey(t.tenant.id); // a fresh budget, at the plan's rate
    const seen: number[] = [];
    let limited: Awaited<ReturnType<typeof call>> | null = null;
    for (let i = 0; i < 12 && !limited; i++) {
      const r = await call("GET", "/v1/plans", { key: key.raw });
      expect(r.headers.get("x-ratelimit-limit")).toBe("7");
      if (r.status === 429) limited = r;
      else seen.push(Number(r.headers.get("x-ratelimit-remaining")));
    }
    expect(seen.length).toBeGreaterThanOrEqual(6);
    expect(seen.length).toBeLessThanOrEqual(7);
    expect(limited?.body.error.code).toBe("rate_limited");
    expect(Number(limited?.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  test("webhooks: the plan's count refuses the next production one with 402 plan_limit_reached; sandbox never counts", async () => {
    const t = await tenant();
    await call("POST", "/v1/subscription", { key: t.secretKey, body: { plan_id: planId("cheap") } });
    const hook = (key: string) => call("POST", "/v1/webhooks", { key, body: { url: "https://example.com/hooks/billing", events: ["notification.delivered"] } });
    expect((await hook(t.secretKey)).status).toBe(201);
    const second = await hook(t.secretKey);
    expect(second.status).toBe(402);
    expect(second.body.error).toMatchObject({ code: "plan_limit_reached" });
    expect(second.body.error.details).toMatchObject({ webhooks: [expect.stringContaining("at most 1")], limit: ["1"], plan_id: [planId("cheap")] });
    expect((await hook(t.sandboxKey)).status).toBe(201);
    expect((await hook(t.sandboxKey)).status).toBe(201);
    const [{ n }] = (await sql`select count(*)::int as n from webhooks where tenant_id = ${t.tenant.id} and environment = 'production'`) as any;
    expect(n).toBe(1);
    // an upgrade lifts the limit at once
    await call("POST", "/v1/subscription", { key: t.secretKey, body: { plan_id: planId("mid") } });
    expect((await hook(t.secretKey)).status).toBe(201);
  });

  test("subscribers: creation and import past the limit are refused whole (402); updating an existing one is not a creation", async () => {
    const t = await tenant();
    await call("POST", "/v1/subscription", { key: t.secretKey, body: { plan_id: planId("cheap") } });
    const sub = (external_id: string, name?: string) => call("POST", "/v1/subscribers", { key: t.secretKey, body: { external_id, ...(name ? { name } : {}) } });
    expect((await sub("u1")).status).toBe(201);
    expect((await sub("u2")).status).toBe(201);
    const third = await sub("u3");
    expect(third.status).toBe(402);
    expect(third.body.error.code).toBe("plan_limit_reached");
    expect((await sub("u1", "Renamed")).status).toBe(200);
    const imp = await call("POST", "/v1/subscribers/import", { key: t.secretKey, body: { subscribers: [{ external_id: "u2", name: "Two" }, { external_id: "u4" }] } });
    expect(imp.status).toBe(402);
    const rows = await sql`select external_id, name from subscribers where tenant_id = ${t.tenant.id} order by external_id`;
    expect(rows.map((r) => `${r.external_id}:${r.name}`)).toEqual(["u1:Renamed", "u2:null"]);
    expect((await call("POST", "/v1/subscribers", { key: t.sandboxKey, body: { external_id: "u3" } })).status).toBe(201);
  });

  test("sending domains: the second production domain is 402 on a one-domain plan; sandbox ones never count", async () => {
    const t = await tenant();
    await call("POST", "/v1/subscription", { key: t.secretKey, body: { plan_id: planId("cheap") } });
    const add = (key: string, name: string) => call("POST", "/v1/domains", { key, body: { domain: `${name}-${run}.example.com` } });
    expect((await add(t.secretKey, "one")).status).toBe(201);
    const second = await add(t.secretKey, "two");
    expect(second.status).toBe(402);
    expect(second.body.error).toMatchObject({ code: "plan_limit_reached", details: { domains: [expect.stringContaining("at most 1")] } });
    expect((await add(t.sandboxKey, "three")).status).toBe(201);
    expect(await sql`select domain from sending_domains where tenant_id = ${t.tenant.id} and environment = 'production'`).toHaveLength(1);
    expect(await auditOf(t.tenant.id, "domain.added")).toHaveLength(2);
  });

  test("concurrent creations cannot pass the limit together (the check runs under the tenant's lock)", async () => {
    const t = await tenant();
    // mid: 3 webhooks, no request rate of its own (cheap's 7 a minute would answer 429 here)
    await call("POST", "/v1/subscription", { key: t.secretKey, body: { plan_id: planId("mid") } });
    const create = (i: number) => call("POST", "/v1/webhooks", { key: t.secretKey, body: { url: `https://example.com/hooks/${i}`, events: ["notification.failed"] } });
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => create(i)));
    expect(results.map((r) => r.status).sort()).toEqual([201, 201, 201, 402, 402, 402, 402, 402]);
    const subs = await Promise.all(Array.from({ length: 6 }, (_, i) => call("POST", "/v1/subscribers", { key: t.secretKey, body: { external_id: `c${i}` } })));
    expect(subs.every((r) => r.status === 201)).toBe(true); // mid does not limit subscribers
  });

  test("team members: an invitation past the plan's team_members is 402", async () => {
    const t = await tenant();
    await call("POST", "/v1/subscription", { key: t.secretKey, body: { plan_id: planId("cheap") } });
    const owner = await session(t.tenant.id, "owner");
    const headers = { cookie: owner.cookie, origin: owner.origin };
    const invite = (email: string) => call("POST", "/v1/team/members", { headers, body: { email, role: "member" } });
    expect((await invite(`m1-${run}@billing-${run}.example`)).status).toBe(201);
    const r = await invite(`m2-${run}@billing-${run}.example`);
    expect(r.status).toBe(402);
    expect(r.body.error.details.team_members).toBeDefined();
    expect(await sql`select 1 from users where email = ${`m2-${run}@billing-${run}.example`}`).toHaveLength(0);
  });

  test("GET /v1/subscription shows the limits in force and the usage", async () => {
    const t = await tenant();
    await call("POST", "/v1/subscription", { key: t.secretKey, body: { plan_id: planId("cheap") } });
    await call("POST", "/v1/subscribers", { key: t.secretKey, body: { external_id: "one" } });
    const r = await call("GET", "/v1/subscription", { key: t.sandboxKey });
    expect(r.body.data.limits).toMatchObject({ webhooks: 1, subscribers: 2, api_requests_per_minute: 7 });
    expect(r.body.data.usage).toEqual({ notifications_this_period: 0, webhooks: 0, domains: 0, team_members: 0, subscribers: 1 });
    expect(r.body.data.grace_period_days).toBe(config.billing.graceDays);
  });
});
