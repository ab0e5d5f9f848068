// The retention sweep: for each tenant, removes history older than its windows (retention-settings.ts)
// in bounded batches, oldest first. Never touched: the audit log (kept forever, SPEC), the analytics
// rollups (they outlive the rows they count), pending notifications, workflow runs still running.
import { config } from "../../config";
import { logger } from "../../basics/log";
import { recordRetentionRemoved } from "../../basics/metrics";
import {
  deleteExpiredEvents,
  deleteExpiredInboxItems,
  deleteExpiredNotifications,
  deleteExpiredRuns,
  deleteExpiredWebhookDeliveries,
  tenantsForRetention,
  type RetentionDays,
} from "../../store/retention";
import { effectiveWindows } from "./retention-settings";
import { pauseAfterBatch, type Pause } from "./batch-pause";

const DAY_MS = 86_400_000;
const ENVIRONMENTS = ["production", "sandbox"] as const;

export interface SweepTotals {
  tenants: number;
  notifications: number;
  events: number;
  workflow_runs: number;
  inbox_items: number;
  webhook_deliveries: number;
}

const emptyTotals = (): SweepTotals => ({ tenants: 0, notifications: 0, events: 0, workflow_runs: 0, inbox_items: 0, webhook_deliveries: 0 });

/** Repeats one bounded DELETE until it removes less than a full batch (or the sweep is stopped), pausing between two. */
async function drain(batch: number, one: () => Promise<number>, shouldStop: () => boolean, pause: Pause): Promise<number> {
  let total = 0;
  for (;;) {
    const t0 = performance.now();
    const n = await one();
    total += n;
    if (n < batch || shouldStop()) return total;
    await pause(performance.now() - t0);
  }
}

/** Removes one tenant's expired history under the given windows; what it removed, by kind. */
export async function sweepTenant(
  tenantId: string,
  windows: RetentionDays,
  opts: { now?: Date; batch?: number; shouldStop?: () => boolean; pause?: Pause } = {},
): Promise<Omit<SweepTotals, "tenants">> {
  const now = (opts.now ?? new Date()).getTime();
  const batch = opts.batch ?? config.lifecycle.batchRows;
  const stop = opts.shouldStop ?? (() => false);
  const pause = opts.pause ?? ((ms: number) => pauseAfterBatch(ms));
  const before = (days: number) => new Date(now - days * DAY_MS);
  const out = { notifications: 0, events: 0, workflow_runs: 0, inbox_items: 0, webhook_deliveries: 0 };
  // a webhook delivery can be replayed while it is kept: its event stays as long as the longer window
  const eventsBefore = before(Math.max(windows.notifications_days, windows.webhook_deliveries_days));
  for (const env of ENVIRONMENTS) {
    out.notifications += await drain(batch, () => deleteExpiredNotifications(tenantId, env, before(windows.notifications_days), batch), stop, pause);
    out.events += await drain(batch, () => deleteExpiredEvents(tenantId, env, eventsBefore, batch), stop, pause);
  }
  out.workflow_runs += await drain(batch, () => deleteExpiredRuns(tenantId, before(windows.notifications_days), batch), stop, pause);
  out.inbox_items += await drain(batch, () => deleteExpiredInboxItems(tenantId, before(windows.inbox_days), batch), stop, pause);
  out.webhook_deliveries += await drain(batch, () => deleteExpiredWebhookDeliveries(tenantId, before(windows.webhook_deliveries_days), batch), stop, pause);
  return out;
}

export interface SweepResult extends SweepTotals {
  /** Where the next run continues (this tenant first) when the pass stopped early; null = the pass completed. */
  resumeFrom: string | null;
}

/**
 * One pass over every tenant (a page of tenants at a time, from `resumeFrom`), logging each tenant
 * that lost rows and a summary. `shouldStop` ends it early (the job's time budget); `tenantIds` limits
 * it (tests, an operator's one-off run).
 */
export async function sweepRetention(
  opts: { now?: Date; batch?: number; tenantIds?: string[]; resumeFrom?: string | null; shouldStop?: () => boolean; pause?: Pause } = {},
): Promise<SweepResult> {
  const log = logger.child({ component: "retention" });
  const totals = emptyTotals();
  const started = Date.now();
  let from = opts.resumeFrom ?? null;
  let inclusive = true;
  for (;;) {
    const page = await tenantsForRetention(from, inclusive, 500);
    if (page.length === 0) break;
    for (const t of page) {
      if (opts.tenantIds && !opts.tenantIds.includes(t.tenant_id)) continue;
      if (opts.shouldStop?.()) {
        log.info({ ...totals, ms: Date.now() - started, resume_from: t.tenant_id }, "retention sweep paused (time budget); it continues at the next run");
        return { ...totals, resumeFrom: t.tenant_id };
      }
      const windows = await effectiveWindows(t.tenant_id, t);
      const r = await sweepTenant(t.tenant_id, windows, opts);
      totals.tenants++;
      const removed = r.notifications + r.events + r.workflow_runs + r.inbox_items + r.webhook_deliveries;
      if (removed > 0) log.info({ tenant_id: t.tenant_id, windows, removed: r }, "retention removed expired history");
      for (const k of Object.keys(r) as (keyof typeof r)[]) {
        totals[k] += r[k];
        recordRetentionRemoved(k, r[k]);
      }
      if (opts.shouldStop?.()) {
        // this tenant may have more: the next run starts with it again
        log.info({ ...totals, ms: Date.now() - started, resume_from: t.tenant_id }, "retention sweep paused (time budget); it continues at the next run");
        return { ...totals, resumeFrom: t.tenant_id };
      }
    }
    from = page[page.length - 1]!.tenant_id;
    inclusive = false;
  }
  const removedAny = totals.notifications + totals.events + totals.workflow_runs + totals.inbox_items + totals.webhook_deliveries > 0;
  (removedAny ? log.info.bind(log) : log.debug.bind(log))({ ...totals, ms: Date.now() - started }, "retention sweep done");
  return { ...totals, resumeFrom: null };
}
