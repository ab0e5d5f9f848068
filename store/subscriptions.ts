// Subscription repository (one row per tenant; table subscriptions), the applied gateway events and
// the once-per-period quota alerts. Every write bumps `revision` (quota counters are keyed by it).
import { sql, type Tx } from "./db";

export interface SubscriptionRow {
  tenant_id: string;
  id: string;
  plan_id: string;
  pending_plan_id: string | null;
  status: "trialing" | "active" | "past_due" | "cancelled" | "expired";
  gateway: "manual" | "stripe";
  gateway_customer_id: string | null;
  gateway_subscription_id: string | null;
  anchor_at: Date;
  current_period_start: Date;
  current_period_end: Date;
  cancel_at_period_end: boolean;
  past_due_since: Date | null;
  cancelled_at: Date | null;
  expired_at: Date | null;
  payment_url: string | null;
  revision: number;
  created_at: Date;
  updated_at: Date;
}

/** The columns a change may set (everything but the keys and the bookkeeping). */
export type SubscriptionChange = Partial<Omit<SubscriptionRow, "tenant_id" | "revision" | "created_at" | "updated_at">>;

export async function findSubscription(tenantId: string, tx: Tx = sql): Promise<SubscriptionRow | undefined> {
  const [r] = await tx<SubscriptionRow[]>`select * from subscriptions where tenant_id = ${tenantId}`;
  return r;
}

/**
 * The tenant's row locked for this transaction. A tenant without one has its tenant row locked
 * instead, so two first subscriptions of one tenant cannot both insert.
 */
export async function lockSubscription(tx: Tx, tenantId: string): Promise<SubscriptionRow | undefined> {
  await tx`select id from tenants where id = ${tenantId} for update`;
  const [r] = await tx<SubscriptionRow[]>`select * from subscriptions where tenant_id = ${tenantId} for update`;
  return r;
}

export async function findByGatewaySubscription(tx: Tx, gateway: string, gatewaySubscriptionId: string): Promise<SubscriptionRow | undefined> {
  const [r] = await tx<SubscriptionRow[]>`
    select * from subscriptions where gateway = ${gateway} and gateway_subscription_id = ${gatewaySubscriptionId} for update`;
  return r;
}

/** Inserts the tenant's row, or replaces it entirely (a new subscription after a cancelled or expired one). */
export async function putSubscription(tx: Tx, s: Omit<SubscriptionRow, "revision" | "created_at" | "updated_at">): Promise<SubscriptionRow> {
  const [r] = await tx<SubscriptionRow[]>`
    insert into subscriptions (tenant_id, id, plan_id, pending_plan_id, status, gateway, gateway_customer_id, gateway_subscription_id,
      anchor_at, current_period_start, current_period_end, cancel_at_period_end, past_due_since, cancelled_at, expired_at, payment_url)
    values (${s.tenant_id}, ${s.id}, ${s.plan_id}, ${s.pending_plan_id}, ${s.status}, ${s.gateway}, ${s.gateway_customer_id},
      ${s.gateway_subscription_id}, ${s.anchor_at}, ${s.current_period_start}, ${s.current_period_end}, ${s.cancel_at_period_end},
      ${s.past_due_since}, ${s.cancelled_at}, ${s.expired_at}, ${s.payment_url})
    on conflict (tenant_id) do update set
      id = excluded.id, plan_id = excluded.plan_id, pending_plan_id = excluded.pending_plan_id, status = excluded.status,
      gateway = excluded.gateway, gateway_customer_id = coalesce(excluded.gateway_customer_id, subscriptions.gateway_customer_id),
      gateway_subscription_id = excluded.gateway_subscription_id, anchor_at = excluded.anchor_at,
      current_period_start = excluded.current_period_start, current_period_end = excluded.current_period_end,
      cancel_at_period_end = excluded.cancel_at_period_end, past_due_since = excluded.past_due_since,
      cancelled_at = excluded.cancelled_at, expired_at = excluded.expired_at, payment_url = excluded.payment_url,
      revision = subscriptions.revision + 1, updated_at = now()
    returning *`;
  return r!;
}

const CHANGEABLE = new Set([
  "id", "plan_id", "pending_plan_id", "status", "gateway", "gateway_customer_id", "gateway_subscription_id", "anchor_at",
  "current_period_start", "current_period_end", "cancel_at_period_end", "past_due_since", "cancelled_at", "expired_at", "payment_url",
]);

/** Applies a change to the tenant's row (revision + 1). */
export async function changeSubscription(tx: Tx, tenantId: string, change: SubscriptionChange): Promise<SubscriptionRow> {
  const fields = Object.fromEntries(Object.entries(change).filter(([k, v]) => CHANGEABLE.has(k) && v !== undefined));
  const [r] = await tx<SubscriptionRow[]>`
    update subscriptions set ${tx(fields)}, revision = revision + 1, updated_at = now()
    where tenant_id = ${tenantId}
    returning *`;
  return r!;
}

/** past_due rows whose grace period ended by `cutoff` (past_due_since <= cutoff), oldest first. */
export async function overduePastDue(tx: Tx, cutoff: Date, limit: number): Promise<SubscriptionRow[]> {
  return await tx<SubscriptionRow[]>`
    select * from subscriptions where status = 'past_due' and past_due_since <= ${cutoff}
    order by past_due_since limit ${limit} for update skip locked`;
}

/** Live rows whose period ended by `now` (the cron rolls them: renewal, downgrade, cancellation at period end). */
export async function periodEnded(tx: Tx, now: Date, limit: number): Promise<SubscriptionRow[]> {
  return await tx<SubscriptionRow[]>`
    select * from subscriptions where status in ('active', 'trialing', 'past_due') and current_period_end <= ${now}
    order by current_period_end limit ${limit} for update skip locked`;
}

// ---------------------------------------------------------------------------------------------
// Gateway events and quota alerts: exactly once under their primary keys.

/** Records a gateway event as applied; false when it was applied before (a replayed delivery). */
export async function recordGatewayEvent(tx: Tx, e: { gateway: string; eventId: string; type: string; tenantId: string | null }): Promise<boolean> {
  const rows = await tx`
    insert into billing_gateway_events (gateway, event_id, type, tenant_id) values (${e.gateway}, ${e.eventId}, ${e.type}, ${e.tenantId})
    on conflict do nothing returning event_id`;
  return rows.length === 1;
}

/** Claims the tenant's alert of this kind for the period; false when it was sent already. */
export async function claimQuotaAlert(tx: Tx, tenantId: string, periodStart: Date, kind: "warning" | "exceeded"): Promise<boolean> {
  const rows = await tx`
    insert into billing_quota_alerts (tenant_id, period_start, kind) values (${tenantId}, ${periodStart}, ${kind})
    on conflict do nothing returning kind`;
  return rows.length === 1;
}
