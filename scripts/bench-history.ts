// bench:history (issue 26): the same workload on an empty database and after filling history in SQL
// (notifications with attempts and events across 60 days, many tenants), in one run; then the retention
// of one tenant's old rows while accepts go on, and the partition job's drop of the expired days. The
// history tables are partitioned by day (migration 0860): the bench lays out the 60 past days as day
// partitions, as after 60 days of running partitioned (a fresh database's empty legacy partition is
// dropped first). SCALED DOWN by default (--rows 200000 --tenants 50, not
// the 50 million and 1,000): a shared 2-core machine. The bench owns BENCH_DATABASE_URL and empties it.
// The fill is one INSERT ... SELECT generate_series per day (notifications, attempts and events in one
// statement), printing a line per day.
//
// Usage: npm run bench:history -- [--rows 200000] [--tenants 50] [--requests 300] [--victim-rows 1000000] [--fill-only 1]
// --victim-rows gives the tenant the retention phase sweeps that many extra notifications 21-60 days old;
// --fill-only 1 stops after the fill and keeps the rows.
// Workload (in-process through app.handle, no network): accept = POST /v1/notifications; reads = the
// feed, a detail and analytics overview; deliver = the delivery's SQL per message (status move and
// attempt row in one transaction; the provider call and the actor runtime are left out).
export {};
// a Redis prefix of its own (deleted at the end), and no rate limit in the way of the workload
process.env.REDIS_PREFIX ??= `benchhist${process.pid}`;
process.env.RATE_LIMIT_PER_MINUTE ??= "1000000";
process.env.LOG_LEVEL ??= "warn";
const { buildApp } = await import("../http/app");
const { sql } = await import("../store/db");
const { newId } = await import("../store/ids");
const { createTenant } = await import("../store/tenants");
const { insertApiKey } = await import("../store/api-keys");
const { sweepTenant } = await import("../domain/lifecycle/retention");
const { maintainPartitions } = await import("../domain/lifecycle/partitions");
const { redis } = await import("../store/redis");
const { deletePrefix } = await import("./bench-load");

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ""), process.argv[i + 1] ?? "");
const ROWS = Number(args.get("rows") ?? 200_000);
const TENANTS = Number(args.get("tenants") ?? 50);
const REQUESTS = Number(args.get("requests") ?? 300);
/** extra notifications 21-60 days old of the tenant the retention phase sweeps (the issue: 1 million) */
const VICTIM_ROWS = Number(args.get("victim-rows") ?? 0);
/** fill and stop, keeping the rows (to EXPLAIN statements against them) */
const FILL_ONLY = args.has("fill-only");
const DAYS = 60;
const app = buildApp();

const p = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(q * s.length))]! : 0;
};
const load = async () => (await Bun.$`uptime`.text()).trim().replace(/.*load average: /, "");

async function empty() {
  const [{ db }] = await sql`select current_database() as db`;
  if (!String(db).startsWith("nms_bench")) throw new Error(`bench:history empties its database: ${db} is not a bench database (BENCH_DATABASE_URL)`);
  // the bench's own database: every tenant and its cascade go (the audit log keeps its rows, as always)
  await sql`truncate tenants, events, notification_attempts, notification_engagements, webhook_deliveries, notification_stats_hourly, notification_stats_daily, notification_idempotency_keys cascade`;
  // day partitions for the past DAYS + 1 days instead of the (empty) legacy partition
  const first = new Date(Date.now() - (DAYS + 1) * 86_400_000).toISOString().slice(0, 10);
  for (const { table_name } of await sql`select table_name from history_partitioned_tables where converted_at is not null`) {
    await sql`drop table if exists ${sql(table_name + "_legacy")}`;
    await sql`update history_partitioned_tables set legacy_bound = nms_uuid_v7_floor(${first}::date::timestamp at time zone 'UTC') where table_name = ${table_name}`;
    await sql`select nms_create_day_partition(${table_name}, d::date) from generate_series(${first}::date, current_date + 7, interval '1 day') d`;
  }
}

async function call(method: string, path: string, key: string, body?: unknown) {
  const res = await app.handle(
    new Request(`http://localhost${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { "content-type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    }),
  );
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 200)}`);
  return JSON.parse(text);
}

/** n calls of fn, `concurrency` at a time; latencies in ms and CPU ms per call. */
async function timed(n: number, concurrency: number, fn: (i: number) => Promise<unknown>) {
  const lat: number[] = [];
  const cpu0 = process.cpuUsage();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        const i = next++;
        const t0 = performance.now();
        await fn(i);
        lat.push(performance.now() - t0);
      }
    }),
  );
  const c = process.cpuUsage(cpu0);
  return { p50: p(lat, 0.5), p99: p(lat, 0.99), cpuMs: (c.user + c.system) / 1000 / n };
}

async function workload(tenantId: string, key: string) {
  const ids: string[] = [];
  // warm-up, not measured: a fresh database's first accepts load caches (blocked domains, plans)
  for (let i = 0; i < 10; i++) await call("POST", "/v1/notifications", key, { channel: "email", to: `w${i}@example.com`, data: { subject: "s", content: "c" } });
  const accept = await timed(REQUESTS, 4, async (i) => {
    const r = await call("POST", "/v1/notifications", key, { channel: "email", to: `u${i}@example.com`, data: { subject: "s", content: "c" } });
    ids.push(r.data.id);
  });
  const deliver = await timed(REQUESTS, 4, async (i) => {
    const id = ids[i % ids.length]!;
    await sql.begin(async (tx) => {
      await tx`update notifications set status = 'delivered', attempt_count = 1, sent_at = now(), delivered_at = now(), updated_at = now() where id = ${id}`;
      await tx`insert into notification_attempts (id, notification_id, tenant_id, attempt_number, status, created_at)
               values (${newId()}, ${id}, ${tenantId}, 1, 'success', now()) on conflict do nothing`;
    });
  });
  const reads = await timed(REQUESTS, 4, async (i) => {
    if (i % 3 === 0) await call("GET", "/v1/notifications?limit=50", key);
    else if (i % 3 === 1) await call("GET", `/v1/notifications/${ids[i % ids.length]}`, key);
    else await call("GET", "/v1/analytics/overview?period=30d", key);
  });
  return { accept, deliver, reads };
}

/** A random UUID v7 of the moment `t` (SQL): its 48 bits of milliseconds, then gen_random_uuid()'s random bits. */
const V7_AT = (t: string) => `(lpad(to_hex(floor(extract(epoch from ${t}) * 1000)::bigint), 12, '0') || '7' || substr(replace(gen_random_uuid()::text, '-', ''), 14))::uuid`;

/**
 * `rows` notifications of `tenantIds` (round robin) in the UTC day `daysAgo` days back, directly in SQL in one
 * statement: their moments ascend through the day (today: up to now), each with 1.2 attempts and 2
 * events in the same day, as the service writes them. Straight into the day's partitions, in id order.
 */
async function fillDay(tenantIds: string[], daysAgo: number, rows: number) {
  if (rows <= 0) return;
  const tenants = `{${tenantIds.join(",")}}`;
  await sql.unsafe(`
    with src as (
      select g, least(date_trunc('day', now(), 'UTC') - ${daysAgo} * interval '1 day' + (g - 0.5) / ${rows} * interval '1 day', now() - interval '1 second') as t
      from generate_series(1, ${rows}) g
    ), ins as (
      insert into notifications (id, tenant_id, environment, channel, recipient, status, attempt_count, created_at, updated_at, sent_at, delivered_at)
      select ${V7_AT("t")}, ('${tenants}'::uuid[])[1 + (g % ${tenantIds.length})], 'sandbox', 'email', 'h' || g || '@example.com',
             'delivered', 1, t, t, t, t
      from src order by t
      returning id, tenant_id, created_at
    ), att as (
      insert into notification_attempts (id, notification_id, tenant_id, attempt_number, status, created_at)
      select ${V7_AT("created_at")}, id, tenant_id, a, case when a = 1 and random() < 0.2 then 'failure' else 'success' end, created_at
      from ins, generate_series(1, 2) a where a = 1 or random() < 0.2
      returning 1
    )
    insert into events (id, tenant_id, environment, type, data, created_at)
    select ${V7_AT("created_at")}, tenant_id, 'sandbox', e, jsonb_build_object('notification', jsonb_build_object('id', id)), created_at
    from ins, unnest(array['notification.created', 'notification.delivered']) e`);
}

/**
 * History for `tenantIds` directly in SQL, spread evenly over DAYS days (one statement per day, a
 * progress line per day), plus `victimRows` old notifications (21-60 days back) of `victim`; then the
 * rollups and statistics.
 */
async function fill(tenantIds: string[], rows: number, victim: string, victimRows: number) {
  const t0 = performance.now();
  const oldDays = DAYS - 21 + 1;
  for (let d = DAYS - 1; d >= 0; d--) {
    const n = Math.floor(rows / DAYS) + (d < rows % DAYS ? 1 : 0);
    await fillDay(tenantIds, d, n);
    if (d >= 21) await fillDay([victim], d, Math.floor(victimRows / oldDays) + (d - 21 < victimRows % oldDays ? 1 : 0));
    console.log(`  fill: day -${d} done, ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  }
  // the rollups, as accept and delivery keep them
  for (const [table, bucket] of [["notification_stats_hourly", "hour"], ["notification_stats_daily", "day"]] as const) {
    await sql.unsafe(`insert into ${table} (tenant_id, environment, ${bucket}, channel, template, shard, total, sent, delivered)
            select tenant_id, environment, date_trunc('${bucket}', created_at at time zone 'UTC') at time zone 'UTC', channel, '', 0, count(*), count(*), count(*)
            from notifications group by 1, 2, 3, 4
            on conflict do nothing`);
  }
  await sql`analyze notifications`;
  await sql`analyze notification_attempts`;
  await sql`analyze events`;
}

async function sizes() {
  return await sql<{ rel: string; rows: number; bytes: number }[]>`
    select v.rel, c.reltuples as rows, c.bytes
    from (values ('notifications'), ('notification_attempts'), ('events')) v(rel), lateral (
      select sum(c.reltuples)::bigint::int as reltuples, sum(pg_total_relation_size(c.oid))::bigint::float8 as bytes
      from pg_partition_tree(v.rel::regclass) t join pg_class c on c.oid = t.relid where t.isleaf) c order by 1`;
}

await empty();
const { tenant, apiKey } = await createTenant("bench-history");
const sandbox = await insertApiKey(sql, { tenantId: tenant.id, environment: "sandbox", keyType: "secret", name: "bench" });
void apiKey;
console.log(`bench:history, scaled down: ${ROWS} notification rows for ${TENANTS} tenants across ${DAYS} days (the issue: 50 million for 1,000)`);

// a first pass, not measured: a fresh process's first requests compile code and fill caches, which
// made the empty phase's p99 several times the filled one's (deliver 296 ms against 9 ms)
await workload(tenant.id, sandbox.raw);
const before = await workload(tenant.id, sandbox.raw);
console.log(`empty:  accept p99 ${before.accept.p99.toFixed(1)} ms cpu ${before.accept.cpuMs.toFixed(2)} ms/req | deliver p99 ${before.deliver.p99.toFixed(1)} ms | reads p99 ${before.reads.p99.toFixed(1)} ms   (load ${await load()})`);

const fillers: string[] = [tenant.id];
for (let i = 1; i < TENANTS; i++) fillers.push((await createTenant(`bench-history-${i}`)).tenant.id);
const f0 = performance.now();
await fill(fillers, ROWS, fillers[1]!, VICTIM_ROWS);
const fillSec = (performance.now() - f0) / 1000;
const sz = await sizes();
for (const s of sz) console.log(`  ${s.rel}: ${s.rows} rows, ${(s.bytes / 1e6).toFixed(1)} MB, ${(s.bytes / Math.max(1, s.rows)).toFixed(0)} bytes/row`);
console.log(`filled in ${fillSec.toFixed(1)} s (load ${await load()})`);
if (FILL_ONLY) {
  console.log(`--fill-only: the rows stay; tenant ${tenant.id} (sandbox) is the measured one, ${fillers[1]} the swept one`);
  await deletePrefix(redis as any, process.env.REDIS_PREFIX!);
  await sql.end({ timeout: 5 });
  process.exit(0);
}

const after = await workload(tenant.id, sandbox.raw);
console.log(`filled: accept p99 ${after.accept.p99.toFixed(1)} ms cpu ${after.accept.cpuMs.toFixed(2)} ms/req | deliver p99 ${after.deliver.p99.toFixed(1)} ms | reads p99 ${after.reads.p99.toFixed(1)} ms   (load ${await load()})`);

// retention of one tenant with a window shorter than the partitions' (20 days: the batched delete) while accepts go on
const victim = fillers[1]!;
const [{ n: oldRows }] = await sql`select count(*)::int as n from notifications where tenant_id = ${victim} and created_at < now() - interval '20 days'`;
let sweeping = true;
const r0 = performance.now();
const sweep = sweepTenant(victim, { notifications_days: 20, inbox_days: 365, webhook_deliveries_days: 20 }).finally(() => (sweeping = false));
const during: number[] = [];
// p99 of the accepts of each 10 s of the sweep: the target is that none is above 100 ms
const windows: number[][] = [];
let i = 0;
while (sweeping) {
  const t0 = performance.now();
  await call("POST", "/v1/notifications", sandbox.raw, { channel: "email", to: `r${i++}@example.com`, data: { subject: "s", content: "c" } });
  const ms = performance.now() - t0;
  during.push(ms);
  (windows[Math.floor((t0 - r0) / 10_000)] ??= []).push(ms);
}
const removed = await sweep;
const sweepMs = performance.now() - r0;
const windowP99 = windows.filter((w) => w && w.length).map((w) => p(w, 0.99));
console.log(
  `retention: ${removed.notifications} notifications (${oldRows} old) and ${removed.events} events of one tenant in ${sweepMs.toFixed(0)} ms; ` +
    `${during.length} accepts meanwhile, p99 ${p(during, 0.99).toFixed(1)} ms, highest p99 of a 10 s window ${Math.max(0, ...windowP99).toFixed(1)} ms, max ${p(during, 1).toFixed(1)} ms (load ${await load()})`,
);

// the partition job's pass: days older than the longest window (30, the default) leave whole, while accepts go on
let dropping = true;
const d0 = performance.now();
const pass = maintainPartitions().finally(() => (dropping = false));
const duringDrop: number[] = [];
while (dropping) {
  const t0 = performance.now();
  await call("POST", "/v1/notifications", sandbox.raw, { channel: "email", to: `d${i++}@example.com`, data: { subject: "s", content: "c" } });
  duringDrop.push(performance.now() - t0);
}
const dropped = await pass;
// one day = its partition of each history table
const perDay = new Map<string, number>();
dropped.dropped.forEach((name, k) => {
  const day = name.slice(-8);
  perDay.set(day, (perDay.get(day) ?? 0) + dropped.dropMs[k]!);
});
const dayMs = [...perDay.values()];
console.log(
  `partition drop: ${dropped.dropped.length} partitions (${perDay.size} days) in ${(performance.now() - d0).toFixed(0)} ms; a day's drop p50 ${p(dayMs, 0.5).toFixed(0)} ms, max ${p(dayMs, 1).toFixed(0)} ms; ` +
    `${duringDrop.length} accepts meanwhile, p99 ${p(duringDrop, 0.99).toFixed(1)} ms, max ${p(duringDrop, 1).toFixed(1)} ms (load ${await load()})`,
);

await empty();
const r = (a: number, b: number) => (b > 0 ? (a / b).toFixed(2) : "n/a");
const total = sz.reduce((a, s) => a + s.rows, 0);
console.log(
  `history: ${total} rows, accept ${r(after.accept.p99, before.accept.p99)} of empty, deliver ${r(after.deliver.p99, before.deliver.p99)} of empty, ` +
    `reads p99 ${after.reads.p99.toFixed(0)} ms (${r(after.reads.p99, before.reads.p99)} of empty), drop day ${dayMs.length ? p(dayMs, 1).toFixed(0) : "n/a"} ms`,
);
await deletePrefix(redis as any, process.env.REDIS_PREFIX!);
await sql.end({ timeout: 5 });
process.exit(0);
