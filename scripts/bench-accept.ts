// Benchmark of POST /v1/notifications over a real listening API process (real key, rate limit
// raised) against a floor server in the same run: a bare Elysia route doing one INSERT and one XADD.
//
// Usage: bun scripts/bench-accept.ts [--seconds 8] [--concurrency 64] [--rate 2000] [--rounds 2]
// Loopback only; every loop is bounded in time and count. Cleans up its rows and Redis keys.
import { spawn, type Subprocess } from "bun";
import { join } from "node:path";
import { latencySummary, openLoop, closedLoop, removeBenchData, waitReady, type LoadResult } from "./bench-load";

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ""), process.argv[i + 1] ?? "");
const root = join(import.meta.dir, "..");
const bun = process.execPath;

// ----------------------------------------------------------------------------------------------
// Floor server mode: `bun scripts/bench-accept.ts --floor-server <port>` (spawned by the bench).
if (args.has("floor-server")) {
  const { Elysia } = await import("elysia");
  const { sql } = await import("../store/db");
  const { redis } = await import("../store/redis");
  const { redisKeys } = await import("../store/redis-keys");
  const { newId } = await import("../store/ids");
  const tenantId = process.env.BENCH_TENANT!;
  const stream = redisKeys.benchFloorStream();
  new Elysia()
    .get("/health", () => ({ ok: true }))
    .post("/floor", async ({ body, set }) => {
      const b = body as { channel: string; to: string; data?: Record<string, unknown> };
      const id = newId();
      const created = new Date();
      await sql`insert into notifications (id, tenant_id, environment, channel, recipient, data, status, created_at, updated_at)
        values (${id}, ${tenantId}, 'sandbox', ${b.channel}, ${b.to}, ${sql.json((b.data ?? {}) as any)}, 'pending', ${created}, ${created})`;
      await redis.xadd(stream, "*", "m", JSON.stringify({ id }));
      set.status = 202;
      return { data: { id, channel: b.channel, recipient: b.to, status: "pending", created_at: created.toISOString() } };
    })
    .listen({ port: Number(args.get("floor-server")), hostname: "127.0.0.1" });
  console.log("floor ready");
  await new Promise(() => {});
}

// ----------------------------------------------------------------------------------------------
const seconds = Number(args.get("seconds") ?? 8);
const concurrency = Number(args.get("concurrency") ?? 64);
const rate = Number(args.get("rate") ?? 2000);
const rounds = Number(args.get("rounds") ?? 2);
const prefix = `benchacc${Math.random().toString(36).slice(2, 8)}`;
process.env.REDIS_PREFIX = prefix;

const { sql } = await import("../store/db");
const { createTenant } = await import("../store/tenants");
const { insertApiKey } = await import("../store/api-keys");
const { redis } = await import("../store/redis");

const { tenant } = await createTenant(`bench-accept-${prefix}`);
const sandbox = await insertApiKey(sql, { tenantId: tenant.id, environment: "sandbox", keyType: "secret", name: "bench" });

const apiPort = 20000 + Math.floor(Math.random() * 12000); // below the kernel's ephemeral range (32768+), where client sockets would collide
const floorPort = apiPort + 1;
const childEnv = {
  ...process.env,
  REDIS_PREFIX: prefix,
  RATE_LIMIT_PER_MINUTE: "100000000",
  LOG_LEVEL: "warn",
  BENCH_TENANT: tenant.id,
};
const children: Subprocess[] = [];
/** user+system CPU seconds a child has used so far (Linux /proc), to compare cost per request */
function cpuSeconds(child: Subprocess): number {
  try {
    const stat = require("node:fs").readFileSync(`/proc/${child.pid}/stat`, "utf8") as string;
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return NaN;
  }
}
function start(cmd: string[], port: number) {
  const child = spawn({ cmd, cwd: root, env: { ...childEnv, PORT: String(port) }, stdout: "ignore", stderr: "inherit" });
  children.push(child);
  return child;
}

async function cleanup() {
  for (const c of children) c.kill();
  await removeBenchData(sql, redis, tenant.id, prefix);
}

try {
  const apiProc = start([bun, "scripts/start.ts", "--only", "api"], apiPort);
  const floorProc = start([bun, "scripts/bench-accept.ts", "--floor-server", String(floorPort)], floorPort);
  await Promise.all([waitReady(`http://127.0.0.1:${apiPort}/health`), waitReady(`http://127.0.0.1:${floorPort}/health`)]);

  let n = 0;
  const body = () => JSON.stringify({ channel: "sms", to: `+55119${String(10000000 + (n++ % 89999999)).padStart(8, "0")}`, data: { content: "Your code is 123456" } });
  const ours = { url: `http://127.0.0.1:${apiPort}/v1/notifications`, headers: { authorization: `Bearer ${sandbox.raw}`, "content-type": "application/json" }, body };
  const floor = { url: `http://127.0.0.1:${floorPort}/floor`, headers: { "content-type": "application/json" }, body };

  // warm both (JIT, prepared statements, connection pools)
  await closedLoop(floor, { concurrency, seconds: 2 });
  await closedLoop(ours, { concurrency, seconds: 2 });

  const best = { floor: null as LoadResult | null, ours: null as LoadResult | null };
  const procOf = { floor: floorProc, ours: apiProc };
  for (let r = 0; r < rounds; r++) {
    for (const [name, target] of [["floor", floor], ["ours", ours]] as const) {
      const cpu0 = cpuSeconds(procOf[name]);
      const res = await closedLoop(target, { concurrency, seconds });
      const cpuMs = ((cpuSeconds(procOf[name]) - cpu0) * 1000) / Math.max(1, res.ok);
      console.log(`round ${r + 1} ${name.padEnd(5)} ${latencySummary(res)}  server CPU ${cpuMs.toFixed(3)} ms/req`);
      if (!best[name] || res.rps > best[name]!.rps) best[name] = res;
    }
  }
  const ratio = best.ours!.rps / best.floor!.rps;
  console.log(`\nthroughput (closed loop, ${concurrency} connections, ${seconds}s, best of ${rounds}):`);
  console.log(`  floor  ${best.floor!.rps.toFixed(0)} req/s`);
  console.log(`  ours   ${best.ours!.rps.toFixed(0)} req/s   ratio ours/floor = ${ratio.toFixed(2)}x (target >= 1.0x)`);

  const fixedOurs = await openLoop(ours, { rate, seconds });
  const fixedFloor = await openLoop(floor, { rate, seconds });
  console.log(`\nfixed rate ${rate} req/s for ${seconds}s (open loop, latency from the scheduled send time):`);
  console.log(`  floor  ${latencySummary(fixedFloor)}`);
  console.log(`  ours   ${latencySummary(fixedOurs)}   (target p99 < 50 ms)`);
  const [{ count }] = await sql`select count(*)::int as count from notifications where tenant_id = ${tenant.id}`;
  console.log(`\nrows written: ${count}`);
  console.log(
    JSON.stringify({
      bench: "accept",
      floor_rps: Math.round(best.floor!.rps),
      ours_rps: Math.round(best.ours!.rps),
      ratio: Number(ratio.toFixed(3)),
      fixed_rate: rate,
      ours_p50_ms: fixedOurs.p50,
      ours_p99_ms: fixedOurs.p99,
      ours_errors: fixedOurs.errors,
      floor_p99_ms: fixedFloor.p99,
    }),
  );
} finally {
  await cleanup();
  await sql.end();
  redis.disconnect();
}
process.exit(0);
