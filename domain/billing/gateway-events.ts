// Applying a payment gateway's signed webhook events (POST /webhooks/billing/<gateway>): a paid
// invoice, a failed payment (past_due, subscription.payment_failed), a subscription updated or ended there. Each event id applies once.
import { AppError } from "../../basics/errors";
import { logger } from "../../basics/log";
import { GatewaySignatureError, type GatewayEvent, type GatewaySubscription } from "../../providers/billing/types";
import { sql, type Tx } from "../../store/db";
import { changeSubscription, findByGatewaySubscription, recordGatewayEvent, type SubscriptionChange, type SubscriptionRow } from "../../store/subscriptions";
import { auditSubscription, systemActor } from "./audit";
import { forgetBilling, planFrom, plansById } from "./cache";
import { stripeGateway } from "./gateways";
import { periodAt } from "./periods";

const LIVE = new Set(["trialing", "active", "past_due"]);

export interface ReceivedEvent {
  duplicate: boolean;
  applied: boolean;
}

function subscriptionIdOf(e: GatewayEvent): string | null {
  if (e.kind === "invoice_paid" || e.kind === "payment_failed") return e.subscriptionId;
  if (e.kind === "subscription_updated" || e.kind === "subscription_deleted") return e.subscription.subscriptionId;
  return null;
}

/** The gateway's view of the period and status, with a waiting downgrade applied once a new period began. */
function synced(row: SubscriptionRow, g: GatewaySubscription, now: Date): SubscriptionChange {
  const change: SubscriptionChange = {
    current_period_start: g.periodStart,
    current_period_end: g.periodEnd,
    cancel_at_period_end: g.cancelAtPeriodEnd,
    payment_url: g.paymentUrl,
  };
  if (g.status === "past_due") Object.assign(change, { status: "past_due", past_due_since: row.past_due_since ?? now });
  else if (g.status === "active" || g.status === "trialing") Object.assign(change, { status: g.status, past_due_since: null });
  if (row.pending_plan_id && g.periodStart.getTime() > row.current_period_start.getTime()) Object.assign(change, { plan_id: row.pending_plan_id, pending_plan_id: null });
  return change;
}

async function apply(tx: Tx, row: SubscriptionRow, e: GatewayEvent, now: Date): Promise<boolean> {
  if (!LIVE.has(row.status)) return false; // ended here already (cancelled now, or expired): the gateway is catching up
  switch (e.kind) {
    case "invoice_paid":
      if (row.status === "past_due") await changeSubscription(tx, row.tenant_id, { status: "active", past_due_since: null, payment_url: null });
      return true;
    case "payment_failed": {
      await changeSubscription(tx, row.tenant_id, { status: "past_due", past_due_since: row.past_due_since ?? now });
      await auditSubscription(tx, systemActor(row.tenant_id), row.id, {
        action: "subscription.payment_failed",
        metadata: { invoice_id: e.invoice.id, invoice_number: e.invoice.number, amount_cents: e.invoice.amountCents, reason: e.invoice.failureReason ?? "payment_failed" },
      });
      logger.warn({ tenant_id: row.tenant_id, invoice_id: e.invoice.id, amount_cents: e.invoice.amountCents }, "subscription payment failed; past_due until paid or the grace period ends");
      return true;
    }
    case "subscription_updated":
      await changeSubscription(tx, row.tenant_id, synced(row, e.subscription, now));
      return true;
    case "subscription_deleted": {
      if (row.pending_plan_id) {
        // a downgrade to a plan the gateway does not sell: it ended the paid subscription at the period end
        const plan = planFrom(await plansById(), row.pending_plan_id);
        const period = periodAt(row.current_period_end, plan.interval, now);
        await changeSubscription(tx, row.tenant_id, {
          plan_id: plan.id, pending_plan_id: null, gateway: "manual", gateway_subscription_id: null, status: "active", anchor_at: row.current_period_end,
          current_period_start: period.start, current_period_end: period.end, cancel_at_period_end: false, past_due_since: null, payment_url: null,
        });
        return true;
      }
      await changeSubscription(tx, row.tenant_id, { status: "cancelled", cancelled_at: now, past_due_since: null, payment_url: null });
      // asked for here (at the period end) it was audited then; otherwise the gateway ended it
      if (!row.cancel_at_period_end) {
        await auditSubscription(tx, systemActor(row.tenant_id), row.id, { action: "subscription.cancelled", metadata: { reason: `gateway: ${e.reason}`, cancel_at_period_end: false } });
      }
      return true;
    }
    default:
      return false;
  }
}

/**
 * Verifies a Stripe webhook delivery and applies it once: 401 invalid_signature for a bad, missing
 * or too old signature (a replay of an old delivery), a no-op for an event id applied before.
 */
export async function receiveStripeEvent(rawBody: string, headers: Headers, now = new Date()): Promise<ReceivedEvent> {
  const gateway = stripeGateway();
  if (!gateway) throw new AppError("gateway_not_configured", "Stripe is not configured on this service (STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET)");
  let event: GatewayEvent;
  try {
    event = await gateway.parseWebhook(rawBody, headers);
  } catch (err) {
    if (err instanceof GatewaySignatureError) throw new AppError("invalid_signature", err.message);
    throw err;
  }
  const subscriptionId = subscriptionIdOf(event);
  const out = await sql.begin(async (tx) => {
    const row = subscriptionId ? await findByGatewaySubscription(tx, "stripe", subscriptionId) : undefined;
    if (!(await recordGatewayEvent(tx, { gateway: "stripe", eventId: event.id, type: event.type, tenantId: row?.tenant_id ?? null }))) {
      return { duplicate: true, applied: false, tenantId: row?.tenant_id };
    }
    const applied = row ? await apply(tx, row, event, now) : false;
    return { duplicate: false, applied, tenantId: row?.tenant_id };
  });
  if (out.tenantId) forgetBilling(out.tenantId);
  logger.info({ event_id: event.id, type: event.type, tenant_id: out.tenantId ?? null, duplicate: out.duplicate, applied: out.applied }, "stripe event received");
  return { duplicate: out.duplicate, applied: out.applied };
}
