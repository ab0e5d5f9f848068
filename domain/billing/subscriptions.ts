// A tenant's subscription changes (POST /v1/subscription and /cancel): subscribe, upgrade now,
// downgrade at period end, cancel; through the plan's gateway, each with its subscription.* audit entry.
import { AppError, conflict } from "../../basics/errors";
import { logger } from "../../basics/log";
import { GatewayError, type GatewaySubscription, type PaymentGateway } from "../../providers/billing/types";
import type { GatewayName } from "../../schemas/billing";
import { sql, type Tx } from "../../store/db";
import { newId } from "../../store/ids";
import type { PlanRow } from "../../store/plans";
import { changeSubscription, lockSubscription, putSubscription, type SubscriptionRow } from "../../store/subscriptions";
import { findTenant } from "../../store/tenants";
import { auditSubscription, type BillingActor } from "./audit";
import { forgetBilling, planFrom, plansById } from "./cache";
import { gatewayFor, gatewayNamed } from "./gateways";
import { addIntervals } from "./periods";
import { subscribablePlan } from "./plans";
import { rollForward } from "./roll";
import { changeTypeOf } from "./change-type";


function gatewayFailure(err: unknown): never {
  if (err instanceof GatewayError) throw new AppError("gateway_error", `${err.message}; nothing changed`);
  throw err;
}

const LIVE = new Set(["trialing", "active", "past_due"]);

function fromGateway(g: GatewaySubscription) {
  return {
    gateway_customer_id: g.customerId,
    gateway_subscription_id: g.subscriptionId,
    status: g.status,
    current_period_start: g.periodStart,
    current_period_end: g.periodEnd,
    cancel_at_period_end: g.cancelAtPeriodEnd,
    past_due_since: g.status === "past_due" ? new Date() : null,
    payment_url: g.paymentUrl,
  };
}

async function startSubscription(tx: Tx, actor: BillingActor, plan: PlanRow, prior: SubscriptionRow | undefined, email: string | null, now: Date): Promise<SubscriptionRow> {
  const { name: gateway, gateway: gw } = gatewayFor(plan);
  const base = {
    tenant_id: actor.tenantId,
    id: newId(),
    plan_id: plan.id,
    pending_plan_id: null,
    status: "active" as const,
    gateway,
    gateway_customer_id: prior?.gateway_customer_id ?? null,
    gateway_subscription_id: null,
    anchor_at: now,
    current_period_start: now,
    current_period_end: addIntervals(now, plan.interval, 1),
    cancel_at_period_end: false,
    past_due_since: null,
    cancelled_at: null,
    expired_at: null,
    payment_url: null,
  };
  let row: SubscriptionRow;
  if (gw) {
    const tenant = await findTenant(actor.tenantId, tx);
    const g = await gw
      .subscribe({
        tenantId: actor.tenantId,
        tenantName: tenant?.name ?? actor.tenantId,
        customerId: prior?.gateway_customer_id ?? null,
        email,
        price: { priceId: plan.gateway_price_id! },
        idempotencyKey: `nms-${actor.tenantId}-${prior?.revision ?? 0}-subscribe-${plan.id}`,
      })
      .catch(gatewayFailure);
    row = await putSubscription(tx, { ...base, ...fromGateway(g), anchor_at: g.periodStart });
  } else {
    row = await putSubscription(tx, base);
  }
  await auditSubscription(tx, actor, row.id, { action: "subscription.created", metadata: { plan_id: plan.id, gateway } });
  return row;
}

async function changeLivePlan(tx: Tx, actor: BillingActor, cur: SubscriptionRow, from: PlanRow, to: PlanRow, email: string | null, now: Date): Promise<SubscriptionRow> {
  const changeType = changeTypeOf(from, to);
  const target = gatewayFor(to);
  const gw = gatewayNamed(cur.gateway);
  const key = `nms-${actor.tenantId}-${cur.revision}-change-${to.id}`;
  let row: SubscriptionRow;
  if (cur.gateway === "manual" && target.gateway) {
    // from billing outside the service to Stripe: a Stripe subscription starts now, whatever the prices
    const tenant = await findTenant(actor.tenantId, tx);
    const g = await target.gateway
      .subscribe({ tenantId: actor.tenantId, tenantName: tenant?.name ?? actor.tenantId, customerId: cur.gateway_customer_id, email, price: { priceId: to.gateway_price_id! }, idempotencyKey: key })
      .catch(gatewayFailure);
    row = await changeSubscription(tx, actor.tenantId, { plan_id: to.id, pending_plan_id: null, gateway: "stripe", ...fromGateway(g), anchor_at: g.periodStart });
  } else if (changeType === "upgrade") {
    let change = {};
    if (gw && cur.gateway_subscription_id) {
      if (!to.gateway_price_id) gatewayFor(to); // throws plan_not_billable
      const g = await gw.changePrice(cur.gateway_subscription_id, { priceId: to.gateway_price_id! }, { prorateNow: true, idempotencyKey: key }).catch(gatewayFailure);
      change = fromGateway(g);
    }
    row = await changeSubscription(tx, actor.tenantId, { ...change, plan_id: to.id, pending_plan_id: null, cancel_at_period_end: false });
  } else {
    // a downgrade keeps the paid plan to the period end; the gateway bills the new price from the next period
    // (a move to a plan the gateway does not sell ends the gateway subscription then; see applyGatewayEvent)
    if (gw && cur.gateway_subscription_id) {
      if (to.gateway_price_id && to.price_cents > 0) {
        await gw.changePrice(cur.gateway_subscription_id, { priceId: to.gateway_price_id }, { prorateNow: false, idempotencyKey: key }).catch(gatewayFailure);
      } else {
        await gw.cancel(cur.gateway_subscription_id, { atPeriodEnd: true, idempotencyKey: key }).catch(gatewayFailure);
      }
    }
    row = await changeSubscription(tx, actor.tenantId, { pending_plan_id: to.id, cancel_at_period_end: false });
  }
  await auditSubscription(tx, actor, row.id, { action: "subscription.plan_changed", metadata: { old_plan_id: from.id, new_plan_id: to.id, change_type: changeType } });
  logger.info({ tenant_id: actor.tenantId, from: from.id, to: to.id, change_type: changeType, gateway: row.gateway }, "subscription plan changed");
  return row;
}

/**
 * POST /v1/subscription: subscribes (no live subscription: subscription.created) or changes plan
 * (subscription.plan_changed: an upgrade applies now, a downgrade at the period end). Holds the
 * tenant's lock through the gateway call, so two requests of one tenant cannot both subscribe.
 */
export async function subscribe(actor: BillingActor, planId: string, opts: { email?: string | null; now?: Date } = {}): Promise<SubscriptionRow> {
  const now = opts.now ?? new Date();
  const to = await subscribablePlan(planId);
  const row = await sql.begin(async (tx) => {
    const stored = await lockSubscription(tx, actor.tenantId);
    const cur = stored ? await rollForward(tx, stored, now) : undefined;
    if (!cur || !LIVE.has(cur.status)) {
      return await startSubscription(tx, actor, to, cur, opts.email ?? null, now);
    }
    if (cur.plan_id === to.id && !cur.pending_plan_id && !cur.cancel_at_period_end) {
      throw conflict("plan_already_subscribed", `The subscription is on the ${to.id} plan already`);
    }
    const from = planFrom(await plansById(), cur.plan_id);
    if (cur.plan_id === to.id) {
      // back to the current plan before a waiting downgrade or cancellation took effect: both are dropped
      const change = await changeSubscription(tx, actor.tenantId, { pending_plan_id: null, cancel_at_period_end: false });
      const gw = gatewayNamed(cur.gateway);
      if (gw && cur.gateway_subscription_id && to.gateway_price_id) {
        await gw.changePrice(cur.gateway_subscription_id, { priceId: to.gateway_price_id }, { prorateNow: false, idempotencyKey: `nms-${actor.tenantId}-${cur.revision}-keep-${to.id}` }).catch(gatewayFailure);
      }
      await auditSubscription(tx, actor, change.id, { action: "subscription.plan_changed", metadata: { old_plan_id: cur.pending_plan_id ?? cur.plan_id, new_plan_id: to.id, change_type: "upgrade" } });
      return change;
    }
    return await changeLivePlan(tx, actor, cur, from, to, opts.email ?? null, now);
  });
  forgetBilling(actor.tenantId);
  return row;
}

/** POST /v1/subscription/cancel: at the period end (default) or now; subscription.cancelled. */
export async function cancel(actor: BillingActor, opts: { reason?: string; atPeriodEnd?: boolean; now?: Date } = {}): Promise<SubscriptionRow> {
  const now = opts.now ?? new Date();
  const atPeriodEnd = opts.atPeriodEnd ?? true;
  const reason = opts.reason ?? "requested";
  const row = await sql.begin(async (tx) => {
    const stored = await lockSubscription(tx, actor.tenantId);
    const cur = stored ? await rollForward(tx, stored, now) : undefined;
    if (!cur || !LIVE.has(cur.status)) {
      throw new AppError("subscription_not_cancellable", cur ? `The subscription is ${cur.status} already` : "There is no subscription to cancel: the tenant is on the default plan");
    }
    if (atPeriodEnd && cur.cancel_at_period_end) {
      throw new AppError("subscription_not_cancellable", `The subscription ends at ${cur.current_period_end.toISOString()} already`);
    }
    const gw: PaymentGateway | null = gatewayNamed(cur.gateway as GatewayName);
    if (gw && cur.gateway_subscription_id) {
      await gw.cancel(cur.gateway_subscription_id, { atPeriodEnd, idempotencyKey: `nms-${actor.tenantId}-${cur.revision}-cancel-${atPeriodEnd ? "end" : "now"}` }).catch(gatewayFailure);
    }
    const changed = atPeriodEnd
      ? await changeSubscription(tx, actor.tenantId, { cancel_at_period_end: true, pending_plan_id: null })
      : await changeSubscription(tx, actor.tenantId, { status: "cancelled", cancelled_at: now, cancel_at_period_end: false, pending_plan_id: null, payment_url: null });
    await auditSubscription(tx, actor, changed.id, { action: "subscription.cancelled", metadata: { reason, cancel_at_period_end: atPeriodEnd } });
    return changed;
  });
  forgetBilling(actor.tenantId);
  logger.info({ tenant_id: actor.tenantId, at_period_end: atPeriodEnd }, "subscription cancelled");
  return row;
}
