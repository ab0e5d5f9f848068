// Benchmark: median latency added by authentication + rate limiting (issue 3 target: <= 1 ms).
// Usage: DATABASE_URL=... bun scripts/bench-auth.ts [requests=5000]
//
// Two real listening servers in this process, measured in one run with interleaved batches:
//   with:    the full app (buildApp), GET /v1/api-keys with a Bearer key: key lookup (cached,
//            epoch check in Redis), rate limit (GCRA in Redis), permission checks, then the handler.
//   without: the same handler and the same global plugins (errors, CORS, idempotency) for a fixed
//            tenant, without an access rule.
export {};
process.env.LOG_LEVEL ??= "warn";
// a budget the run cannot exhaust: the limiter does the same work whatever the limit
process.env.RATE_LIMIT_PER_MINUTE ??= "100000000";
process.env.REDIS_PREFIX ??= `nmsbench${process.pid}`;

const { Elysia } = await import("elysia");
const { startServer } = await import("../http/server");
const { edgePlugins } = await import("../http/plugins/edge");
const { corsPlugin } = await import("../http/plugins/cors");
const { idempotencyPlugin } = await import("../http/plugins/idempotency");
const { referenceShape } = await import("../http/routes/api-keys");
const { listActiveKeys } = await import("../store/api-keys");
const { createTenant } = await import("../store/tenants");
const { ensureDatabase, migrate } = await import("../store/migrate");
const { config } = await import("../config");
const { sql } = await import("../store/db");
const { redis } = await import("../store/redis");

const N = Number(process.argv[2] ?? 5000);
const BATCH = 250;
const WARMUP = 300;

await ensureDatabase(config.databaseUrl);
await migrate(config.databaseUrl, () => {});
const { tenant, apiKey } = await createTenant(`bench-${Date.now()}`);

const withAuth = startServer(0, "127.0.0.1");
const bare = new Elysia()
  .use(edgePlugins)
  .use(corsPlugin)
  .use(idempotencyPlugin)
  .get("/v1/api-keys", async () => {
    const { rows } = await listActiveKeys(sql, tenant.id, ["production"]);
    return { data: rows.map(referenceShape) };
  })
  .listen({ port: 0, hostname: "127.0.0.1" });
const bareUrl = `http://127.0.0.1:${bare.server!.port}`;

async function once(url: string, headers: Record<string, string>): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(`${url}/v1/api-keys`, { headers });
  await res.arrayBuffer();
  const ms = performance.now() - t0;
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
  return ms;
}

const authHeaders = { authorization: `Bearer ${apiKey.raw}` };
for (let i = 0; i < WARMUP; i++) {
  await once(withAuth.url, authHeaders);
  await once(bareUrl, {});
}

const timesWith: number[] = [];
const timesWithout: number[] = [];
while (timesWith.length < N) {
  for (let i = 0; i < BATCH && timesWith.length < N; i++) timesWith.push(await once(withAuth.url, authHeaders));
  for (let i = 0; i < BATCH && timesWithout.length < N; i++) timesWithout.push(await once(bareUrl, {}));
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};
const fmt = (x: number) => `${x.toFixed(3)} ms`;
const medWith = pct(timesWith, 50);
const medWithout = pct(timesWithout, 50);
console.log(`requests per variant: ${N} (GET /v1/api-keys, sequential, keep-alive)`);
console.log(`with auth + rate limit:    median ${fmt(medWith)}  p90 ${fmt(pct(timesWith, 90))}  p99 ${fmt(pct(timesWith, 99))}`);
console.log(`without (same handler):    median ${fmt(medWithout)}  p90 ${fmt(pct(timesWithout, 90))}  p99 ${fmt(pct(timesWithout, 99))}`);
const added = medWith - medWithout;
console.log(`added at the median:       ${fmt(added)}  (target <= 1 ms: ${added <= 1 ? "met" : "NOT met"})`);

await withAuth.stop();
await bare.stop();
const leftovers = await redis.keys(`${process.env.REDIS_PREFIX}:*`);
if (leftovers.length) await redis.del(...leftovers);
await sql.end();
redis.disconnect();
process.exit(0);
