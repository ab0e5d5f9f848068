// History partitions repository (migration 0860): the day partitions of the history tables, creating
// them ahead, the checks before one leaves, dropping it, and the longest retention windows.
import { sql } from "./db";
import { v7Time } from "./history-keys";

export interface HistoryTable {
  table_name: string;
  key_column: string;
  legacy_bound: string | null;
  converted_at: Date | null;
}

export interface HistoryPartition {
  parent: string;
  partition: string;
  /** null for the legacy and the default partitions */
  day: string | null;
  /** the upper bound of the partition's key range as a moment (UUID v7 time); null for the default */
  upper: Date | null;
  bounds: string;
}

export async function historyTables(): Promise<HistoryTable[]> {
  return sql<HistoryTable[]>`select table_name, key_column, legacy_bound, converted_at from history_partitioned_tables order by table_name`;
}

/** Every partition of the converted history tables, oldest first per table. */
export async function historyPartitions(): Promise<HistoryPartition[]> {
  const rows = await sql<{ parent: string; partition: string; day: string | null; bounds: string; legacy_bound: string | null }[]>`
    select p.parent, p.partition, p.day::text as day, p.bounds, h.legacy_bound::text
    from history_partitions p join history_partitioned_tables h on h.table_name = p.parent
    where h.converted_at is not null order by p.parent, p.day nulls first`;
  return rows.map((r) => {
    const day = r.day;
    const legacy = r.partition === `${r.parent}_legacy`;
    const upper = day ? new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000) : legacy && r.legacy_bound ? new Date(v7Time(r.legacy_bound)) : null;
    return { parent: r.parent, partition: r.partition, day, upper, bounds: r.bounds };
  });
}

/** Creates one UTC day's partition of `table` unless it exists (no lock that stops reads or writes). */
export async function createDayPartition(table: string, day: string, lockTimeoutMs: number): Promise<string> {
  return await sql.begin(async (tx) => {
    await tx`select set_config('lock_timeout', ${String(lockTimeoutMs)}, true)`;
    const [r] = await tx<{ name: string }[]>`select nms_create_day_partition(${table}, ${day}::date) as name`;
    return r!.name;
  });
}

/**
 * Why a partition of notifications or webhook_deliveries may not leave yet: a pending notification
 * (still to send), a notification of a workflow run still running, a pending webhook delivery (a
 * retry still due). null = nothing keeps it.
 */
export async function partitionBlocker(parent: string, partition: string): Promise<string | null> {
  if (parent === "notifications") {
    const [r] = await sql<{ pending: boolean; running: boolean }[]>`
      select exists (select 1 from ${sql(partition)} where status = 'pending') as pending,
             exists (select 1 from ${sql(partition)} n join workflow_runs r on r.id = n.workflow_run_id
                     where n.workflow_run_id is not null and r.status = 'running') as running`;
    if (r!.pending) return "pending notifications";
    if (r!.running) return "notifications of a running workflow run";
  }
  if (parent === "webhook_deliveries") {
    const [r] = await sql<{ pending: boolean }[]>`select exists (select 1 from ${sql(partition)} where status = 'pending') as pending`;
    if (r!.pending) return "pending webhook deliveries";
  }
  return null;
}

/** One batch of the idempotency keys of notifications whose ids fall in [lo, hi). */
export async function deleteKeysBetween(lo: string | null, hi: string, limit: number): Promise<number> {
  const rows = await sql`
    delete from notification_idempotency_keys where ctid = any (array(
      select ctid from notification_idempotency_keys
      where notification_id < ${hi} ${lo ? sql`and notification_id >= ${lo}` : sql``} limit ${limit}))
    returning 1`;
  return rows.length;
}

/** Drops one partition (a moment's ACCESS EXCLUSIVE lock on the parent, given up after lockTimeoutMs). */
export async function dropPartition(partition: string, lockTimeoutMs: number): Promise<void> {
  await sql.begin(async (tx) => {
    await tx`select set_config('lock_timeout', ${String(lockTimeoutMs)}, true)`;
    await tx`drop table ${tx(partition)}`;
  });
}

export interface LongestWindows {
  notifications_days: number;
  webhook_deliveries_days: number;
}

/**
 * The longest windows any tenant has (the defaults for tenants without settings). Plan caps only
 * shorten windows, so a day past these is past every tenant's effective window.
 */
export async function longestWindows(defaults: LongestWindows): Promise<LongestWindows> {
  const [r] = await sql<LongestWindows[]>`
    select coalesce(max(coalesce(r.notifications_days, ${defaults.notifications_days})), ${defaults.notifications_days})::int as notifications_days,
           coalesce(max(coalesce(r.webhook_deliveries_days, ${defaults.webhook_deliveries_days})), ${defaults.webhook_deliveries_days})::int as webhook_deliveries_days
    from tenants t left join retention_settings r on r.tenant_id = t.id`;
  return r!;
}
