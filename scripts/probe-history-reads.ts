// The read mix of bench:history one read kind at a time (issue 26's breakdown): N requests of the feed's
// first page, a detail or the 30-day overview through app.handle, with latency and CPU per read (this process, its backends).
// Usage: BENCH_DATABASE_URL=... [PROBE_WORKLOAD=400] node scripts/launch.mjs bench scripts/probe-history-reads.ts [n=400] [concurrency=1] [kinds=feed,detail,overview]
// Uses the tenant `bench-history` (bench:history's fill makes it; an empty database is laid out as the bench's
// empty side and gets one) and leaves its rows. PROBE_WORKLOAD=n first runs the bench side's workload of n (accepts, deliveries, reads).
export {};
process.env.REDIS_PREFIX ??= `probehist${process.pid}`;
process.env.RATE_LIMIT_PER_MINUTE ??= "100000000";
process.env.LOG_LEVEL ??= "warn";
const { buildApp } = await import("../http/app");
const { sql } = await import("../store/db");
const { createTenant } = await import("../store/tenants");
const { insertApiKey } = await import("../store/api-keys");
const { redis } = await import("../store/redis");
const { deletePrefix, percentile } = await import("./bench-load");
const { call, timed, workload } = await import("./bench-history-side");

const N = Number(process.argv[2] ?? 400);
const CONC = Number(process.argv[3] ?? 1);
const KINDS = (process.argv[4] ?? "feed,detail,overview").split(",");
const app = buildApp();

let [t] = await sql<{ id: string }[]>`select id from tenants where name = 'bench-history'`;
if (!t) {
  // an empty database laid out as bench:history's empty side (day partitions for the past 61 days and the next 7)
  const { emptyBenchDatabase } = await import("./bench-history-fill");
  await emptyBenchDatabase();
  t = (await createTenant("bench-history")).tenant;
}
const key = (await insertApiKey(sql, { tenantId: t.id, environment: "sandbox", keyType: "secret", name: "probe" })).raw;
const ids: string[] = [];
for (let i = 0; i < 60; i++) {
  const r = await call(app, "POST", "/v1/notifications", key, { channel: "email", to: `p${i}@example.com`, data: { subject: "s", content: "c" } });
  ids.push(r.data.id);
}
const paths: Record<string, (i: number) => string> = {
  feed: () => "/v1/notifications?limit=50",
  detail: (i) => `/v1/notifications/${ids[i % ids.length]}`,
  overview: () => "/v1/analytics/overview?period=30d",
};

async function run(kind: string, n: number) {
  const r = await timed(n, CONC, (i) => call(app, "GET", paths[kind]!(i), key));
  return { p50: percentile(r.lat, 0.5), p90: percentile(r.lat, 0.9), bun: r.cpuMs / n, pg: r.pgCpuMs / n };
}

const load = async () => (await Bun.$`uptime`.text()).trim().replace(/.*load average: /, "");
// warm-up, not measured: the bench side's first pass (accepts, deliveries, reads), then each read
if (process.env.PROBE_WORKLOAD) await workload(app, t.id, key, Number(process.env.PROBE_WORKLOAD));
for (const k of KINDS) await run(k, 100);
for (const k of KINDS) {
  const r = await run(k, N);
  console.log(`${k.padEnd(8)} p50 ${r.p50.toFixed(2)} p90 ${r.p90.toFixed(2)} ms, CPU/read bun ${r.bun.toFixed(3)} + pg ${r.pg.toFixed(3)} ms (load ${await load()})`);
}
await deletePrefix(redis as any, process.env.REDIS_PREFIX!);
await sql.end({ timeout: 5 });
process.exit(0);
