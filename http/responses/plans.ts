// API response shape of a plan (schemas/billing.ts Plan): the limits grouped, the default plan marked.
import { config } from "../../config";
import { limitsOf } from "../../domain/billing/plans";
import type { PlanRow } from "../../store/plans";
import { iso } from "../../store/time";

export function serializePlan(p: PlanRow) {
  return {
    id: p.id,
    name: p.name,
    price_cents: p.price_cents,
    currency: p.currency,
    interval: p.interval,
    limits: limitsOf(p),
    gateway_price_id: p.gateway_price_id,
    default: p.id === config.billing.defaultPlan,
    created_at: iso(p.created_at)!,
    updated_at: iso(p.updated_at)!,
  };
}
