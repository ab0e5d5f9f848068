// Benchmark: what the notification quota adds to an accept (docs/billing.md "Quota").
// Usage: npm run bench:quota [-- calls=20000 concurrency=50]
//
// withinQuota (domain/billing/quota.ts) around an insert that does nothing, in one process, in
// interleaved rounds so both sides see the same machine:
//   limited:   a tenant on a plan with notifications_per_month: the reserve and settle Lua scripts
//   unlimited: a tenant on a plan without that limit: the cached plan lookup alone
// Prints wall time and this process's CPU time per call, each side and their difference, and the
// Redis server's CPU time per limited call (INFO cpu before and after). Redis on the same machine.
export {};
process.env.LOG_LEVEL ??= "warn";
// a prefix of its own, deleted at the end (one given from outside is never swept)
const ownPrefix = process.env.REDIS_PREFIX === undefined;
process.env.REDIS_PREFIX ??= `nmsbench${process.pid}`;

const { ensureDatabase, migrate } = await import("../store/migrate");
const { config } = await import("../config");
const { sql } = await import("../store/db");
const { redis } = await import("../store/redis");
const { createTenant } = await import("../store/tenants");
const { createPlan } = await import("../domain/billing/plans");
const { subscribe } = await import("../domain/billing/subscriptions");
const { withinQuota } = await import("../domain/billing/quota");

const CALLS = Number(process.argv[2] ?? 20_000);
const CONCURRENCY = Number(process.argv[3] ?? 50);
const ROUNDS = 4;

await ensureDatabase(config.databaseUrl);
await migrate(config.databaseUrl, () => {});
const run = `${Date.now()}`;
await createPlan(`bench-limited-${run}`, { name: "limited", price_cents: 100, limits: { notifications_per_month: 1_000_000_000 } });
await createPlan(`bench-unlimited-${run}`, { name: "unlimited", price_cents: 100 });
const tenants = { limited: (await createTenant(`bench-q-${run}`)).tenant.id, unlimited: (await createTenant(`bench-u-${run}`)).tenant.id };
await subscribe({ tenantId: tenants.limited, actorType: "system", actorId: null }, `bench-limited-${run}`);
await subscribe({ tenantId: tenants.unlimited, actorType: "system", actorId: null }, `bench-unlimited-${run}`);

async function redisCpuMs(): Promise<number> {
  const info = await redis.info("cpu");
  const num = (k: string) => Number(new RegExp(`${k}:([\\d.]+)`).exec(info)?.[1] ?? 0);
  return (num("used_cpu_sys") + num("used_cpu_user")) * 1000;
}

async function side(tenantId: string, calls: number): Promise<{ wallMs: number; cpuMs: number }> {
  let next = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < calls) {
        next++;
        await withinQuota({ tenantId, environment: "production", id: crypto.randomUUID() }, async () => true);
      }
    }),
  );
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  return { wallMs, cpuMs: (cpu.user + cpu.system) / 1000 };
}

const totals = { limited: { wallMs: 0, cpuMs: 0 }, unlimited: { wallMs: 0, cpuMs: 0 } };
let redisMs = 0;
await side(tenants.limited, 500); // warm-up: seeds the counter, loads the scripts and the caches
await side(tenants.unlimited, 500);
const per = Math.floor(CALLS / ROUNDS);
for (let r = 0; r < ROUNDS; r++) {
  const r0 = await redisCpuMs();
  const l = await side(tenants.limited, per);
  redisMs += (await redisCpuMs()) - r0;
  const u = await side(tenants.unlimited, per);
  totals.limited.wallMs += l.wallMs;
  totals.limited.cpuMs += l.cpuMs;
  totals.unlimited.wallMs += u.wallMs;
  totals.unlimited.cpuMs += u.cpuMs;
}
const n = per * ROUNDS;
const us = (ms: number) => ((ms / n) * 1000).toFixed(1);
console.log(`quota: ${n} calls per side, concurrency ${CONCURRENCY}, ${ROUNDS} interleaved rounds`);
console.log(`  limited   (reserve + settle): wall ${us(totals.limited.wallMs)} us/call, process CPU ${us(totals.limited.cpuMs)} us/call, Redis CPU ${us(redisMs)} us/call`);
console.log(`  unlimited (plan lookup only): wall ${us(totals.unlimited.wallMs)} us/call, process CPU ${us(totals.unlimited.cpuMs)} us/call`);
console.log(`  added by the quota: process CPU ${us(totals.limited.cpuMs - totals.unlimited.cpuMs)} us/call; ratio limited/unlimited CPU ${(totals.limited.cpuMs / totals.unlimited.cpuMs).toFixed(2)}`);

// settles run after the answer: let them finish before counting and cleaning up
await Bun.sleep(500);
if (ownPrefix) {
  const keys: string[] = [];
  let cursor = "0";
  do {
    const [next, found] = await redis.scan(cursor, "MATCH", `${config.redisPrefix}:*`, "COUNT", 1000);
    cursor = next;
    keys.push(...found);
  } while (cursor !== "0");
  if (keys.length) await redis.del(...keys);
}
await sql.begin(async (tx) => {
  await tx`set local nms.account_deletion = 'on'`;
  await tx`delete from audit_logs where tenant_id in ${tx([tenants.limited, tenants.unlimited])}`;
  await tx`delete from tenants where id in ${tx([tenants.limited, tenants.unlimited])}`;
});
await sql`delete from plans where id in ${sql([`bench-limited-${run}`, `bench-unlimited-${run}`])}`;
await sql.end();
redis.disconnect();
