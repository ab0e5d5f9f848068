// bench:history's database (issue 26): lays a bench database out as day partitions of the past DAYS days,
// and fills history in SQL, either through the partitioned parents or day by day into standalone tables.
// The "attach" fill (the default) loads a day into tables without indexes, builds their indexes after the
// load and attaches them as the day's partitions: the indexes match the parents' (attached without a
// rebuild) and a CHECK of the bounds spares the attach its validation scan. The "insert" fill is the
// earlier one: one INSERT ... SELECT per day into the parents, every index kept up row by row.
import { readFileSync } from "node:fs";
import { poolApplicationName, sql, type Tx } from "../store/db";

export const DAYS = 60;
/** the tables the fill writes, with their partition key */
const TABLES = [
  ["notifications", "id"],
  ["notification_attempts", "notification_id"],
  ["events", "id"],
] as const;

/** Empties the bench database and lays out day partitions for the past DAYS + 1 days and the next 7. */
export async function emptyBenchDatabase() {
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

/**
 * CPU ms so far of this process's PostgreSQL backends, by pid (/proc, the server runs on this machine; clock ticks
 * of 10 ms): both of its pools (store/db.ts sql and genericPlans, whose name adds "-generic").
 */
export async function backendCpu(): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  const names = [poolApplicationName, `${poolApplicationName}-generic`];
  for (const { pid } of await sql`select pid from pg_stat_activity where application_name = any(${names})`) {
    try {
      const f = readFileSync(`/proc/${pid}/stat`, "utf8").replace(/^.*\) /, "").split(" ");
      out.set(pid, (Number(f[11]) + Number(f[12])) * 10);
    } catch {
      // gone, or not readable: left out
    }
  }
  return out;
}

/**
 * A random UUID v7 of the moment `t` (SQL): 48 bits of milliseconds, the version 7, 12 random bits; the variant
 * 10, 62 bits of random() (52 of them random). random(), not gen_random_uuid(): half the time per row (gen_random_uuid() alone took
 * 1.9 s for 833,000 rows, this whole expression 1.4 s; the fill makes 4.2 ids per notification).
 */
const V7_AT = (t: string) =>
  `(lpad(to_hex((floor(extract(epoch from ${t}) * 1000)::bigint << 16) | 28672 | (random() * 4095)::int), 16, '0') || to_hex((random() * 4611686018427387903)::bigint | (-9223372036854775807 - 1)))::uuid`;

/**
 * One statement writing `rows` notifications of `tenantIds` (round robin) in the UTC day `daysAgo` days back
 * into the tables `into` names: their moments ascend through the day (today: up to now), each with 1.2
 * attempts and 2 events in the same day, as the service writes them, in id order.
 */
function dayStatement(into: Record<(typeof TABLES)[number][0], string>, tenantIds: string[], daysAgo: number, rows: number) {
  const tenants = `{${tenantIds.join(",")}}`;
  return `
    with src as (
      select g, least(date_trunc('day', now(), 'UTC') - ${daysAgo} * interval '1 day' + (g - 0.5) / ${rows} * interval '1 day', now() - interval '1 second') as t
      from generate_series(1, ${rows}) g
    ), ins as (
      insert into ${into.notifications} (id, tenant_id, environment, channel, recipient, status, attempt_count, created_at, updated_at, sent_at, delivered_at)
      select ${V7_AT("t")}, ('${tenants}'::uuid[])[1 + (g % ${tenantIds.length})], 'sandbox', 'email', 'h' || g || '@example.com',
             'delivered', 1, t, t, t, t
      from src order by t
      returning id, tenant_id, created_at
    ), att as (
      insert into ${into.notification_attempts} (id, notification_id, tenant_id, attempt_number, status, created_at)
      select ${V7_AT("created_at")}, id, tenant_id, a, case when a = 1 and random() < 0.2 then 'failure' else 'success' end, created_at
      from ins, generate_series(1, 2) a where a = 1 or random() < 0.2
      returning 1
    )
    insert into ${into.events} (id, tenant_id, environment, type, data, created_at)
    select ${V7_AT("created_at")}, tenant_id, 'sandbox', e, jsonb_build_object('notification', jsonb_build_object('id', id)), created_at
    from ins, unnest(array['notification.created', 'notification.delivered']) e`;
}

type Part = { tenantIds: string[]; rows: number };
const PARENTS = { notifications: "notifications", notification_attempts: "notification_attempts", events: "events" };

/** The rollups of the notifications in `from` (a day's table, or all of them), as accept and delivery keep them. */
async function rollups(tx: Tx, from: string) {
  for (const [table, bucket] of [["notification_stats_hourly", "hour"], ["notification_stats_daily", "day"]] as const) {
    await tx.unsafe(`insert into ${table} (tenant_id, environment, ${bucket}, channel, template, shard, total, sent, delivered)
            select tenant_id, environment, date_trunc('${bucket}', created_at at time zone 'UTC') at time zone 'UTC', channel, '', 0, count(*), count(*), count(*)
            from ${from} group by 1, 2, 3, 4
            on conflict do nothing`);
  }
}

/** The parent's indexes as statements for table `t` (named `<name>_i<n>`); constraint indexes as constraints, so they attach. */
async function indexStatements(parent: string, t: string, name: string) {
  const defs = await sql<{ def: string; con: string | null }[]>`
    select pg_get_indexdef(i.indexrelid) as def, pg_get_constraintdef(c.oid) as con
    from pg_index i left join pg_constraint c on c.conindid = i.indexrelid and c.conrelid = i.indrelid
    where i.indrelid = ${parent}::regclass order by i.indexrelid`;
  return defs.map((d, k) =>
    d.con
      ? `alter table ${t} add constraint ${name}_i${k} ${d.con}`
      : d.def.replace(/^CREATE (UNIQUE )?INDEX \S+ ON ONLY \S+ USING /, `CREATE $1INDEX ${name}_i${k} ON ${t} USING `),
  );
}

/**
 * One day by the attach fill, on a connection of its own: the day's rows into standalone tables (no
 * indexes; a CHECK of the day's bounds), their rollups, their indexes, then they replace the day's
 * partitions. Rows already in the day's partitions are copied over first (none after emptyBenchDatabase).
 */
async function attachDay(daysAgo: number, parts: Part[]) {
  const ms: Record<string, number> = {};
  let t = performance.now();
  const step = (name: string) => ((ms[name] = (ms[name] ?? 0) + performance.now() - t), (t = performance.now()));
  const day = new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);
  const c = await sql.reserve();
  try {
    // the bench's own session: memory for the index sorts and the statement's returned rows; no wait for the WAL
    // flush; index builds in this backend (the jobs use the cores; and its CPU is then all in backendCpu)
    await c.unsafe(`set maintenance_work_mem = '256MB'; set work_mem = '128MB'; set synchronous_commit = off; set max_parallel_maintenance_workers = 0`);
    const stage = {} as Record<keyof typeof PARENTS, string>;
    const [{ lo, hi }] = await c`select nms_uuid_v7_floor(${day}::date::timestamp at time zone 'UTC')::text as lo,
                                        nms_uuid_v7_floor((${day}::date + 1)::timestamp at time zone 'UTC')::text as hi`;
    for (const [t, key] of TABLES) {
      const part = `${t}_p${day.replaceAll("-", "")}`;
      stage[t] = `${part}_load`;
      const [{ opts }] = await c`select array_to_string(nms_history_partition_options(${t}), ', ') as opts`;
      await c.unsafe(`drop table if exists ${stage[t]}`);
      await c.unsafe(`create table ${stage[t]} (like ${t} including defaults including constraints including storage)${opts ? ` with (${opts})` : ""}`);
      await c.unsafe(`alter table ${stage[t]} add constraint ${stage[t]}_bound check (${key} is not null and ${key} >= '${lo}' and ${key} < '${hi}')`);
      await c.unsafe(`insert into ${stage[t]} select * from ${part}`);
      // the day's range is without a partition until the attach (nothing else writes during the fill); its
      // index names are free for the new ones
      await c.unsafe(`drop table ${part}`);
    }
    step("prepare");
    for (const p of parts) if (p.rows > 0) await c.unsafe(dayStatement(stage, p.tenantIds, daysAgo, p.rows));
    step("rows");
    await rollups(c, stage.notifications);
    step("rollups");
    for (const [t] of TABLES) for (const s of await indexStatements(t, stage[t], `${t}_p${day.replaceAll("-", "")}`)) await c.unsafe(s);
    step("indexes");
    await c.unsafe("begin");
    for (const [t] of TABLES) {
      const part = `${t}_p${day.replaceAll("-", "")}`;
      await c.unsafe(`alter table ${stage[t]} rename to ${part}`);
      await c.unsafe(`alter table ${t} attach partition ${part} for values from ('${lo}') to ('${hi}')`);
      await c.unsafe(`alter table ${part} drop constraint ${stage[t]}_bound`);
    }
    await c.unsafe("commit");
    step("attach");
    // statistics of the day's partitions while their pages are in memory: the service's table-stats job
    // analyzes partitions, not the parents (an ANALYZE of a parent samples every partition again)
    for (const [t] of TABLES) await c.unsafe(`analyze ${t}_p${day.replaceAll("-", "")}`);
    step("analyze");
    return ms;
  } catch (err) {
    await c.unsafe("rollback").catch(() => {});
    throw err;
  } finally {
    // the pool's connection goes back with the server's settings (the workload measures on this pool)
    await c.unsafe("reset all").catch(() => {});
    c.release();
  }
}

/**
 * History for `tenantIds` spread evenly over DAYS days, plus `victimRows` old notifications (21-60 days
 * back) of `victim`, by `method`, `jobs` days at a time (attach only); a progress line per day; then the
 * rollups and statistics (insert: of all rows after the fill; attach: of each day in its job). Returns the seconds
 * of the fill and of the ANALYZE after it (insert only), and the CPU seconds of both in PostgreSQL.
 */
export async function fillHistory(tenantIds: string[], rows: number, victim: string, victimRows: number, method: "attach" | "insert", jobs: number) {
  const t0 = performance.now();
  const cpu0 = await backendCpu();
  const oldDays = DAYS - 21; // days 21..DAYS-1
  const dayParts = (d: number): Part[] => [
    { tenantIds, rows: Math.floor(rows / DAYS) + (d < rows % DAYS ? 1 : 0) },
    { tenantIds: [victim], rows: d >= 21 ? Math.floor(victimRows / oldDays) + (d - 21 < victimRows % oldDays ? 1 : 0) : 0 },
  ];
  const days = Array.from({ length: DAYS }, (_, k) => DAYS - 1 - k);
  const done = (d: number, steps = "") => console.log(`  fill: day -${d} done, ${((performance.now() - t0) / 1000).toFixed(0)} s${steps && ` (${steps} s)`}`);
  if (method === "insert") {
    for (const d of days) {
      for (const p of dayParts(d)) if (p.rows > 0) await sql.unsafe(dayStatement(PARENTS, p.tenantIds, d, p.rows));
      done(d);
    }
    await rollups(sql, "notifications");
  } else {
    let next = 0;
    await Promise.all(
      Array.from({ length: jobs }, async () => {
        while (next < days.length) {
          const d = days[next++]!;
          const ms = await attachDay(d, dayParts(d));
          done(d, Object.entries(ms).map(([k, v]) => `${k} ${(v / 1000).toFixed(1)}`).join(", "));
        }
      }),
    );
  }
  const a0 = performance.now();
  if (method === "insert") {
    await sql`analyze notifications`;
    await sql`analyze notification_attempts`;
    await sql`analyze events`;
  }
  // the rollups as 60 days of the table-stats job (or autovacuum) would leave them: analyzed (unanalyzed, the
  // planner read a tenant's hourly rows through the primary key, a heap page a row, not the covering index)
  // and vacuumed (the covering indexes answer without the heap once the visibility map says so)
  await sql`vacuum (analyze) notification_stats_hourly, notification_stats_daily`;
  // PostgreSQL's CPU for the fill and its ANALYZE (connections opened meanwhile count from their start)
  let pgCpuSec = 0;
  for (const [pid, ms] of await backendCpu()) pgCpuSec += (ms - (cpu0.get(pid) ?? 0)) / 1000;
  return { fillSec: (a0 - t0) / 1000, analyzeSec: (performance.now() - a0) / 1000, pgCpuSec };
}

/** Rows and bytes (indexes included) of each filled table, summed over its partitions. */
export async function sizes() {
  return await sql<{ rel: string; rows: number; bytes: number }[]>`
    select v.rel, c.reltuples as rows, c.bytes
    from (values ('notifications'), ('notification_attempts'), ('events')) v(rel), lateral (
      select sum(c.reltuples)::bigint::int as reltuples, sum(pg_total_relation_size(c.oid))::bigint::float8 as bytes
      from pg_partition_tree(v.rel::regclass) t join pg_class c on c.oid = t.relid where t.isleaf) c order by 1`;
}
