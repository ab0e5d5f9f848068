// The last hour minute by minute (GET /v1/analytics/timeseries?period=1h): the hourly rollups are too
// coarse for it, so it counts the hour's notifications themselves, read through the time index
// (notifications_list_by_time): one hour of one scope's rows, grouped by minute of creation, in the
// day partitions that can hold them (store/history-keys.ts createdSince).
import { reader } from "./db";
import { createdSince } from "./history-keys";
import { COUNTERS, type Counters } from "./analytics";

const MINUTE_MS = 60_000;

/** One point per minute from `since` (a whole minute) to now, empty minutes as zeros; counters by the minute of creation (a cohort, as the rollups count). */
export async function minuteSeries(tenantId: string, environment: string, since: Date): Promise<(Counters & { bucket: Date })[]> {
  const rows = await reader()<(Counters & { bucket: Date })[]>`
    select date_trunc('minute', created_at) as bucket,
      count(*)::int as total,
      count(*) filter (where sent_at is not null or delivered_at is not null or bounced_at is not null)::int as sent,
      count(*) filter (where status = 'delivered')::int as delivered,
      count(*) filter (where status = 'failed')::int as failed,
      count(*) filter (where status = 'bounced')::int as bounced,
      count(*) filter (where status = 'suppressed')::int as suppressed,
      count(*) filter (where opened_at is not null)::int as opened,
      count(*) filter (where clicked_at is not null)::int as clicked,
      count(*) filter (where complained_at is not null)::int as complained
    from notifications
    where tenant_id = ${tenantId} and environment = ${environment} and created_at >= ${since}
      ${createdSince("id", since.getTime())}
    group by 1`;
  const byTime = new Map(rows.map((r) => [new Date(r.bucket).getTime(), r]));
  const out: (Counters & { bucket: Date })[] = [];
  for (let t = since.getTime(); t <= Date.now(); t += MINUTE_MS) {
    const r = byTime.get(t);
    out.push({ bucket: new Date(t), ...(Object.fromEntries(COUNTERS.map((c) => [c, r ? r[c] : 0])) as Counters) });
  }
  return out;
}

/** The first whole minute of the last hour. */
export function lastHourStart(now = Date.now()): Date {
  const d = new Date(now - 3_600_000);
  d.setUTCSeconds(0, 0);
  return d;
}
