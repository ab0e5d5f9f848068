// The billing cron: one process at a time (the runtime's named lease `billing`) runs
// domain/billing/billing-run.ts every BILLING_CRON_EVERY: grace-period expiry, period roll, quota reservations.
import { config } from "../config";
import { logger } from "../basics/log";
import { runBillingOnce } from "../domain/billing/billing-run";
import { startLeasedLoop, type LeasedLoop } from "../runtime";
import { getRuntime } from "../store/runtime-handle";

const LEASE_MS = 30_000;

export function startBillingCron(opts: { everyMs?: number; now?: () => Date } = {}): LeasedLoop {
  const log = logger.child({ component: "billing" });
  const now = opts.now ?? (() => new Date());
  return startLeasedLoop(getRuntime(), { name: "billing cron", lease: "billing", everyMs: opts.everyMs ?? config.billing.cronEveryMs, leaseTtlMs: LEASE_MS, log }, async () => {
    const r = await runBillingOnce(now());
    if (r.expired || r.rolled || r.reservationsSettled) log.info(r, "billing cron: subscriptions expired or rolled, reservations settled");
  });
}
