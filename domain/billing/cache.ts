// This process's copy of the plans and of each tenant's subscription, trusted for BILLING_CACHE_MS:
// the rate limiter and the quota read them on every request without a query. Local changes clear it at once.
import { config } from "../../config";
import { logger } from "../../basics/log";
import { listPlans, type PlanRow } from "../../store/plans";
import { findSubscription, type SubscriptionRow } from "../../store/subscriptions";
import { effectiveAt, type Effective } from "./effective";

export interface TenantBilling {
  row: SubscriptionRow | null;
  effective: Effective;
  /** The plan whose limits apply now. */
  plan: PlanRow;
}

const MAX_TENANTS = 50_000;
let plans: { at: number; byId: Map<string, PlanRow> } | null = null;
let plansLoading: Promise<Map<string, PlanRow>> | null = null;
const rows = new Map<string, { at: number; row: SubscriptionRow | null }>();
const rowsLoading = new Map<string, Promise<SubscriptionRow | null>>();
let warnedNoDefault = false;

const fresh = (at: number) => Date.now() - at < config.billing.cacheMs;

/** Unlimited: what a missing default plan means (the service never refuses for want of a plan row). */
function unlimitedPlan(id: string): PlanRow {
  const epoch = new Date(0);
  return {
    id, name: id, price_cents: 0, currency: "usd", interval: "month", notifications_per_month: null, api_requests_per_minute: null,
    webhooks: null, domains: null, team_members: null, subscribers: null, retention_days: null, gateway_price_id: null, version: 0, created_at: epoch, updated_at: epoch,
  };
}

export async function plansById(): Promise<Map<string, PlanRow>> {
  if (plans && fresh(plans.at)) return plans.byId;
  plansLoading ??= listPlans()
    .then((list) => {
      const byId = new Map(list.map((p) => [p.id, p]));
      plans = { at: Date.now(), byId };
      return byId;
    })
    .finally(() => (plansLoading = null));
  return await plansLoading;
}

/** A plan by id; the default plan id always answers (unlimited when its row is missing). */
export function planFrom(byId: Map<string, PlanRow>, id: string): PlanRow {
  const p = byId.get(id);
  if (p) return p;
  if (id === config.billing.defaultPlan && !warnedNoDefault) {
    warnedNoDefault = true;
    logger.warn({ plan_id: id }, "BILLING_DEFAULT_PLAN names no plan; tenants without a subscription are unlimited until it is created");
  }
  return unlimitedPlan(id);
}

async function subscriptionRow(tenantId: string): Promise<SubscriptionRow | null> {
  const hit = rows.get(tenantId);
  if (hit && fresh(hit.at)) return hit.row;
  let loading = rowsLoading.get(tenantId);
  if (!loading) {
    loading = findSubscription(tenantId)
      .then((row) => {
        if (rows.size >= MAX_TENANTS) rows.clear();
        rows.set(tenantId, { at: Date.now(), row: row ?? null });
        return row ?? null;
      })
      .finally(() => rowsLoading.delete(tenantId));
    rowsLoading.set(tenantId, loading);
  }
  return await loading;
}

function compose(row: SubscriptionRow | null, byId: Map<string, PlanRow>, now: Date): TenantBilling {
  const effective = effectiveAt(row, {
    now,
    graceDays: config.billing.graceDays,
    defaultPlanId: config.billing.defaultPlan,
    intervalOf: (id) => planFrom(byId, id).interval,
  });
  return { row, effective, plan: planFrom(byId, effective.planId) };
}

/** The tenant's subscription and limits as of `now` (cached rows; a query only on a miss). */
export async function billingOf(tenantId: string, now = new Date()): Promise<TenantBilling> {
  const [row, byId] = await Promise.all([subscriptionRow(tenantId), plansById()]);
  return compose(row, byId, now);
}

/** The same, synchronously, when both the plans and the tenant's row are cached; else undefined. */
export function peekBilling(tenantId: string, now = new Date()): TenantBilling | undefined {
  const hit = rows.get(tenantId);
  if (!plans || !fresh(plans.at) || !hit || !fresh(hit.at)) return undefined;
  return compose(hit.row, plans.byId, now);
}

/** Forgets the tenant's row (after a change here) or, without a tenant, everything (after a plan change). */
export function forgetBilling(tenantId?: string): void {
  if (tenantId === undefined) {
    plans = null;
    rows.clear();
  } else rows.delete(tenantId);
}
