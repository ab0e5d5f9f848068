// What a tenant's subscription means at a given moment (pure, the clock passed in): the plan whose
// limits apply, the status and the period, with period ends, downgrades and grace expiry applied.
import type { PlanInterval, SubscriptionStatus } from "../../schemas/billing";
import type { SubscriptionRow } from "../../store/subscriptions";
import { calendarMonth, periodAt, type Period } from "./periods";

export interface Effective {
  /** The plan whose limits apply now. */
  planId: string;
  status: SubscriptionStatus;
  period: Period;
  /** true when the default plan applies because there is no live subscription. */
  onDefault: boolean;
  /** The stored row rolled to `now`: what the billing cron will persist (null: nothing to persist). */
  rolled: RolledChange | null;
}

/** The change the cron writes for a row whose state moved on by `now` (no audit entry but `expired`). */
export interface RolledChange {
  plan_id?: string;
  pending_plan_id?: null;
  anchor_at?: Date;
  status?: SubscriptionStatus;
  current_period_start?: Date;
  current_period_end?: Date;
  cancel_at_period_end?: boolean;
  cancelled_at?: Date;
  expired_at?: Date;
  gateway?: "manual";
  gateway_subscription_id?: null;
  payment_url?: null;
}

export interface EffectiveInputs {
  now: Date;
  graceDays: number;
  defaultPlanId: string;
  intervalOf(planId: string): PlanInterval;
}

const LIVE = new Set<SubscriptionStatus>(["trialing", "active", "past_due"]);

/** When a past_due subscription's grace period ends. */
export function graceEndsAt(row: Pick<SubscriptionRow, "past_due_since">, graceDays: number): Date | null {
  return row.past_due_since ? new Date(row.past_due_since.getTime() + graceDays * 86_400_000) : null;
}

export function effectiveAt(row: SubscriptionRow | null | undefined, x: EffectiveInputs): Effective {
  const fallback = (status: SubscriptionStatus, rolled: RolledChange | null): Effective => ({
    planId: x.defaultPlanId,
    status,
    period: calendarMonth(x.now),
    onDefault: true,
    rolled,
  });
  if (!row) return fallback("active", null);
  if (!LIVE.has(row.status)) return fallback(row.status, null);
  const graceEnd = row.status === "past_due" ? graceEndsAt(row, x.graceDays) : null;
  if (graceEnd && graceEnd.getTime() <= x.now.getTime()) return fallback("expired", { status: "expired", expired_at: x.now });
  if (x.now.getTime() < row.current_period_end.getTime()) {
    return { planId: row.plan_id, status: row.status, period: { start: row.current_period_start, end: row.current_period_end }, onDefault: false, rolled: null };
  }
  // The period ended: a cancellation at period end takes effect, a waiting downgrade applies, and
  // the next period (of the plan now in force) is counted from the anchor.
  // (a downgrade to a plan the gateway does not sell is a gateway cancellation at the period end
  // with the new plan waiting: the plan applies, billed manually from then on)
  if (row.cancel_at_period_end && !row.pending_plan_id) return fallback("cancelled", { status: "cancelled", cancelled_at: row.current_period_end });
  // A downgrade to another interval (month -> year) counts its periods from the end of the last one.
  const planId = row.pending_plan_id ?? row.plan_id;
  const interval = x.intervalOf(planId);
  const anchor = interval === x.intervalOf(row.plan_id) ? row.anchor_at : row.current_period_end;
  const period = periodAt(anchor, interval, x.now);
  const rolled: RolledChange = { current_period_start: period.start, current_period_end: period.end };
  if (row.pending_plan_id) Object.assign(rolled, { plan_id: planId, pending_plan_id: null, anchor_at: anchor });
  if (row.pending_plan_id && row.cancel_at_period_end) Object.assign(rolled, { gateway: "manual", gateway_subscription_id: null, cancel_at_period_end: false, payment_url: null });
  return { planId, status: row.status, period, onDefault: false, rolled };
}
