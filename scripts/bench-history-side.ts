// bench:history's measured workload (issue 26) and its side process: one process per database (the
// empty one and the filled one) runs a round of accepts, deliveries and reads when bench-history.ts asks,
// and answers with every latency and the CPU the round took in this process and in its PostgreSQL backends.
// Usage (by bench-history.ts only): bun scripts/bench-history-side.ts, DATABASE_URL set; BENCH_TENANT_ID and
// BENCH_API_KEY name the measured tenant, or without them the process empties its database and makes one.
import { buildApp } from "../http/app";
import { sql } from "../store/db";
import { backendCpu } from "./bench-history-fill";
import { newId } from "../store/ids";
import { keyDays } from "../store/history-keys";


export type App = ReturnType<typeof buildApp>;
export async function call(app: App, method: string, path: string, key: string, body?: unknown) {
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

export interface Sample {
  lat: number[];
  /** CPU ms of this process and of its PostgreSQL backends, over the whole batch */
  cpuMs: number;
  pgCpuMs: number;
  /** the read mix's latencies by read (feed, detail, overview) */
  byKind?: Record<string, number[]>;
}

/** n calls of fn, `concurrency` at a time: every latency in ms, and the CPU they took. */
export async function timed(n: number, concurrency: number, fn: (i: number) => Promise<unknown>): Promise<Sample> {
  const lat: number[] = [];
  const pg0 = await backendCpu();
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
  const pg1 = await backendCpu();
  let pgCpuMs = 0;
  for (const [pid, ms] of pg1) pgCpuMs += ms - (pg0.get(pid) ?? 0);
  return { lat, cpuMs: (c.user + c.system) / 1000, pgCpuMs };
}

export interface Round {
  accept: Sample;
  deliver: Sample;
  reads: Sample;
  /** the measured tenant's rollup delta rows (shard <> 0, hourly + daily) after the round: the overview sums them */
  rollupRows: number;
}

/** n accepts, then the delivery's SQL for n of them, then n reads of the feed, a detail and the 30-day overview. */
export async function workload(app: App, tenantId: string, key: string, n: number): Promise<Round> {
  const ids: string[] = [];
  // a few unmeasured accepts first: a fresh database's first accepts load caches (blocked domains, plans)
  for (let i = 0; i < 10; i++) await call(app, "POST", "/v1/notifications", key, { channel: "email", to: `w${i}@example.com`, data: { subject: "s", content: "c" } });
  const accept = await timed(n, 4, async (i) => {
    const r = await call(app, "POST", "/v1/notifications", key, { channel: "email", to: `u${i}@example.com`, data: { subject: "s", content: "c" } });
    ids.push(r.data.id);
  });
  const deliver = await timed(n, 4, async (i) => {
    const id = ids[i % ids.length]!;
    await sql.begin(async (tx) => {
      // the day bounds the service's own outcome statements carry (store/attempts.ts): without them each call
      // planned every partition of notifications (0.7-1.1 ms at 70 partitions, a custom plan each time)
      await tx`update notifications set status = 'delivered', attempt_count = 1, sent_at = now(), delivered_at = now(), updated_at = now()
               where id = ${id} ${keyDays("id", [id])}`;
      await tx`insert into notification_attempts (id, notification_id, tenant_id, attempt_number, status, created_at)
               values (${newId()}, ${id}, ${tenantId}, 1, 'success', now()) on conflict do nothing`;
    });
  });
  const byKind: Record<string, number[]> = { feed: [], detail: [], overview: [] };
  const reads = await timed(n, 4, async (i) => {
    const t0 = performance.now();
    if (i % 3 === 0) await call(app, "GET", "/v1/notifications?limit=50", key);
    else if (i % 3 === 1) await call(app, "GET", `/v1/notifications/${ids[i % ids.length]}`, key);
    else await call(app, "GET", "/v1/analytics/overview?period=30d", key);
    byKind[["feed", "detail", "overview"][i % 3]!]!.push(performance.now() - t0);
  });
  reads.byKind = byKind;
  const [{ rows }] = await sql<{ rows: number }[]>`select (select count(*) from notification_stats_hourly where tenant_id = ${tenantId} and shard <> 0)
    + (select count(*) from notification_stats_daily where tenant_id = ${tenantId} and shard <> 0) as rows`;
  return { accept, deliver, reads, rollupRows: Number(rows) };
}

/** Messages from bench-history.ts: run a round of n requests of each kind, or leave. */
type Ask = { round: number } | { quit: true };

if (import.meta.main) {
  const { emptyBenchDatabase } = await import("./bench-history-fill");
  const { createTenant } = await import("../store/tenants");
  const { insertApiKey } = await import("../store/api-keys");
  const { redis } = await import("../store/redis");
  const { deletePrefix } = await import("./bench-load");
  const { compactCounters } = await import("../store/analytics");
  const app = buildApp();
  const own = !process.env.BENCH_TENANT_ID;
  let tenantId = process.env.BENCH_TENANT_ID ?? "";
  let key = process.env.BENCH_API_KEY ?? "";
  if (own) {
    await emptyBenchDatabase();
    const { tenant } = await createTenant("bench-history");
    tenantId = tenant.id;
    key = (await insertApiKey(sql, { tenantId, environment: "sandbox", keyType: "secret", name: "bench" })).raw;
  }
  // a first pass, not measured: a fresh process's first requests compile code and fill caches
  await workload(app, tenantId, key, 100);
  process.on("message", async (m: Ask) => {
    if ("round" in m) {
      // the reconciler's fold of the rollup delta rows (every 15 s in the service, never in this process): without
      // it the overview sums every accept batch's row of the run so far, more with each round
      await compactCounters();
      process.send!({ round: await workload(app, tenantId, key, m.round) });
      return;
    }
    if (own) await emptyBenchDatabase();
    await deletePrefix(redis as any, process.env.REDIS_PREFIX!);
    await sql.end({ timeout: 5 });
    process.send!({ bye: true });
    process.exit(0);
  });
  // the bench ended without asking us to leave (it failed): leave too
  process.on("disconnect", () => process.exit(1));
  process.send!({ ready: true });
}
