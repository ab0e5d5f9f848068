// Which payment gateway bills a plan: Stripe when STRIPE_SECRET_KEY is set and the plan costs
// something (and has a price there), otherwise none (`manual`: the operator bills outside the service).
import { config } from "../../config";
import { AppError } from "../../basics/errors";
import { createStripeGateway } from "../../providers/billing/stripe";
import type { PaymentGateway } from "../../providers/billing/types";
import type { GatewayName } from "../../schemas/billing";
import type { PlanRow } from "../../store/plans";

let built: { key: string; gateway: PaymentGateway } | null = null;

/** The configured Stripe gateway, or null without STRIPE_SECRET_KEY (rebuilt when its settings change). */
export function stripeGateway(): PaymentGateway | null {
  const s = config.billing.stripe;
  if (!s) return null;
  const key = JSON.stringify(s);
  if (built?.key !== key) built = { key, gateway: createStripeGateway(s) };
  return built.gateway;
}

/** The gateway of a gateway name stored on a subscription (manual: none). */
export function gatewayNamed(name: GatewayName): PaymentGateway | null {
  return name === "stripe" ? stripeGateway() : null;
}

/**
 * The gateway a new subscription to `plan` goes through: a free plan never needs one; a paid plan
 * goes through Stripe when it is configured (the plan then needs its gateway_price_id).
 */
export function gatewayFor(plan: PlanRow): { name: GatewayName; gateway: PaymentGateway | null } {
  const stripe = plan.price_cents > 0 ? stripeGateway() : null;
  if (!stripe) return { name: "manual", gateway: null };
  if (!plan.gateway_price_id) {
    throw new AppError("plan_not_billable", `The ${plan.id} plan cannot be billed through Stripe yet`, {
      plan_id: [`has no gateway_price_id: the operator sets its Stripe price with PUT /v1/admin/plans/${plan.id}`],
    });
  }
  return { name: "stripe", gateway: stripe };
}
