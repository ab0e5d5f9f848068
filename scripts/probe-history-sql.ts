// The read mix's statements alone (issue 26's breakdown): each store read of the feed's first page, a detail
// (notification + attempts) and the 30-day overview, N times on one connection, with wall time and the backend's CPU per call.
// Usage: BENCH_DATABASE_URL=... DATABASE_POOL_SIZE=1 node scripts/launch.mjs bench scripts/probe-history-sql.ts [n=2000] [kinds] [pause-s]
// pause-s: seconds to wait (printing the backend's pid) before measuring, to attach `perf record -p <pid>`.
import { readFileSync } from "node:fs";
import { sql, poolApplicationName } from "../store/db";
import { listNotificationFeed } from "../store/notification-feed";
import { getNotification, listAttempts } from "../store/notifications";
import { overview, periodStart } from "../store/analytics";

const N = Number(process.argv[2] ?? 2000);
const KINDS = (process.argv[3] ?? "feed,detail,attempts,overview").split(",");
const PAUSE = Number(process.argv[4] ?? 0);
const [t] = await sql<{ id: string }[]>`select id from tenants where name = 'bench-history'`;
if (!t) throw new Error("no tenant bench-history: run probe-history-reads.ts first (it makes one)");
const scope = { tenantId: t.id, environment: "sandbox" };
// the detail reads the newest notifications of the tenant (today's, as the bench's)
const ids = (await listNotificationFeed(scope, {}, { limit: 50, cursor: null })).map((r) => r.id);
const calls: Record<string, (i: number) => Promise<unknown>> = {
  feed: () => listNotificationFeed(scope, {}, { limit: 50, cursor: null }),
  detail: (i) => getNotification(scope.tenantId, scope.environment, ids[i % ids.length]!),
  attempts: (i) => listAttempts(ids[i % ids.length]!),
  overview: () => overview(scope.tenantId, scope.environment, periodStart("30d")),
};
const [{ pid }] = await sql<{ pid: number }[]>`select pid from pg_stat_activity where application_name = ${poolApplicationName}`;
const ticks = () => {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").replace(/^.*\) /, "").split(" ");
  return (Number(f[11]) + Number(f[12])) * 10;
};
for (const k of KINDS) for (let i = 0; i < 200; i++) await calls[k]!(i);
if (PAUSE) {
  console.log(`backend pid ${pid}`);
  await Bun.sleep(PAUSE * 1000);
}
for (const k of KINDS) {
  const c0 = ticks();
  const t0 = performance.now();
  for (let i = 0; i < N; i++) await calls[k]!(i);
  const wall = (performance.now() - t0) / N;
  console.log(`${k.padEnd(8)} ${wall.toFixed(3)} ms a call, backend CPU ${((ticks() - c0) / N).toFixed(3)} ms a call`);
}
// how PostgreSQL planned this connection's prepared statements (postgres.js prepares each distinct text)
for (const r of await sql<{ generic_plans: number; custom_plans: number; statement: string }[]>`
  select generic_plans, custom_plans, statement from pg_prepared_statements where statement ~ 'notification'`) {
  console.log(`  ${r.custom_plans} custom, ${r.generic_plans} generic: ${r.statement.replace(/\s+/g, " ").slice(0, 90)}`);
}
await sql.end({ timeout: 5 });
process.exit(0);
