// Analytics rollups: hourly counters per (tenant, environment, hour, channel, template), bumped in
// the same transaction as the change they count, and the four read models of DESIGN.md 6.
import { sql, type Tx } from "./db";

export const COUNTERS = ["total", "sent", "delivered", "failed", "bounced", "suppressed"] as const;
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

/** Rows per counter key (0251): concurrent batches pick different ones and do not queue on a lock. */
export const STAT_SHARDS = 8;

/**
 * Applies many deltas in one statement. Deltas for the same row are summed first (ON CONFLICT
 * may touch a row once per statement) and rows go in key order, so concurrent batches lock
 * shared rows in the same order and cannot deadlock. One batch writes one shard.
 */
export async function applyCounters(tx: Tx, deltas: CounterDelta[]): Promise<void> {
  if (deltas.length === 0) return;
  const shard = Math.floor(Math.random() * STAT_SHARDS);
  const rows = new Map<string, { t: string; e: string; h: string; c: string; tp: string; v: number[] }>();
  for (const d of deltas) {
    const h = hourOf(d.createdAt);
    const tp = d.template ?? "";
    const k = `${d.tenantId}|${d.environment}|${h}|${d.channel}|${tp}`;
    let row = rows.get(k);
    if (!row) rows.set(k, (row = { t: d.tenantId, e: d.environment, h, c: d.channel, tp, v: [0, 0, 0, 0, 0, 0] }));
    row.v[COUNTERS.indexOf(d.counter)]! += d.by ?? 1;
  }
  const sorted = [...rows.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([, r]) => r);
  const col = (i: number) => sorted.map((r) => r.v[i]!);
  await tx`
    insert into notification_stats_hourly as s (tenant_id, environment, hour, channel, template, total, sent, delivered, failed, bounced, suppressed, shard)
    select *, ${shard}::smallint from unnest(
      ${sorted.map((r) => r.t)}::uuid[], ${sorted.map((r) => r.e)}::text[], ${sorted.map((r) => r.h)}::timestamptz[],
      ${sorted.map((r) => r.c)}::text[], ${sorted.map((r) => r.tp)}::text[],
      ${col(0)}::bigint[], ${col(1)}::bigint[], ${col(2)}::bigint[], ${col(3)}::bigint[], ${col(4)}::bigint[], ${col(5)}::bigint[])
    on conflict (tenant_id, environment, hour, channel, template, shard) do update set
      total = s.total + excluded.total, sent = s.sent + excluded.sent, delivered = s.delivered + excluded.delivered,
      failed = s.failed + excluded.failed, bounced = s.bounced + excluded.bounced, suppressed = s.suppressed + excluded.suppressed`;
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

const sums = () => sql`coalesce(sum(total), 0)::int as total, coalesce(sum(sent), 0)::int as sent,
  coalesce(sum(delivered), 0)::int as delivered, coalesce(sum(failed), 0)::int as failed,
  coalesce(sum(bounced), 0)::int as bounced, coalesce(sum(suppressed), 0)::int as suppressed`;

export async function overview(tenantId: string, environment: string, since: Date): Promise<Counters> {
  const [row] = await sql<Counters[]>`select ${sums()} from notification_stats_hourly
    where tenant_id = ${tenantId} and environment = ${environment} and hour >= ${since}`;
  return row!;
}

export async function byChannel(tenantId: string, environment: string, since: Date): Promise<(Counters & { channel: string })[]> {
  return await sql<(Counters & { channel: string })[]>`select channel, ${sums()} from notification_stats_hourly
    where tenant_id = ${tenantId} and environment = ${environment} and hour >= ${since}
    group by channel order by channel`;
}

export async function byTemplate(tenantId: string, environment: string, since: Date, limit: number): Promise<(Counters & { template: string })[]> {
  return await sql<(Counters & { template: string })[]>`select template, ${sums()} from notification_stats_hourly
    where tenant_id = ${tenantId} and environment = ${environment} and hour >= ${since} and template <> ''
    group by template order by total desc, template limit ${limit}`;
}

/** One point per bucket from the first to the current one, empty buckets included as zeros. */
export async function timeseries(
  tenantId: string,
  environment: string,
  since: Date,
  granularity: "hour" | "day",
): Promise<(Counters & { bucket: Date })[]> {
  const step = granularity === "hour" ? "1 hour" : "1 day";
  return await sql<(Counters & { bucket: Date })[]>`
    with buckets as (
      select generate_series(date_trunc(${granularity}, ${since}::timestamptz at time zone 'UTC') at time zone 'UTC',
                             date_trunc(${granularity}, now() at time zone 'UTC') at time zone 'UTC',
                             ${step}::interval) as bucket
    ), agg as (
      select date_trunc(${granularity}, hour at time zone 'UTC') at time zone 'UTC' as bucket, ${sums()}
      from notification_stats_hourly
      where tenant_id = ${tenantId} and environment = ${environment} and hour >= ${since}
      group by 1
    )
    select b.bucket, coalesce(a.total, 0)::int as total, coalesce(a.sent, 0)::int as sent, coalesce(a.delivered, 0)::int as delivered,
      coalesce(a.failed, 0)::int as failed, coalesce(a.bounced, 0)::int as bounced, coalesce(a.suppressed, 0)::int as suppressed
    from buckets b left join agg a on a.bucket = b.bucket order by b.bucket`;
}
