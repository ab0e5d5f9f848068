// Benchmark of the analytics routes with 1,000,000 notifications in one tenant: rows made with
// generate_series over 30 days (and their hourly rollups, as accept and the sender keep them),
// then p50/p99 of each route over a real listening API process. Target: p99 < 50 ms.
//
// Usage: bun scripts/bench-analytics.ts [--rows 1000000] [--requests 300]
// Loopback only; bounded; deletes its tenant (and so its rows) at the end.
import { spawn, type Subprocess } from "bun";
import { join } from "node:path";

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ""), process.argv[i + 1] ?? "");
const rows = Number(args.get("rows") ?? 1_000_000);
const requests = Number(args.get("requests") ?? 300);
const root = join(import.meta.dir, "..");
const prefix = `benchana${Math.random().toString(36).slice(2, 8)}`;
process.env.REDIS_PREFIX = prefix;

const { sql } = await import("../store/db");
const { createTenant } = await import("../store/tenants");
const { redis } = await import("../store/redis");

const { tenant, apiKey } = await createTenant(`bench-analytics-${prefix}`);
const port = 20000 + Math.floor(Math.random() * 12000); // below the kernel's ephemeral range (32768+), where client sockets would collide
let api: Subprocess | null = null;

function pct(sorted: number[], p: number) {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}

try {
  console.log(`generating ${rows.toLocaleString()} notifications over 30 days ...`);
  const t0 = performance.now();
  await sql`
    insert into notifications (id, tenant_id, environment, channel, recipient, template_slug, data, metadata, status,
                               attempt_count, created_at, updated_at, sent_at, delivered_at, failed_at, bounced_at, suppressed_reason)
    select gen_random_uuid(), ${tenant.id}, 'production',
      (array['email','sms','whatsapp','push','in_app'])[1 + (i % 5)],
      'user' || (i % 50000) || '@example.com',
      case when i % 7 = 0 then null else 'template-' || (i % 40) end,
      '{}'::jsonb, '{}'::jsonb,
      s.status, 1, t.created_at, t.created_at,
      case when s.status in ('sent', 'delivered', 'bounced') then t.created_at end,
      case when s.status = 'delivered' then t.created_at end,
      case when s.status = 'failed' then t.created_at end,
      case when s.status = 'bounced' then t.created_at end,
      case when s.status = 'suppressed' then 'unsubscribed' end
    from generate_series(1, ${rows}) as i,
      -- i * 0 ties the lateral to each row, so random() runs per row, not once
      lateral (select now() - ((random() + i * 0) * interval '30 days') as created_at) t,
      lateral (select (array['delivered','delivered','delivered','delivered','delivered','delivered','sent','failed','bounced','suppressed'])[1 + (i % 10)] as status) s`;
  // the rollups accept and the sender would have written for these rows (cohort: the creation hour)
  await sql`
    insert into notification_stats_hourly (tenant_id, environment, hour, channel, template, shard, total, sent, delivered, failed, bounced, suppressed)
    select tenant_id, environment, date_trunc('hour', created_at), channel, coalesce(template_slug, ''), 0,
      count(*), count(*) filter (where status in ('sent', 'delivered', 'bounced')), count(*) filter (where status = 'delivered'),
      count(*) filter (where status = 'failed'), count(*) filter (where status = 'bounced'), count(*) filter (where status = 'suppressed')
    from notifications where tenant_id = ${tenant.id}
    group by 1, 2, 3, 4, 5`;
  await sql`
    insert into notification_stats_daily (tenant_id, environment, day, channel, template, shard, total, sent, delivered, failed, bounced, suppressed)
    select tenant_id, environment, date_trunc('day', hour at time zone 'UTC') at time zone 'UTC', channel, template, 0,
      sum(total), sum(sent), sum(delivered), sum(failed), sum(bounced), sum(suppressed)
    from notification_stats_hourly where tenant_id = ${tenant.id} group by 1, 2, 3, 4, 5`;
  // what autovacuum does to settled rollup rows on a running system (visibility map for index-only scans)
  await sql`vacuum analyze notification_stats_hourly`;
  await sql`vacuum analyze notification_stats_daily`;
  await sql`analyze notifications`;
  const [{ n }] = await sql`select count(*)::int as n from notifications where tenant_id = ${tenant.id}`;
  const [{ r }] = await sql`select count(*)::int as r from notification_stats_hourly where tenant_id = ${tenant.id}`;
  const [{ dr }] = await sql`select count(*)::int as dr from notification_stats_daily where tenant_id = ${tenant.id}`;
  console.log(`${n.toLocaleString()} notifications, ${r.toLocaleString()} hourly + ${dr.toLocaleString()} daily rollup rows, in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  api = spawn({
    cmd: [process.execPath, "scripts/start.ts", "--only", "api"],
    cwd: root,
    env: { ...process.env, PORT: String(port), REDIS_PREFIX: prefix, LOG_LEVEL: "warn", RATE_LIMIT_PER_MINUTE: "100000000" },
    stdout: "ignore",
    stderr: "inherit",
  });
  for (let i = 0; i < 200; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health`)).status < 500) break;
    } catch {}
    await Bun.sleep(100);
  }

  const routes = [
    "/v1/analytics/overview",
    "/v1/analytics/overview?period=30d",
    "/v1/analytics/channels?period=7d",
    "/v1/analytics/channels?period=30d",
    "/v1/analytics/timeseries",
    "/v1/analytics/timeseries?period=7d",
    "/v1/analytics/timeseries?period=30d",
    "/v1/analytics/timeseries?period=7d&granularity=hour",
    "/v1/analytics/templates?period=30d",
    "/v1/analytics/templates?period=30d&limit=100",
  ];
  const headers = { authorization: `Bearer ${apiKey.raw}` };
  const summary: Record<string, { p50: number; p99: number; max: number }> = {};
  let worstP99 = 0;
  for (const path of routes) {
    const url = `http://127.0.0.1:${port}${path}`;
    for (let i = 0; i < 20; i++) await (await fetch(url, { headers })).arrayBuffer(); // warm
    const lat: number[] = [];
    // 4 clients at once, so the numbers include some contention, bounded by `requests`
    let left = requests;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (left-- > 0) {
          const t = performance.now();
          const res = await fetch(url, { headers });
          await res.arrayBuffer();
          if (res.status !== 200) throw new Error(`${path} -> ${res.status}`);
          lat.push(performance.now() - t);
        }
      }),
    );
    lat.sort((a, b) => a - b);
    const s = { p50: +pct(lat, 0.5).toFixed(2), p99: +pct(lat, 0.99).toFixed(2), max: +lat[lat.length - 1]!.toFixed(2) };
    worstP99 = Math.max(worstP99, s.p99);
    summary[path] = s;
    console.log(`${path.padEnd(48)} p50 ${s.p50} ms  p99 ${s.p99} ms  max ${s.max} ms`);
  }
  const check = await (await fetch(`http://127.0.0.1:${port}/v1/analytics/overview?period=30d`, { headers })).json();
  console.log(`overview 30d total = ${check.data.total.toLocaleString()} (expected ${n.toLocaleString()})`);
  console.log(`worst p99 ${worstP99} ms (target < 50 ms)`);
  console.log(JSON.stringify({ bench: "analytics", rows: n, rollup_rows: r, worst_p99_ms: worstP99, routes: summary }));
} finally {
  api?.kill();
  console.log("cleaning up ...");
  await sql`delete from notification_stats_hourly where tenant_id = ${tenant.id}`;
  await sql`delete from notification_stats_daily where tenant_id = ${tenant.id}`;
  await sql`delete from notifications where tenant_id = ${tenant.id}`;
  await sql`delete from tenants where id = ${tenant.id}`;
  await sql.end();
  redis.disconnect();
}
process.exit(0);
