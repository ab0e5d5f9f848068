// The notification quota at accept (docs/billing.md "Quota"): an atomic Redis reservation per
// production notification (concurrent ones share a script call), settled once the insert is decided.
import { AppError } from "../../basics/errors";
import { logger } from "../../basics/log";
import { countProductionNotifications } from "../../store/billing-usage";
import { memberOf, reserveQuotaBatched, seedQuota, settleQuotaBatched, type QuotaRef } from "../../store/quota-counters";
import { billingOf, type TenantBilling } from "./cache";
import { noteQuotaUsage } from "./quota-alerts";

/** The counter of the tenant's current period under its current limits. */
export function quotaRefOf(tenantId: string, b: TenantBilling): QuotaRef {
  const revision = b.effective.onDefault ? 0 : (b.row?.revision ?? 0);
  return {
    tenantId,
    periodStartMs: b.effective.period.start.getTime(),
    periodEndMs: b.effective.period.end.getTime(),
    version: `${b.plan.id}.${b.plan.version}.${revision}`,
  };
}

export function quotaExceeded(limit: number, used: number, b: TenantBilling): AppError {
  const end = b.effective.period.end.toISOString();
  return new AppError(
    "quota_exceeded",
    `The ${b.plan.id} plan's ${limit} production notifications of this period are used up (until ${end}); upgrade the plan or wait for the next period`,
    { limit: [String(limit)], usage: [String(used)], period_end: [end], plan_id: [b.plan.id] },
  );
}

// Seeds in progress in this process, so the accepts that find a counter missing together count once.
const seeding = new Map<string, Promise<void>>();

/**
 * No counter: count the period once in PostgreSQL. Every process that finds it missing counts;
 * SET NX keeps the first count. See docs/billing.md for the bound when a live counter is lost.
 */
function seed(ref: QuotaRef): Promise<void> {
  const k = memberOf(ref);
  let p = seeding.get(k);
  if (!p) {
    p = countProductionNotifications(ref.tenantId, new Date(ref.periodStartMs), new Date(ref.periodEndMs))
      .then((count) => seedQuota(ref, count, Date.now()))
      .finally(() => seeding.delete(k));
    seeding.set(k, p);
  }
  return p;
}

/** Reserves one notification of the period, seeding the counter from PostgreSQL on its first use. */
async function reserve(ref: QuotaRef, id: string, limit: number, b: TenantBilling): Promise<number> {
  for (let round = 0; round < 3; round++) {
    const r = await reserveQuotaBatched(ref, id, limit);
    if (r.status === "reserved") return r.used;
    if (r.status === "refused") {
      noteQuotaUsage(ref, b, r.used, limit);
      throw quotaExceeded(limit, r.used, b);
    }
    await seed(ref);
  }
  throw new Error(`quota counter of tenant ${ref.tenantId} could not be seeded`);
}

/**
 * Runs `insert` (the accept's batched write; true when it created the row) inside the tenant's
 * quota. Sandbox and unlimited plans pass straight through. A production notification past the
 * limit is refused with 402 quota_exceeded before anything is written.
 */
export async function withinQuota(n: { tenantId: string; environment: string; id: string }, insert: () => Promise<boolean>): Promise<boolean> {
  if (n.environment !== "production") return await insert();
  const b = await billingOf(n.tenantId);
  const limit = b.plan.notifications_per_month;
  if (limit === null) return await insert();
  const ref = quotaRefOf(n.tenantId, b);
  const used = await reserve(ref, n.id, limit, b);
  let created = false;
  try {
    created = await insert();
    return created;
  } finally {
    // Not awaited by the caller's answer: a failed settle leaves the reservation to the billing
    // cron, which settles it from PostgreSQL (the row exists or it does not).
    settleQuotaBatched(ref, n.id, created).catch((err) => logger.warn({ err, tenant_id: n.tenantId, notification_id: n.id }, "quota settle failed; the billing cron settles it"));
    if (created) noteQuotaUsage(ref, b, used, limit);
  }
}
