// GET /v1/subscription: the tenant's subscription as of now, the limits in force and the usage of
// the period (the quota counter when there is one, else one count in PostgreSQL: a page view, not a send).
import { config } from "../../config";
import type { SubscriptionView } from "../../schemas/billing";
import { countProductionNotifications, countResource } from "../../store/billing-usage";
import { sql } from "../../store/db";
import { readQuota } from "../../store/quota-counters";
import { iso } from "../../store/time";
import { billingOf, forgetBilling } from "./cache";
import { limitsOf } from "./plans";
import { quotaRefOf } from "./quota";

export async function subscriptionView(tenantId: string, now = new Date()): Promise<SubscriptionView> {
  forgetBilling(tenantId); // the page shows what is stored now, not this process's copy
  const b = await billingOf(tenantId, now);
  const { row, effective } = b;
  const period = effective.period;
  const counted = b.plan.notifications_per_month === null ? null : await readQuota(quotaRefOf(tenantId, b)).catch(() => null);
  const [notifications, webhooks, domains, members, subscribers] = await Promise.all([
    counted ?? countProductionNotifications(tenantId, period.start, period.end),
    countResource(sql, tenantId, "webhooks"),
    countResource(sql, tenantId, "domains"),
    countResource(sql, tenantId, "team_members"),
    countResource(sql, tenantId, "subscribers"),
  ]);
  const live = row && !effective.onDefault;
  return {
    id: row?.id ?? null,
    plan_id: row ? (effective.rolled?.plan_id ?? row.plan_id) : effective.planId,
    status: effective.status,
    gateway: live ? row.gateway : (row?.gateway ?? "manual"),
    current_period_start: period.start.toISOString(),
    current_period_end: period.end.toISOString(),
    cancel_at_period_end: live ? row.cancel_at_period_end : false,
    pending_plan_id: live && !effective.rolled ? row.pending_plan_id : null,
    past_due_since: live ? iso(row.past_due_since) : null,
    grace_period_days: config.billing.graceDays,
    payment_url: live ? row.payment_url : null,
    effective_plan_id: effective.planId,
    limits: limitsOf(b.plan),
    usage: { notifications_this_period: notifications, webhooks, domains, team_members: members, subscribers },
  };
}
