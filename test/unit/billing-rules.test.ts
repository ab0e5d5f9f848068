// The pure billing rules on a simulated clock: period arithmetic (day of month kept), what a
// subscription means at a moment (period end, downgrade, cancellation, grace expiry), the alert
// thresholds, upgrade or downgrade by monthly price, and Stripe's statuses in our vocabulary.
import { describe, expect, test } from "bun:test";
import { effectiveAt } from "../../domain/billing/effective";
import { addIntervals, calendarMonth, daysBetween, periodAt } from "../../domain/billing/periods";
import { alertsReached } from "../../domain/billing/alert-thresholds";
import { changeTypeOf } from "../../domain/billing/change-type";
import { eventFromStripe, statusFromStripe, subscriptionFromStripe } from "../../providers/billing/stripe";
import type { SubscriptionRow } from "../../store/subscriptions";

const d = (s: string) => new Date(s);

describe("periods", () => {
  test("months keep the anchor's day, clamped to short months, and come back to it", () => {
    const jan31 = d("2026-01-31T10:00:00.000Z");
    expect([1, 2, 3, 13].map((k) => addIntervals(jan31, "month", k).toISOString())).toEqual([
      "2026-02-28T10:00:00.000Z",
      "2026-03-31T10:00:00.000Z",
      "2026-04-30T10:00:00.000Z",
      "2027-02-28T10:00:00.000Z",
    ]);
    expect(addIntervals(d("2024-02-29T00:00:00.000Z"), "year", 1).toISOString()).toBe("2025-02-28T00:00:00.000Z");
  });

  test("periodAt finds the period containing now; before the anchor it is the first", () => {
    const anchor = d("2026-01-31T10:00:00.000Z");
    expect(periodAt(anchor, "month", d("2026-03-15T00:00:00.000Z"))).toEqual({ start: d("2026-02-28T10:00:00.000Z"), end: d("2026-03-31T10:00:00.000Z") });
    expect(periodAt(anchor, "month", d("2026-03-31T10:00:00.000Z")).start).toEqual(d("2026-03-31T10:00:00.000Z"));
    expect(periodAt(anchor, "month", d("2025-12-01T00:00:00.000Z")).start).toEqual(anchor);
    expect(periodAt(anchor, "year", d("2029-06-01T00:00:00.000Z"))).toEqual({ start: d("2029-01-31T10:00:00.000Z"), end: d("2030-01-31T10:00:00.000Z") });
  });

  test("the default plan's period is the UTC calendar month; days are whole", () => {
    expect(calendarMonth(d("2026-12-31T23:59:59.999Z"))).toEqual({ start: d("2026-12-01T00:00:00.000Z"), end: d("2027-01-01T00:00:00.000Z") });
    expect(daysBetween(d("2026-03-01T00:00:00.000Z"), d("2026-03-09T00:01:00.000Z"))).toBe(8);
    expect(daysBetween(d("2026-03-09T00:00:00.000Z"), d("2026-03-01T00:00:00.000Z"))).toBe(0);
  });
});

const row = (over: Partial<SubscriptionRow> = {}): SubscriptionRow => ({
  tenant_id: "t",
  id: "s",
  plan_id: "pro",
  pending_plan_id: null,
  status: "active",
  gateway: "manual",
  gateway_customer_id: null,
  gateway_subscription_id: null,
  anchor_at: d("2026-01-15T00:00:00.000Z"),
  current_period_start: d("2026-03-15T00:00:00.000Z"),
  current_period_end: d("2026-04-15T00:00:00.000Z"),
  cancel_at_period_end: false,
  past_due_since: null,
  cancelled_at: null,
  expired_at: null,
  payment_url: null,
  revision: 1,
  created_at: d("2026-01-15T00:00:00.000Z"),
  updated_at: d("2026-01-15T00:00:00.000Z"),
  ...over,
});
const at = (now: string) => ({ now: d(now), graceDays: 7, defaultPlanId: "free", intervalOf: (id: string) => (id === "yearly" ? ("year" as const) : ("month" as const)) });

describe("what a subscription means at a moment", () => {
  test("no subscription: the default plan, calendar months, nothing to persist", () => {
    expect(effectiveAt(null, at("2026-03-20T00:00:00.000Z"))).toMatchObject({ planId: "free", status: "active", onDefault: true, rolled: null });
  });

  test("inside its period the stored plan and period apply", () => {
    expect(effectiveAt(row(), at("2026-04-14T23:59:59.000Z"))).toMatchObject({ planId: "pro", onDefault: false, rolled: null });
  });

  test("past the period end: the next period from the anchor; a waiting downgrade applies; a cancellation takes effect", () => {
    const next = effectiveAt(row(), at("2026-04-20T00:00:00.000Z"));
    expect(next.period).toEqual({ start: d("2026-04-15T00:00:00.000Z"), end: d("2026-05-15T00:00:00.000Z") });
    expect(next.rolled).toEqual({ current_period_start: d("2026-04-15T00:00:00.000Z"), current_period_end: d("2026-05-15T00:00:00.000Z") });
    const down = effectiveAt(row({ pending_plan_id: "basic" }), at("2026-04-15T00:00:00.000Z"));
    expect(down).toMatchObject({ planId: "basic", rolled: { plan_id: "basic", pending_plan_id: null } });
    const yearly = effectiveAt(row({ pending_plan_id: "yearly" }), at("2026-05-01T00:00:00.000Z"));
    expect(yearly.period).toEqual({ start: d("2026-04-15T00:00:00.000Z"), end: d("2027-04-15T00:00:00.000Z") });
    const cancelled = effectiveAt(row({ cancel_at_period_end: true }), at("2026-04-15T00:00:00.000Z"));
    expect(cancelled).toMatchObject({ planId: "free", status: "cancelled", onDefault: true, rolled: { status: "cancelled", cancelled_at: d("2026-04-15T00:00:00.000Z") } });
  });

  test("past_due keeps its plan for the grace period, then is expired on the default plan", () => {
    const pastDue = row({ status: "past_due", past_due_since: d("2026-03-20T00:00:00.000Z") });
    expect(effectiveAt(pastDue, at("2026-03-26T23:59:00.000Z"))).toMatchObject({ planId: "pro", status: "past_due", rolled: null });
    expect(effectiveAt(pastDue, at("2026-03-27T00:00:00.000Z"))).toMatchObject({ planId: "free", status: "expired", rolled: { status: "expired" } });
  });

  test("cancelled and expired rows: the default plan", () => {
    for (const status of ["cancelled", "expired"] as const) expect(effectiveAt(row({ status }), at("2026-03-20T00:00:00.000Z"))).toMatchObject({ planId: "free", status, onDefault: true });
  });
});

describe("small rules", () => {
  test("alerts: warning from 80 % of the limit, exceeded at the limit", () => {
    expect(alertsReached(79, 100)).toEqual([]);
    expect(alertsReached(80, 100)).toEqual(["warning"]);
    expect(alertsReached(100, 100)).toEqual(["warning", "exceeded"]);
    expect(alertsReached(4, 5)).toEqual(["warning"]);
    expect(alertsReached(0, 0)).toEqual(["exceeded"]);
  });

  test("upgrade or downgrade by monthly price; equal prices apply now", () => {
    const p = (price_cents: number, interval: "month" | "year") => ({ price_cents, interval });
    expect(changeTypeOf(p(2900, "month"), p(4900, "month"))).toBe("upgrade");
    expect(changeTypeOf(p(2900, "month"), p(30000, "year"))).toBe("downgrade");
    expect(changeTypeOf(p(2900, "month"), p(2900, "month"))).toBe("upgrade");
  });

  test("Stripe's statuses and shapes in our terms (periods on the item since 2025-03-31, on the subscription before)", () => {
    expect(["active", "trialing", "past_due", "unpaid", "incomplete", "incomplete_expired", "canceled"].map(statusFromStripe)).toEqual([
      "active", "trialing", "past_due", "past_due", "past_due", "expired", "cancelled",
    ]);
    const now = { id: "sub_1", customer: "cus_1", status: "active", cancel_at_period_end: false, items: { data: [{ current_period_start: 1772704800, current_period_end: 1775383200 }] } };
    const old = { id: "sub_1", customer: { id: "cus_1" }, status: "active", cancel_at_period_end: true, current_period_start: 1772704800, current_period_end: 1775383200, items: { data: [{}] } };
    for (const s of [now, old]) expect(subscriptionFromStripe(s)).toMatchObject({ customerId: "cus_1", periodStart: new Date(1772704800000), periodEnd: new Date(1775383200000) });
    const failed = eventFromStripe({ id: "evt_1", type: "invoice.payment_failed", data: { object: { id: "in_1", number: null, amount_due: 900, attempt_count: 2, subscription: "sub_old" } } });
    expect(failed).toMatchObject({ kind: "payment_failed", subscriptionId: "sub_old", invoice: { id: "in_1", number: null, amountCents: 900, failureReason: "payment attempt 2 failed" } });
    expect(eventFromStripe({ id: "evt_2", type: "invoice.paid", data: { object: { id: "in_2" } } }).kind).toBe("ignored");
    expect(eventFromStripe({ id: "evt_3", type: "charge.refunded", data: { object: {} } }).kind).toBe("ignored");
  });
});
