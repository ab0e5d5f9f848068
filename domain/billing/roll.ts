// Persisting what time did to a subscription (effective.ts decides it): a new period, a downgrade or
// a cancellation taking effect at the period end, and expiry past the grace period with its audit entry.
import { config } from "../../config";
import { logger } from "../../basics/log";
import type { Tx } from "../../store/db";
import { changeSubscription, type SubscriptionRow } from "../../store/subscriptions";
import { auditSubscription, systemActor } from "./audit";
import { planFrom, plansById } from "./cache";
import { effectiveAt } from "./effective";
import { daysBetween } from "./periods";

/** The row as of `now`, written back when it moved on (the caller holds its lock). */
export async function rollForward(tx: Tx, row: SubscriptionRow, now: Date): Promise<SubscriptionRow> {
  const byId = await plansById();
  const eff = effectiveAt(row, { now, graceDays: config.billing.graceDays, defaultPlanId: config.billing.defaultPlan, intervalOf: (id) => planFrom(byId, id).interval });
  if (!eff.rolled) return row;
  const next = await changeSubscription(tx, row.tenant_id, eff.rolled);
  if (eff.rolled.status === "expired") {
    const days = daysBetween(row.past_due_since!, now);
    await auditSubscription(tx, systemActor(row.tenant_id), row.id, { action: "subscription.expired", metadata: { reason: "payment_overdue", days_overdue: days } });
    logger.info({ tenant_id: row.tenant_id, plan_id: row.plan_id, days_overdue: days }, "subscription expired after its grace period; the default plan applies");
  }
  return next;
}
