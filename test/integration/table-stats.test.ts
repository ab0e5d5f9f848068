// The table-statistics job (jobs/table-stats.ts): with PostgreSQL's autovacuum off (as on the CI
// machine) a table changed past autovacuum's threshold is analyzed, so the planner stops guessing.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTableStatsJob } from "../../jobs/table-stats";
import { sql } from "../../store/db";
import { analyzeTable, autovacuumOn, staleTables } from "../../store/table-stats";

const table = `stats_probe_${process.pid}`;
const statsRows = async () => (await sql`select count(*)::int as n from pg_stats where schemaname = current_schema() and tablename = ${table}`)[0]!.n;
/** Another backend's row counts reach pg_stat_user_tables when it flushes them (about a second). */
async function untilStale(): Promise<boolean> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if ((await staleTables({ limit: 1000 })).some((t) => t.table.endsWith(`.${table}`))) return true;
    await Bun.sleep(200);
  }
  return false;
}

beforeAll(async () => {
  await sql.unsafe(`drop table if exists ${table}`);
  await sql.unsafe(`create table ${table} (id int primary key, tenant int not null)`);
});

afterAll(async () => {
  await sql.unsafe(`drop table if exists ${table}`);
});

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
