// The Stripe gateway end to end against a local Stripe (test/support/fake-stripe.ts) through the
// adapter production uses: customer and subscription creation, upgrade (prorated now) and downgrade
// (from the next period), signed webhook events with a good, a bad and a replayed signature, a failed
// payment (past_due, subscription.payment_failed by the system), and expiry by the billing cron on a simulated clock.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ADMIN_TOKEN, call, createTenant } from "../support/fixtures";
import { startFakeStripe, stripeSignature, type FakeStripe } from "../support/fake-stripe";
import { deleteTenants } from "../support/tenant-cleanup";
import { forgetBilling } from "../../domain/billing/cache";
import { startBillingCron } from "../../jobs/billing-cron";
import { sql } from "../../store/db";

const run = crypto.randomUUID().slice(0, 8);
const admin = { key: ADMIN_TOKEN };
const tenants: string[] = [];
const plan = (n: string) => `s-${run}-${n}`;
const ENV = ["STRIPE_SECRET_KEY", "STRIPE_WEBHOOK_SECRET", "STRIPE_API_BASE"] as const;
const saved: Record<string, string | undefined> = {};
let stripe: FakeStripe;

beforeAll(async () => {
  stripe = await startFakeStripe();
  for (const k of ENV) saved[k] = process.env[k];
  // config reads these at each use (config.billing.stripe): this file's app calls the fake
  process.env.STRIPE_SECRET_KEY = stripe.secretKey;
  process.env.STRIPE_WEBHOOK_SECRET = stripe.webhookSecret;
  process.env.STRIPE_API_BASE = stripe.url;
  const plans = [
    { id: plan("basic"), name: "Basic", price_cents: 1900, gateway_price_id: `price_basic_${run}`, limits: { notifications_per_month: 1000 } },
    { id: plan("pro"), name: "Pro", price_cents: 4900, gateway_price_id: `price_pro_${run}` },
    { id: plan("unpriced"), name: "Unpriced", price_cents: 2500 },
  ];
  for (const body of plans) expect((await call("POST", "/v1/admin/plans", { ...admin, body })).status).toBe(201);
});

afterAll(async () => {
  for (const k of ENV) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
  await stripe?.stop();
  await deleteTenants(tenants);
  await sql`delete from plans where id like ${`s-${run}-%`}`;
});

async function tenant() {
  const t = await createTenant();
  tenants.push(t.tenant.id);
  return t;
}

async function auditOf(tenantId: string, action: string) {
  const r = await call("GET", `/api/internal/audit-logs?tenant_id=${tenantId}&action=${action}`, admin);
  return r.body.audit_logs as any[];
}

function deliver(e: { body: string; signature: string }, signature = e.signature) {
  return call("POST", "/webhooks/billing/stripe", { rawBody: e.body, headers: { "stripe-signature": signature, "content-type": "application/json" } });
}

async function subscribed(planId: string) {
  const t = await tenant();
  const r = await call("POST", "/v1/subscription", { key: t.secretKey, body: { plan_id: planId } });
  expect(r.status).toBe(200);
  const [row] = await sql`select * from subscriptions where tenant_id = ${t.tenant.id}`;
  return { t, view: r.body.data, row: row! };
}

describe("subscribing through Stripe", () => {
  test("a paid plan creates the customer and the subscription at Stripe; the period is Stripe's; subscription.created {plan_id, gateway: stripe}", async () => {
    const before = stripe.requests.length;
    const { t, view, row } = await subscribed(plan("basic"));
    const calls = stripe.requests.slice(before);
    expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual(["POST /v1/customers", "POST /v1/subscriptions"]);
    expect(calls[0]!.params.metadata).toEqual({ tenant_id: t.tenant.id });
    expect(calls[1]!.params).toMatchObject({ customer: row.gateway_customer_id, items: [{ price: `price_basic_${run}` }], payment_behavior: "allow_incomplete" });
    for (const c of calls) {
      expect(c.idempotencyKey).toBeTruthy();
      expect(c.stripeVersion).toMatch(/^\d{4}-\d{2}-\d{2}\./);
    }
    const sub = stripe.subscriptions.get(row.gateway_subscription_id)!;
    expect(view).toMatchObject({ plan_id: plan("basic"), status: "active", gateway: "stripe" });
    expect(view.current_period_end).toBe(new Date(sub.items.data[0].current_period_end * 1000).toISOString());
    const [entry] = await auditOf(t.tenant.id, "subscription.created");
    expect(entry.metadata).toEqual({ plan_id: plan("basic"), gateway: "stripe" });
  });

  test("upgrade: Stripe's price changes with proration now; downgrade: without proration, our plan at the period end", async () => {
    const { t, row } = await subscribed(plan("basic"));
    const up = await call("POST", "/v1/subscription", { key: t.secretKey, body: { plan_id: plan("pro") } });
    expect(up.body.data).toMatchObject({ plan_id: plan("pro"), pending_plan_id: null });
    const sub = stripe.subscriptions.get(row.gateway_subscription_id)!;
    expect(sub.items.data[0].price.id).toBe(`price_pro_${run}`);
    expect(sub.last_proration_behavior).toBe("always_invoice");
    const down = await call("POST", "/v1/subscription", { key: t.secretKey, body: { plan_id: plan("basic") } });
    expect(down.body.data).toMatchObject({ plan_id: plan("pro"), pending_plan_id: plan("basic") });
    expect(sub.items.data[0].price.id).toBe(`price_basic_${run}`);
    expect(sub.last_proration_behavior).toBe("none");
    // Stripe starts the next period: the waiting downgrade applies
    const next = sub.items.data[0].current_period_end;
    const e = stripe.signedEvent("customer.subscription.updated", stripe.subscriptionObject(sub.id, { items: { object: "list", data: [{ ...sub.items.data[0], current_period_start: next, current_period_end: next + 30 * 86400 }] } }));
    expect((await deliver(e)).body).toEqual({ received: true, duplicate: false, applied: true });
    const now = await call("GET", "/v1/subscription", { key: t.secretKey });
    expect(now.body.data).toMatchObject({ plan_id: plan("basic"), pending_plan_id: null, current_period_start: new Date(next * 1000).toISOString() });
  });

  test("a plan without gateway_price_id is refused (422 plan_not_billable); a Stripe refusal is 502 gateway_error and changes nothing", async () => {
    const t = await tenant();
    const r = await call("POST", "/v1/subscription", { key: t.secretKey, body: { plan_id: plan("unpriced") } });
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe("plan_not_billable");
    stripe.declineNext = true;
    const declined = await call("POST", "/v1/subscription", { key: t.secretKey, body: { plan_id: plan("basic") } });
    expect(declined.status).toBe(502);
    expect(declined.body.error.code).toBe("gateway_error");
    expect(declined.body.error.message).toContain("Your card was declined");
    expect(await sql`select 1 from subscriptions where tenant_id = ${t.tenant.id}`).toHaveLength(0);
    expect(await auditOf(t.tenant.id, "subscription.created")).toHaveLength(0);
  });
});

describe("Stripe's signed events", () => {
  test("good, bad and replayed signatures: only the good one applies, once", async () => {
    const { t, row } = await subscribed(plan("basic"));
    const invoice = stripe.invoiceObject(row.gateway_subscription_id, { number: "NMS-0001", amount: 1900, paid: false });
    const e = stripe.signedEvent("invoice.payment_failed", invoice);

    // bad: signed with another secret, a tampered body, no header, a garbage header
    const forged = stripe.signedEvent("invoice.payment_failed", invoice, { id: e.id, secret: "whsec_not_the_secret" });
    for (const attempt of [
      await deliver(forged),
      await deliver({ body: e.body.replace("NMS-0001", "NMS-9999"), signature: e.signature }),
      await call("POST", "/webhooks/billing/stripe", { rawBody: e.body }),
      await deliver(e, "t=1,v1=00"),
    ]) {
      expect(attempt.status).toBe(401);
      expect(attempt.body.error.code).toBe("invalid_signature");
    }
    expect((await sql`select status from subscriptions where tenant_id = ${t.tenant.id}`)[0]!.status).toBe("active");

    // good
    const ok = await deliver(e);
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ received: true, duplicate: false, applied: true });
    // the same delivery again (Stripe retries): nothing more
    const again = await deliver(e);
    expect(again.body).toEqual({ received: true, duplicate: true, applied: false });
    // a captured delivery replayed after Stripe's 5-minute tolerance: refused before it is read
    const old = Math.floor(Date.now() / 1000) - 600;
    const replayed = await deliver({ body: e.body, signature: stripeSignature(e.body, stripe.webhookSecret, old) });
    expect(replayed.status).toBe(401);
    expect(replayed.body.error.message).toMatch(/tolerance/i);

    const entries = await auditOf(t.tenant.id, "subscription.payment_failed");
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ actor_type: "system", actor_id: null, ip_address: null, user_agent: null, resource_type: "subscription", resource_id: row.id });
    expect(entries[0].metadata).toEqual({ invoice_id: invoice.id, invoice_number: "NMS-0001", amount_cents: 1900, reason: "payment attempt 1 failed" });
    const view = await call("GET", "/v1/subscription", { key: t.secretKey });
    expect(view.body.data).toMatchObject({ status: "past_due", effective_plan_id: plan("basic") });
    expect(view.body.data.past_due_since).not.toBeNull();

    // invoice.paid brings it back
    const paid = stripe.signedEvent("invoice.paid", stripe.invoiceObject(row.gateway_subscription_id, { id: invoice.id, amount: 1900, paid: true }));
    expect((await deliver(paid)).body.applied).toBe(true);
    expect((await call("GET", "/v1/subscription", { key: t.secretKey })).body.data).toMatchObject({ status: "active", past_due_since: null });
  });

  test("an event for no known subscription, or of another type, is acknowledged and changes nothing", async () => {
    const unknown = stripe.signedEvent("invoice.paid", { id: "in_x", object: "invoice", amount_due: 1, parent: { subscription_details: { subscription: "sub_unknown" } } });
    expect((await deliver(unknown)).body).toEqual({ received: true, duplicate: false, applied: false });
    const other = stripe.signedEvent("customer.created", { id: "cus_x", object: "customer" });
    expect((await deliver(other)).body).toEqual({ received: true, duplicate: false, applied: false });
    await sql`delete from billing_gateway_events where event_id in ${sql([unknown.id, other.id])}`;
  });

  test("customer.subscription.deleted that Stripe decided: cancelled, subscription.cancelled by the system; a requested one is not audited twice", async () => {
    const { t, row } = await subscribed(plan("basic"));
    const e = stripe.signedEvent("customer.subscription.deleted", stripe.subscriptionObject(row.gateway_subscription_id, { status: "canceled", cancellation_details: { reason: "payment_failed" } }));
    expect((await deliver(e)).body.applied).toBe(true);
    const [entry] = await auditOf(t.tenant.id, "subscription.cancelled");
    expect(entry).toMatchObject({ actor_type: "system", actor_id: null });
    expect(entry.metadata).toEqual({ reason: "gateway: payment_failed", cancel_at_period_end: false });
    expect((await call("GET", "/v1/subscription", { key: t.secretKey })).body.data).toMatchObject({ status: "cancelled", effective_plan_id: "free" });

    const second = await subscribed(plan("basic"));
    const asked = await call("POST", "/v1/subscription/cancel", { key: second.t.secretKey, body: { reason: "closing the company" } });
    expect(asked.body.data.cancel_at_period_end).toBe(true);
    expect(stripe.subscriptions.get(second.row.gateway_subscription_id)!.cancel_at_period_end).toBe(true);
    const ended = stripe.signedEvent("customer.subscription.deleted", stripe.subscriptionObject(second.row.gateway_subscription_id, { status: "canceled" }));
    expect((await deliver(ended)).body.applied).toBe(true);
    const entries = await auditOf(second.t.tenant.id, "subscription.cancelled");
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ actor_type: "api_key", metadata: { reason: "closing the company", cancel_at_period_end: true } });
  });
});

describe("a downgrade to a plan Stripe does not sell", () => {
  test("the free plan: Stripe cancels at the period end, then the tenant is on free with gateway manual, and no cancellation is audited", async () => {
    const { t, row } = await subscribed(plan("basic"));
    const down = await call("POST", "/v1/subscription", { key: t.secretKey, body: { plan_id: "free" } });
    expect(down.body.data).toMatchObject({ plan_id: plan("basic"), pending_plan_id: "free", gateway: "stripe" });
    const sub = stripe.subscriptions.get(row.gateway_subscription_id)!;
    expect(sub.cancel_at_period_end).toBe(true);
    // Stripe echoes its cancel_at_period_end back: the downgrade still waits, it is not a cancellation
    expect((await deliver(stripe.signedEvent("customer.subscription.updated", stripe.subscriptionObject(sub.id)))).body.applied).toBe(true);
    expect((await call("GET", "/v1/subscription", { key: t.secretKey })).body.data).toMatchObject({ pending_plan_id: "free", effective_plan_id: plan("basic") });
    expect((await deliver(stripe.signedEvent("customer.subscription.deleted", stripe.subscriptionObject(sub.id, { status: "canceled" })))).body.applied).toBe(true);
    const after = await call("GET", "/v1/subscription", { key: t.secretKey });
    expect(after.body.data).toMatchObject({ plan_id: "free", status: "active", gateway: "manual", pending_plan_id: null, effective_plan_id: "free" });
    expect(await auditOf(t.tenant.id, "subscription.cancelled")).toHaveLength(0);
    const [change] = await auditOf(t.tenant.id, "subscription.plan_changed");
    expect(change.metadata).toEqual({ old_plan_id: plan("basic"), new_plan_id: "free", change_type: "downgrade" });
  });
});

describe("past_due, then expired by the billing cron (simulated clock)", () => {
  test("a failed payment starts the grace period; 8 days later the cron expires it: subscription.expired {reason, days_overdue} by the system, Stripe's subscription ended, the default plan's limits", async () => {
    const { t, row } = await subscribed(plan("basic"));
    const failed = stripe.signedEvent("invoice.payment_failed", stripe.invoiceObject(row.gateway_subscription_id, { number: "NMS-0002", amount: 1900, paid: false, failure: "Your card has insufficient funds." }));
    expect((await deliver(failed)).body.applied).toBe(true);
    const [pf] = await auditOf(t.tenant.id, "subscription.payment_failed");
    expect(pf.metadata.reason).toBe("Your card has insufficient funds.");
    const [{ past_due_since }] = (await sql`select past_due_since from subscriptions where tenant_id = ${t.tenant.id}`) as any;

    // six days on: still in its grace period
    let clock = new Date(past_due_since.getTime() + 6 * 86_400_000);
    const cron = startBillingCron({ everyMs: 50, now: () => clock });
    try {
      const deadline = Date.now() + 15_000;
      while (cron.runs < 2 && Date.now() < deadline) await Bun.sleep(25);
      expect(cron.runs).toBeGreaterThanOrEqual(2);
      expect((await sql`select status from subscriptions where tenant_id = ${t.tenant.id}`)[0]!.status).toBe("past_due");
      // eight days on: expired
      clock = new Date(past_due_since.getTime() + 8 * 86_400_000 + 60_000);
      let status = "past_due";
      while (status !== "expired" && Date.now() < deadline) {
        await Bun.sleep(25);
        status = (await sql`select status from subscriptions where tenant_id = ${t.tenant.id}`)[0]!.status;
      }
      expect(status).toBe("expired");
    } finally {
      await cron.stop();
    }
    const [entry] = await auditOf(t.tenant.id, "subscription.expired");
    expect(entry).toMatchObject({ actor_type: "system", actor_id: null, ip_address: null, resource_id: row.id });
    expect(entry.metadata).toEqual({ reason: "payment_overdue", days_overdue: 8 });
    expect(await auditOf(t.tenant.id, "subscription.expired")).toHaveLength(1);
    expect(stripe.subscriptions.get(row.gateway_subscription_id)!.status).toBe("canceled");
    forgetBilling(t.tenant.id);
    const view = await call("GET", "/v1/subscription", { key: t.secretKey });
    expect(view.body.data).toMatchObject({ status: "expired", effective_plan_id: "free", plan_id: plan("basic") });
    expect(view.body.data.limits.notifications_per_month).toBeNull();
    // a late Stripe event for the expired subscription changes nothing
    const late = stripe.signedEvent("invoice.paid", stripe.invoiceObject(row.gateway_subscription_id, { amount: 1900, paid: true }));
    expect((await deliver(late)).body).toEqual({ received: true, duplicate: false, applied: false });
    // subscribing again starts a new subscription (and reuses the Stripe customer)
    const before = stripe.requests.length;
    const again = await call("POST", "/v1/subscription", { key: t.secretKey, body: { plan_id: plan("basic") } });
    expect(again.body.data).toMatchObject({ status: "active", gateway: "stripe" });
    expect(stripe.requests.slice(before).map((c) => c.path)).toEqual(["/v1/subscriptions"]);
  });

  test("an incomplete first payment (no card on file) is past_due with the invoice's payment page", async () => {
    stripe.nextStatus = "incomplete";
    try {
      const { view } = await subscribed(plan("basic"));
      expect(view).toMatchObject({ status: "past_due", gateway: "stripe" });
      expect(view.payment_url).toMatch(/^https:\/\/invoice\.stripe\.test\//);
    } finally {
      stripe.nextStatus = "active";
    }
  });
});
