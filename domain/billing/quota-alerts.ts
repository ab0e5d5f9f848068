// quota.warning (80 % of the period's notifications) and quota.exceeded (100 %): one webhook event
// of each per tenant and period, decided by the primary key of billing_quota_alerts, never twice.
import { logger } from "../../basics/log";
import { sql } from "../../store/db";
import type { QuotaRef } from "../../store/quota-counters";
import { claimQuotaAlert } from "../../store/subscriptions";
import { emitEvent } from "../events/outbox";
import { alertsReached, WARNING_PERCENT } from "./alert-thresholds";
import type { TenantBilling } from "./cache";


// Alerts this process knows are claimed, so requests past 80 % do not each ask PostgreSQL again.
const claimed = new Set<string>();
const MAX_REMEMBERED = 100_000;

async function send(ref: QuotaRef, b: TenantBilling, kind: "warning" | "exceeded", used: number, limit: number): Promise<void> {
  const periodStart = new Date(ref.periodStartMs);
  await sql.begin(async (tx) => {
    if (!(await claimQuotaAlert(tx, ref.tenantId, periodStart, kind))) return;
    await emitEvent(tx, {
      tenantId: ref.tenantId,
      environment: "production",
      type: kind === "warning" ? "quota.warning" : "quota.exceeded",
      data: {
        plan_id: b.plan.id,
        period_start: periodStart.toISOString(),
        period_end: new Date(ref.periodEndMs).toISOString(),
        limit,
        usage: Math.min(used, limit),
        threshold_percent: kind === "warning" ? WARNING_PERCENT : 100,
      },
    });
    logger.info({ tenant_id: ref.tenantId, plan_id: b.plan.id, kind, used, limit }, "quota alert sent");
  });
}

/** Sends the alerts `used` reaches that this period has not had yet; never delays or fails the caller. */
export function noteQuotaUsage(ref: QuotaRef, b: TenantBilling, used: number, limit: number): void {
  for (const kind of alertsReached(used, limit)) {
    const memo = `${ref.tenantId}:${ref.periodStartMs}:${kind}`;
    if (claimed.has(memo)) continue;
    if (claimed.size >= MAX_REMEMBERED) claimed.clear();
    claimed.add(memo);
    send(ref, b, kind, used, limit).catch((err) => {
      claimed.delete(memo); // the next accept past the threshold tries again
      logger.warn({ err, tenant_id: ref.tenantId, kind }, "quota alert not sent; retried on the next notification");
    });
  }
}
