// The table-statistics job (jobs/table-stats.ts): with PostgreSQL's autovacuum off (as on the CI
// machine) a table changed past autovacuum's thresholds is analyzed (the planner stops guessing) and vacuumed
// (indexes stop carrying every row version ever written).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTableStatsJob } from "../../jobs/table-stats";
import { sql } from "../../store/db";
import { analyzeTable, autovacuumOn, staleTables, tablesToVacuum, vacuumTable } from "../../store/table-stats";

const table = `stats_probe_${process.pid}`;
const statsRows = async () => (await sql`select count(*)::int as n from pg_stats where schemaname = current_schema() and tablename = ${table}`)[0]!.n;
/** Whether `name` gets listed within 20 s: another backend's counts reach pg_stat_user_tables when it flushes them (about a second). */
async function untilListed(list: (o: { limit: number }) => Promise<{ table: string }[]>, name: string): Promise<boolean> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if ((await list({ limit: 1000 })).some((t) => t.table.endsWith(`.${name}`))) return true;
    await Bun.sleep(200);
  }
  return false;
}
const untilStale = () => untilListed(staleTables, table);

beforeAll(async () => {
  await sql.unsafe(`drop table if exists ${table}`);
  await sql.unsafe(`create table ${table} (id int primary key, tenant int not null)`);
  await sql.unsafe(`drop table if exists ${vtable}`);
  // as notifications_pending: an index whose predicate the update leaves, so no update is HOT
  await sql.unsafe(`create table ${vtable} (id int primary key, status text not null)`);
  await sql.unsafe(`create index on ${vtable} (id) where status = 'pending'`);
});

afterAll(async () => {
  await sql.unsafe(`drop table if exists ${table}`);
  await sql.unsafe(`drop table if exists ${vtable}`);
});

const vtable = `vacuum_probe_${process.pid}`;
const vstats = async () =>
  (await sql`select n_dead_tup::int as dead, vacuum_count::int as vacuums from pg_stat_user_tables where relname = ${vtable}`)[0]!;
const untilToVacuum = () => untilListed(tablesToVacuum, vtable);

test("a table changed past 50 rows + 10% is listed as stale, then has statistics once analyzed and is no longer listed", async () => {
  await sql.unsafe(`insert into ${table} select g, g % 7 from generate_series(1, 2000) g`);
  expect(await untilStale()).toBe(true);
  expect(await statsRows()).toBe(0);
  const [t] = (await staleTables({ limit: 1000 })).filter((x) => x.table.endsWith(`.${table}`));
  expect(t!.changed).toBeGreaterThanOrEqual(2000);
  await analyzeTable(t!.table);
  expect(await statsRows()).toBe(2);
  expect((await staleTables({ limit: 1000 })).some((x) => x.table.endsWith(`.${table}`))).toBe(false);
});

test("the job analyzes what changed when autovacuum is off, and leaves it to autovacuum when on", async () => {
  await sql.unsafe(`insert into ${table} select g, g % 7 from generate_series(2001, 6000) g`);
  expect(await untilStale()).toBe(true);
  const before = (await sql`select last_analyze from pg_stat_user_tables where relname = ${table}`)[0]!.last_analyze;
  const job = startTableStatsJob({ everyMs: 3_600_000, firstRunInMs: 3_600_000 });
  try {
    await job.runOnce();
    expect(job.runs).toBe(1);
  } finally {
    await job.stop();
  }
  const off = !(await autovacuumOn());
  const [row] = await sql`select last_analyze, n_mod_since_analyze::int as changed from pg_stat_user_tables where relname = ${table}`;
  if (off) {
    expect(row!.last_analyze).not.toEqual(before);
    expect(row!.changed).toBe(0);
    const [rt] = await sql`select reltuples::int as n from pg_class where relname = ${table}`;
    expect(rt!.n).toBe(6000);
  } else {
    expect(row!.changed).toBeGreaterThan(0); // autovacuum's to do, not the job's
  }
});

test("a table whose updates left dead rows past 50 + 20% is listed, vacuumed, and no longer listed", async () => {
  await sql.unsafe(`insert into ${vtable} select g, 'pending' from generate_series(1, 3000) g`);
  await sql.unsafe(`update ${vtable} set status = 'sent'`);
  expect(await untilToVacuum()).toBe(true);
  const [t] = (await tablesToVacuum({ limit: 1000 })).filter((x) => x.table.endsWith(`.${vtable}`));
  expect(t!.dead).toBeGreaterThanOrEqual(3000);
  const before = await vstats();
  await vacuumTable(t!.table);
  const after = await vstats();
  expect(after.dead).toBe(0);
  expect(after.vacuums).toBe(before.vacuums + 1);
  expect((await tablesToVacuum({ limit: 1000 })).some((x) => x.table.endsWith(`.${vtable}`))).toBe(false);
});

test("the job vacuums what autovacuum would when autovacuum is off, and leaves it to autovacuum when on", async () => {
  await sql.unsafe(`update ${vtable} set status = 'pending'`);
  await sql.unsafe(`update ${vtable} set status = 'sent'`);
  expect(await untilToVacuum()).toBe(true);
  const before = await vstats();
  const job = startTableStatsJob({ everyMs: 3_600_000, firstRunInMs: 3_600_000 });
  try {
    await job.runOnce();
  } finally {
    await job.stop();
  }
  const after = await vstats();
  if (!(await autovacuumOn())) {
    expect(after.vacuums).toBe(before.vacuums + 1);
    expect(after.dead).toBe(0);
  } else {
    expect(after.vacuums).toBe(before.vacuums); // autovacuum's to do, not the job's
  }
});
