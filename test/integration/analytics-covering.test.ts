// The rollups' covering indexes (migrations 0253, 0550, 0915) hold every column the analytics reads take
// from a rollup row, so those reads stay index-only (issue 26: a 30-day overview read ~30 heap pages of a
// filled database otherwise); a counter added to the rollups without its index fails here.
import { expect, test } from "bun:test";
import { sql } from "../../store/db";
import { COUNTERS } from "../../store/analytics";

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
