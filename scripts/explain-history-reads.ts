// EXPLAIN ANALYZE of the hot reads of the day-partitioned history tables, without and with their
// partition-key bounds (store/history-keys.ts): planning time, execution time and partitions in the plan.
// Usage: node scripts/launch.mjs bench scripts/explain-history-reads.ts <tenant id> [environment]
// (after `npm run bench:history -- --fill-only 1`, which prints the tenant). Each statement runs 3
// times in one session and the last run is shown (the first plans with a cold catalogue cache).
export {};
const { sql } = await import("../store/db");
const { feedQuery, feedWindows } = await import("../store/notification-feed");
const { createdSince, keyDays } = await import("../store/history-keys");

const tenantId = process.argv[2];
const environment = process.argv[3] ?? "sandbox";
if (!tenantId) throw new Error("usage: explain-history-reads.ts <tenant id> [environment]");
const scope = { tenantId, environment };

function summary(lines: string[]) {
  const ms = (k: string) => Number(lines.find((l) => l.trim().startsWith(k))?.replace(/[^\d.]/g, "") ?? NaN);
  const parts = new Set(lines.flatMap((l) => [...l.matchAll(/ on (\w+_(p\d{8}|legacy|default))\b/g)].map((m) => m[1])));
  const never = lines.filter((l) => l.includes("never executed")).length;
  return `planning ${ms("Planning Time").toFixed(2)} ms, execution ${ms("Execution Time").toFixed(2)} ms, ${parts.size} partitions in the plan${never ? ` (${never} never executed)` : ""}`;
}

async function explain(name: string, q: () => any) {
  const c = await sql.reserve();
  try {
    await c`set jit = off`;
    let lines: string[] = [];
    for (let i = 0; i < 3; i++) lines = (await c`explain (analyze, buffers off, costs off, timing off) ${q()}`).map((r: any) => r["QUERY PLAN"]);
    console.log(`${name}: ${summary(lines)}`);
    if (process.env.PLANS) console.log(lines.map((l) => `    ${l}`).join("\n"));
  } finally {
    c.release();
  }
}

const [n] = await sql<{ id: string }[]>`select id from notifications where tenant_id = ${tenantId} and created_at < now() - interval '3 days' order by created_at desc limit 1`;
const id = n!.id;
const page = { limit: 50, cursor: null };
const deep = { limit: 50, cursor: { t: new Date(Date.now() - 20 * 86_400_000).toISOString(), id: "01a0f000-0000-7000-8000-000000000000" } };

await explain("feed first page, unbounded (before)", () => explainSql(page, { lo: null, hi: null }));
await explain("feed first page, first window (after)", () => explainSql(page, feedWindows({}, page)[0]!));
await explain("feed page 20 days back, unbounded (before)", () => explainSql(deep, { lo: null, hi: null }));
await explain("feed page 20 days back, first window (after)", () => explainSql(deep, feedWindows({}, deep)[0]!));
await explain("detail by id (before)", () => sql`select * from notifications where id = ${id} and tenant_id = ${tenantId} and environment = ${environment}`);
await explain("detail by id (after)", () => sql`select * from notifications where id = ${id} ${keyDays("id", [id])} and tenant_id = ${tenantId} and environment = ${environment}`);
await explain("attempts of a notification (before)", () => sql`select * from notification_attempts where notification_id = ${id} order by attempt_number`);
await explain("attempts of a notification (after)", () => sql`select * from notification_attempts where notification_id = ${id} ${keyDays("notification_id", [id])} order by attempt_number`);
const hour = new Date(Date.now() - 3_600_000);
await explain("last hour by minute (before)", () => sql`select date_trunc('minute', created_at), count(*) from notifications
  where tenant_id = ${tenantId} and environment = ${environment} and created_at >= ${hour} group by 1`);
await explain("last hour by minute (after)", () => sql`select date_trunc('minute', created_at), count(*) from notifications
  where tenant_id = ${tenantId} and environment = ${environment} and created_at >= ${hour} ${createdSince("id", hour.getTime())} group by 1`);

function explainSql(p: typeof page | typeof deep, w: { lo: number | null; hi: number | null }) {
  return feedQuery(scope, {}, p, w);
}
await sql.end({ timeout: 5 });
process.exit(0);
