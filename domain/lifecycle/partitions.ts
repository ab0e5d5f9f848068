// Partition maintenance of the history tables (migration 0860): keeps day partitions ready ahead
// and drops whole days once every tenant's retention window has passed them.
// Children (attempts, engagement records) leave with their notifications' day; events with the
// longer of the two windows; a day holding pending work or a running workflow run's notifications stays.
import { config } from "../../config";
import { logger } from "../../basics/log";
import { recordRetentionRemoved } from "../../basics/metrics";
import { RETENTION_DEFAULTS } from "../../store/retention";
import { DAY_MS, v7Time } from "../../store/history-keys";
import {
  createDayPartition,
  deleteKeysBetween,
  dropPartition,
  historyPartitions,
  historyTables,
  longestWindows,
  partitionBlocker,
  type HistoryPartition,
} from "../../store/partitions";

const CHILDREN = ["notification_attempts", "notification_engagements"];

export interface PartitionPass {
  created: string[];
  dropped: string[];
  kept: { partition: string; reason: string }[];
  /** how long each DROP TABLE took, ms */
  dropMs: number[];
}

const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
/** The lower bound of a partition as a moment: its day, or nothing below it (legacy, default). */
const lowerOf = (p: HistoryPartition) => (p.day ? Date.parse(`${p.day}T00:00:00Z`) : -Infinity);

/**
 * One pass: creates today's and the next `aheadDays` days' partitions of every converted history
 * table, then drops the days past the longest windows. Each create or drop is its own short
 * transaction with a lock timeout: one that cannot get its lock is retried at the next pass.
 */
export async function maintainPartitions(
  opts: { now?: Date; aheadDays?: number; lockTimeoutMs?: number; batch?: number; dropExpired?: boolean } = {},
): Promise<PartitionPass> {
  const log = logger.child({ component: "partitions" });
  const now = (opts.now ?? new Date()).getTime();
  const ahead = opts.aheadDays ?? config.lifecycle.partitionAheadDays;
  const lockMs = opts.lockTimeoutMs ?? config.lifecycle.partitionLockTimeoutMs;
  const batch = opts.batch ?? config.lifecycle.batchRows;
  const out: PartitionPass = { created: [], dropped: [], kept: [], dropMs: [] };
  const tables = (await historyTables()).filter((t) => t.converted_at !== null);
  if (tables.length === 0) return out;

  let parts = await historyPartitions();
  const have = new Set(parts.map((p) => p.partition));
  for (const t of tables) {
    // days below the legacy bound belong to the legacy partition (the old table)
    const legacyUpper = t.legacy_bound ? v7Time(t.legacy_bound) : -Infinity;
    for (let i = 0; i <= ahead; i++) {
      const day = utcDay(now + i * DAY_MS);
      if (Date.parse(`${day}T00:00:00Z`) < legacyUpper) continue;
      if (have.has(`${t.table_name}_p${day.replace(/-/g, "")}`)) continue;
      try {
        out.created.push(await createDayPartition(t.table_name, day, lockMs));
      } catch (err) {
        // a lock not granted in time, or rows of that day in the default partition (health SQL)
        log.warn({ err, table: t.table_name, day }, "partition not created; the next pass tries again");
      }
    }
  }
  if (opts.dropExpired === false) return out;

  const windows = await longestWindows(RETENTION_DEFAULTS);
  const cutoff = {
    notifications: now - windows.notifications_days * DAY_MS,
    events: now - Math.max(windows.notifications_days, windows.webhook_deliveries_days) * DAY_MS,
    webhook_deliveries: now - windows.webhook_deliveries_days * DAY_MS,
  };
  parts = await historyPartitions();
  const expired = (p: HistoryPartition, before: number) => p.upper !== null && p.upper.getTime() <= before;
  const drop = async (p: HistoryPartition) => {
    const t0 = performance.now();
    await dropPartition(p.partition, lockMs);
    out.dropMs.push(performance.now() - t0);
    out.dropped.push(p.partition);
    recordRetentionRemoved("partitions", 1);
  };
  const tryDrop = async (p: HistoryPartition) => {
    try {
      await drop(p);
      return true;
    } catch (err) {
      out.kept.push({ partition: p.partition, reason: "drop failed (lock timeout?)" });
      log.warn({ err, partition: p.partition }, "partition not dropped; the next pass tries again");
      return false;
    }
  };

  // notifications first: the days that may go, and the ranges that must stay (their children stay too)
  const keptRanges: [number, number][] = [];
  const keep = (p: HistoryPartition) => keptRanges.push([lowerOf(p), p.upper!.getTime()]);
  for (const p of parts.filter((p) => p.parent === "notifications" && expired(p, cutoff.notifications))) {
    const reason = await partitionBlocker(p.parent, p.partition);
    if (reason) {
      out.kept.push({ partition: p.partition, reason });
      keep(p);
      continue;
    }
    // the idempotency keys of its notifications first (a key must never outlive its row)
    const hi = p.bounds.match(/TO \('([0-9a-f-]{36})'\)/)?.[1];
    const lo = p.bounds.match(/FROM \('([0-9a-f-]{36})'\)/)?.[1] ?? null;
    if (!hi) continue;
    while ((await deleteKeysBetween(lo, hi, batch)) >= batch) {}
    if (!(await tryDrop(p))) keep(p);
  }
  const overlapsKept = (p: HistoryPartition) => keptRanges.some(([lo, hi]) => lowerOf(p) < hi && lo < p.upper!.getTime());
  for (const p of parts.filter((p) => CHILDREN.includes(p.parent) && expired(p, cutoff.notifications) && !overlapsKept(p))) await tryDrop(p);
  for (const p of parts.filter((p) => p.parent === "events" && expired(p, cutoff.events))) await tryDrop(p);
  for (const p of parts.filter((p) => p.parent === "webhook_deliveries" && expired(p, cutoff.webhook_deliveries))) {
    const reason = await partitionBlocker(p.parent, p.partition);
    if (reason) out.kept.push({ partition: p.partition, reason });
    else await tryDrop(p);
  }
  if (out.created.length || out.dropped.length || out.kept.length) {
    log.info({ created: out.created, dropped: out.dropped, kept: out.kept, windows }, "history partitions maintained");
  }
  return out;
}
