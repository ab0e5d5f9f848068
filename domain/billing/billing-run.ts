// One run of the billing cron (jobs/billing-cron.ts), the clock passed in: expire past_due
// subscriptions past their grace period, roll ended periods, settle quota reservations their processes left.
import { config } from "../../config";
import { logger } from "../../basics/log";
import { existingNotifications } from "../../store/billing-usage";
import { sql } from "../../store/db";
import { listedCounters, oldReservations, settleQuotaMany, unlistCounter } from "../../store/quota-counters";
import { overduePastDue, periodEnded, type SubscriptionRow } from "../../store/subscriptions";
import { forgetBilling } from "./cache";
import { gatewayNamed } from "./gateways";
import { rollForward } from "./roll";

const BATCH = 100;
/** A reservation older than this belongs to an accept that ended without settling (its process died). */
export const STALE_RESERVATION_MS = 5 * 60_000;

export interface BillingRunResult {
  expired: number;
  rolled: number;
  reservationsSettled: number;
}

async function rollBatch(pick: (tx: any) => Promise<SubscriptionRow[]>, now: Date): Promise<SubscriptionRow[]> {
  return await sql.begin(async (tx) => {
    const rows = await pick(tx);
    const out: SubscriptionRow[] = [];
    for (const row of rows) out.push(await rollForward(tx, row, now));
    return out;
  });
}

/** Ends the gateway's subscription of an expired one (best effort: the gateway's own dunning ends it too). */
async function endAtGateway(row: SubscriptionRow): Promise<void> {
  const gw = gatewayNamed(row.gateway);
  if (!gw || !row.gateway_subscription_id) return;
  try {
    await gw.cancel(row.gateway_subscription_id, { atPeriodEnd: false, idempotencyKey: `nms-${row.tenant_id}-${row.revision}-expire` });
  } catch (err) {
    logger.warn({ err, tenant_id: row.tenant_id, gateway: row.gateway }, "expired subscription not cancelled at the gateway; cancel it there");
  }
}

async function settleStaleReservations(now: Date): Promise<number> {
  let settled = 0;
  for (const ref of await listedCounters()) {
    if (ref.periodEndMs + 7 * 86_400_000 < now.getTime()) {
      await unlistCounter(ref);
      continue;
    }
    const ids = await oldReservations(ref, now.getTime() - STALE_RESERVATION_MS);
    if (ids.length === 0) continue;
    const committed = await existingNotifications(ref.tenantId, ids);
    settled += await settleQuotaMany(ref, ids.map((id) => ({ id, created: committed.has(id) })));
    logger.info({ tenant_id: ref.tenantId, reservations: ids.length, committed: committed.size }, "quota reservations of ended accepts settled from PostgreSQL");
  }
  return settled;
}

export async function runBillingOnce(now = new Date()): Promise<BillingRunResult> {
  const result: BillingRunResult = { expired: 0, rolled: 0, reservationsSettled: 0 };
  const cutoff = new Date(now.getTime() - config.billing.graceDays * 86_400_000);
  for (;;) {
    const rows = await rollBatch((tx) => overduePastDue(tx, cutoff, BATCH), now);
    for (const r of rows) {
      forgetBilling(r.tenant_id);
      if (r.status === "expired") {
        result.expired++;
        await endAtGateway(r);
      }
    }
    if (rows.length < BATCH) break;
  }
  for (;;) {
    const rows = await rollBatch((tx) => periodEnded(tx, now, BATCH), now);
    for (const r of rows) forgetBilling(r.tenant_id);
    result.rolled += rows.length;
    if (rows.length < BATCH) break;
  }
  result.reservationsSettled = await settleStaleReservations(now);
  return result;
}
