// Analytics rollups: hourly counters per (tenant, environment, hour, channel, template), bumped in
// the same transaction as the change they count, and the four read models of DESIGN.md 6 (plus engagement).
import { reader, sql, type Tx } from "./db";

export const COUNTERS = ["total", "sent", "delivered", "failed", "bounced", "suppressed", "opened", "clicked", "complained"] as const;
export type Counter = (typeof COUNTERS)[number];
export type Counters = Record<Counter, number>;

export interface CounterDelta {
  tenantId: string;
  environment: string;
  /** the notification's created_at: counters are cohort counters (see 0250_notifications.sql) */
  createdAt: Date | string;
  channel: string;
  template: string | null;
  counter: Counter;
  by?: number;
}

function hourOf(d: Date | string): string {
  const t = new Date(d);
  t.setUTCMinutes(0, 0, 0);
  return t.toISOString();
}

function dayOf(hourIso: string): string {
  return `${hourIso.slice(0, 10)}T00:00:00.000Z`;
}

/**
 * Each batch adds its deltas as rows of a random shard 1..32767 (0251), so concurrent accept and
 * delivery transactions never queue on one hot row lock; compactCounters() folds them into
 * shard 0 periodically (the reconciler's tick), which keeps the row count bounded. Reads sum shards.
 */
const SHARD_SPACE = 32_767;

/**
 * Applies many deltas in one statement to the hourly and the daily rollups. Deltas for the same
 * row are summed first (ON CONFLICT may touch a row once per statement) and rows go in key
 * order, so concurrent batches lock shared rows in the same order and cannot deadlock. One
 * batch writes one shard.
 */
export async function applyCounters(tx: Tx, deltas: CounterDelta[]): Promise<void> {
  const ctes = counterCtes(tx, deltas);
  if (ctes) await tx`with ${ctes} select 1`;
}

/**
 * applyCounters as WITH items (`cd`, `ch`, `cdd`) to embed in a larger statement, so a batch's
 * rows and counts commit in one round trip; null when there is nothing to count. Data-modifying
 * WITH items always run to completion, whether or not the main query reads them.
 */
export function counterCtes(tx: Tx, deltas: CounterDelta[], opts?: { onlyIfInserted: { ids: string[] } }) {
  if (deltas.length === 0) return null;
  const shard = 1 + Math.floor(Math.random() * (SHARD_SPACE - 1));
  const rows = new Map<string, { t: string; e: string; h: string; c: string; tp: string; row: string | null; v: number[] }>();
  deltas.forEach((d, i) => {
    const h = hourOf(d.createdAt);
    const tp = d.template ?? "";
    // counted only if its row is inserted: deltas stay apart per row and are summed in SQL
    const row = opts ? opts.onlyIfInserted.ids[i]! : null;
    const k = `${d.tenantId}|${d.environment}|${h}|${d.channel}|${tp}|${row ?? ""}`;
    let r = rows.get(k);
    if (!r) rows.set(k, (r = { t: d.tenantId, e: d.environment, h, c: d.channel, tp, row, v: COUNTERS.map(() => 0) }));
    r.v[COUNTERS.indexOf(d.counter)]! += d.by ?? 1;
  });
  const sorted = [...rows.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([, r]) => r);
  // one bigint[] per counter, in COUNTERS order, joined as unnest arguments
  const columns = COUNTERS.map((_, i) => tx`${sorted.map((r) => r.v[i]!)}::bigint[]`);
  const counterArgs = columns.slice(1).reduce((acc, c) => tx`${acc}, ${c}`, columns[0]!);
  const source = tx`unnest(
        ${sorted.map((r) => r.t)}::uuid[], ${sorted.map((r) => r.e)}::text[], ${sorted.map((r) => r.h)}::timestamptz[],
        ${sorted.map((r) => dayOf(r.h))}::timestamptz[], ${sorted.map((r) => r.c)}::text[], ${sorted.map((r) => r.tp)}::text[],
        ${sorted.map((r) => r.row)}::uuid[], ${counterArgs})
        as x(tenant_id, environment, hour, day, channel, template, row, ${tx.unsafe(COUNTER_LIST)})`;
  // Without a row filter the deltas are already one per key; with one (rows of a data-modifying
  // CTE `ins` in the same statement) the inserted rows' deltas are summed per key, in key order.
  const cd = opts
    ? tx`select tenant_id, environment, hour, day, channel, template, ${tx.unsafe(SUM_AS_LIST)} from ${source}
        where x.row in (select id from ins) group by 1, 2, 3, 4, 5, 6 order by 1, 2, 3, 5, 6`
    : tx`select tenant_id, environment, hour, day, channel, template, ${tx.unsafe(COUNTER_LIST)} from ${source}`;
  // The daily rows are the hourly deltas summed per day, in the same (key) order.
  return tx`
    cd as (${cd}), ch as (
      insert into notification_stats_hourly as s (tenant_id, environment, hour, channel, template, shard, ${tx.unsafe(COUNTER_LIST)})
      select tenant_id, environment, hour, channel, template, ${shard}::smallint, ${tx.unsafe(COUNTER_LIST)} from cd
      on conflict (tenant_id, environment, hour, channel, template, shard) do update set ${tx.unsafe(ADD_EXCLUDED)}
      returning 1
    ), cdd as (
      insert into notification_stats_daily as s (tenant_id, environment, day, channel, template, shard, ${tx.unsafe(COUNTER_LIST)})
      select tenant_id, environment, day, channel, template, ${shard}::smallint, ${tx.unsafe(SUM_LIST)}
      from cd group by tenant_id, environment, day, channel, template
      order by tenant_id, environment, day, channel, template
      on conflict (tenant_id, environment, day, channel, template, shard) do update set ${tx.unsafe(ADD_EXCLUDED)}
      returning 1
    )`;
}

// SQL fragments over the constant COUNTERS list (never user input): column list, sums, upsert additions.
const COUNTER_LIST = COUNTERS.join(", ");
const SUM_LIST = COUNTERS.map((c) => `sum(${c})`).join(", ");
const SUM_AS_LIST = COUNTERS.map((c) => `sum(${c}) ${c}`).join(", ");
const ADD_EXCLUDED = COUNTERS.map((c) => `${c} = s.${c} + excluded.${c}`).join(", ");

/**
 * The fold of one rollup's delta rows (shard <> 0) into their shard-0 rows, returning how many it folded
 * (exported so a test can check its plan: the delta rows come from the partial index of migration 0916).
 */
export function compactStatement(table: "notification_stats_hourly" | "notification_stats_daily") {
  const bucket = table === "notification_stats_hourly" ? "hour" : "day";
  return `
      with moved as (
        -- rows a delivery or accept batch is updating right now are left for the next run: the
        -- compaction never waits on (or deadlocks with) the transactions that write counters
        delete from ${table} where ctid in (
          select ctid from ${table} where shard <> 0
          order by tenant_id, environment, ${bucket}, channel, template, shard
          for update skip locked)
        returning *
      ), sums as (
        select tenant_id, environment, ${bucket}, channel, template, ${SUM_AS_LIST}, count(*) n
        from moved group by 1, 2, 3, 4, 5
      ), folded as (
        insert into ${table} as s (tenant_id, environment, ${bucket}, channel, template, shard, ${COUNTER_LIST})
        select tenant_id, environment, ${bucket}, channel, template, 0, ${COUNTER_LIST} from sums
        order by 1, 2, 3, 4, 5
        on conflict (tenant_id, environment, ${bucket}, channel, template, shard) do update set ${ADD_EXCLUDED}
        returning 1
      )
      select coalesce(sum(n), 0)::int as n from sums`;
}

/** Folds every delta row (shard <> 0) into its shard-0 row; returns the rows folded. */
export async function compactCounters(): Promise<number> {
  let folded = 0;
  for (const table of ["notification_stats_hourly", "notification_stats_daily"] as const) {
    const [r] = await sql.unsafe(compactStatement(table));
    folded += Number(r?.n ?? 0);
  }
  return folded;
}

export const PERIOD_MS: Record<string, number> = {
  "1h": 3_600_000,
  "24h": 86_400_000,
  "7d": 7 * 86_400_000,
  "30d": 30 * 86_400_000,
};

/** First hour bucket of a period: the bucket holding (now - period), so the window is whole hours. */
export function periodStart(period: string, now = Date.now()): Date {
  const d = new Date(now - PERIOD_MS[period]!);
  d.setUTCMinutes(0, 0, 0);
  return d;
}

const sums = () => sql.unsafe(COUNTERS.map((c) => `coalesce(sum(${c}), 0)::int as ${c}`).join(", "));

/** The first midnight (UTC) at or after `since`: whole days from there are read from the daily table. */
function firstWholeDay(since: Date): Date {
  const d = new Date(since);
  if (d.getUTCHours() === 0 && d.getUTCMinutes() === 0 && d.getUTCSeconds() === 0 && d.getUTCMilliseconds() === 0) return d;
  d.setUTCHours(24, 0, 0, 0);
  return d;
}

/**
 * Rollup rows covering [since, now): hourly rows for the partial first day, daily rows after.
 * Columns: bucket (hour or day start), channel, template and the counters.
 */
function window(tenantId: string, environment: string, since: Date) {
  const day = firstWholeDay(since);
  return sql`(
    select hour as bucket, channel, template, ${sql.unsafe(COUNTER_LIST)} from notification_stats_hourly
    where tenant_id = ${tenantId} and environment = ${environment} and hour >= ${since} and hour < ${day}
    union all
    select day as bucket, channel, template, ${sql.unsafe(COUNTER_LIST)} from notification_stats_daily
    where tenant_id = ${tenantId} and environment = ${environment} and day >= ${day}
  ) w`;
}

export async function overview(tenantId: string, environment: string, since: Date): Promise<Counters> {
  const [row] = await reader()<Counters[]>`select ${sums()} from ${window(tenantId, environment, since)}`;
  return row!;
}

export async function byChannel(tenantId: string, environment: string, since: Date): Promise<(Counters & { channel: string })[]> {
  return await reader()<(Counters & { channel: string })[]>`select channel, ${sums()} from ${window(tenantId, environment, since)}
    group by channel order by channel`;
}

export async function byTemplate(tenantId: string, environment: string, since: Date, limit: number): Promise<(Counters & { template: string })[]> {
  return await reader()<(Counters & { template: string })[]>`select template, ${sums()} from ${window(tenantId, environment, since)}
    where template <> '' group by template order by total desc, template limit ${limit}`;
}

/** One point per bucket from the first to the current one, empty buckets included as zeros. */
export async function timeseries(
  tenantId: string,
  environment: string,
  since: Date,
  granularity: "hour" | "day",
): Promise<(Counters & { bucket: Date })[]> {
  const rows =
    granularity === "hour"
      ? await reader()<(Counters & { bucket: Date })[]>`select hour as bucket, ${sums()} from notification_stats_hourly
          where tenant_id = ${tenantId} and environment = ${environment} and hour >= ${since} group by hour`
      : await reader()<(Counters & { bucket: Date })[]>`select date_trunc('day', bucket at time zone 'UTC') at time zone 'UTC' as bucket, ${sums()}
          from ${window(tenantId, environment, since)} group by 1`;
  // Buckets are filled in here rather than with generate_series: at most 744 of them.
  const step = granularity === "hour" ? 3_600_000 : 86_400_000;
  const first = new Date(since);
  if (granularity === "day") first.setUTCHours(0, 0, 0, 0);
  const byTime = new Map(rows.map((r) => [new Date(r.bucket).getTime(), r]));
  const out: (Counters & { bucket: Date })[] = [];
  for (let t = first.getTime(); t <= Date.now(); t += step) {
    const r = byTime.get(t);
    out.push({ bucket: new Date(t), ...(Object.fromEntries(COUNTERS.map((c) => [c, r ? r[c] : 0])) as Counters) });
  }
  return out;
}
