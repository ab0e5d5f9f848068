// The rollups' indexes (issue 26): the covering ones (migrations 0253, 0550, 0915) hold every column the
// analytics reads take from a rollup row, so those reads stay index-only (a counter added without its index
// fails here), and the reconciler's fold finds the delta rows through the partial index of 0916, never by
// reading the whole rollup (whose size grows with tenants and history while the deltas stay few).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { sql } from "../../store/db";
import { COUNTERS, compactStatement } from "../../store/analytics";
import { createTenant } from "../support/fixtures";
import { dropTenant } from "./workflow-support";

async function indexColumns(index: string): Promise<string[]> {
  const rows = await sql<{ col: string }[]>`
    select a.attname as col from pg_index i
    join lateral unnest(i.indkey) with ordinality k(attnum, n) on true
    join pg_attribute a on a.attrelid = i.indrelid and a.attnum = k.attnum
    where i.indexrelid = ${index}::regclass order by k.n`;
  return rows.map((r) => r.col);
}

for (const [index, bucket] of [["notification_stats_hourly_series", "hour"], ["notification_stats_daily_series", "day"]] as const) {
  test(`${index} covers the key, the channel, the template and every counter`, async () => {
    const cols = await indexColumns(index);
    expect(cols.slice(0, 3)).toEqual(["tenant_id", "environment", bucket]);
    expect([...cols.slice(3)].sort()).toEqual(["channel", "template", ...COUNTERS].sort());
  });
}

let tenantId: string;
beforeAll(async () => {
  tenantId = (await createTenant()).tenant.id;
  // a rollup of some history: 20,000 folded rows (shard 0) and 5 delta rows of one tenant, with statistics
  for (const [table, bucket] of [["notification_stats_hourly", "hour"], ["notification_stats_daily", "day"]] as const) {
    await sql.unsafe(
      `insert into ${table} (tenant_id, environment, ${bucket}, channel, template, shard, total)
       select $1::uuid, 'production', timestamptz '2020-01-01' + (i / 4 || ' ${bucket}s')::interval, (array['email','sms','push','in_app'])[1 + i % 4], '', 0, 1
       from generate_series(0, 19999) i
       union all
       select $1::uuid, 'production', timestamptz '2020-01-01', 'email', '', s, 1 from generate_series(1, 5) s`,
      [tenantId],
    );
    await sql.unsafe(`analyze ${table}`);
  }
}, 60_000);

afterAll(async () => {
  if (tenantId) await dropTenant(tenantId);
});

for (const table of ["notification_stats_hourly", "notification_stats_daily"] as const) {
  test(`the fold of ${table}'s delta rows reads them through its partial index, not the whole table`, async () => {
    const plan = (await sql.unsafe(`explain ${compactStatement(table)}`)).map((r: any) => r["QUERY PLAN"] as string).join("\n");
    expect(plan).toContain(`${table}_deltas`);
    expect(plan).not.toContain(`Seq Scan on ${table}`);
  });
}
