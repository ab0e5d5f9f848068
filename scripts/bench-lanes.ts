// Benchmark of the priority lanes (issue 23, docs/routing.md) over real processes: the API and one
// channel-sender process (`start.ts --only ...`), a Twilio-shaped provider on loopback answering after
// --latency-ms. (1) alone: tenant A's low-priority flood of --flood notifications, accepted while no
// sender runs, drained by the sender: its rate. (2) lanes: the same flood again, and while it drains
// tenants A and B each send --high-rate high-priority notifications per second for --seconds: their
// accept-to-sent p99 and the flood's rate beside them.
//
// Usage: bun scripts/bench-lanes.ts [--flood 200000] [--high-rate 50] [--seconds 30] [--latency-ms 20]
// Loopback only; bounded in count and time; cleans up its rows and Redis keys. Last line:
//   lanes: high p99 <N> ms (A) <N> ms (B), flood <N>/s (<R> of alone)
import { spawn, type Subprocess } from "bun";
import { join } from "node:path";
import { closedLoop, openLoop, removeBenchData } from "./bench-load";

/** Polls a spawned server until it answers (a loaded 2-core machine starts processes slowly: 90 s at most). */
async function waitReady(url: string): Promise<void> {
  for (let i = 0; i < 900; i++) {
    try {
      if ((await fetch(url)).status < 500) return;
    } catch {}
    await Bun.sleep(100);
  }
  throw new Error(`${url} did not answer within 90 s`);
}

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ""), process.argv[i + 1] ?? "");
const root = join(import.meta.dir, "..");
const bun = process.execPath;

// Provider server mode: a Twilio-shaped Messages endpoint answering 201 with a sid after the latency.
if (args.has("provider-server")) {
  const latency = Number(args.get("latency-ms") ?? 20);
  let n = 0;
  Bun.serve({
    hostname: "127.0.0.1",
    port: Number(args.get("provider-server")),
    async fetch(req) {
      if (req.method === "GET") return new Response("ok");
      await req.arrayBuffer();
      await Bun.sleep(latency);
      return Response.json({ sid: `SM${(++n).toString(16).padStart(32, "0")}`, status: "queued" }, { status: 201 });
    },
  });
  console.log("provider ready");
  await new Promise(() => {});
}

const flood = Number(args.get("flood") ?? 200_000);
const highRate = Number(args.get("high-rate") ?? 50);
const seconds = Number(args.get("seconds") ?? 30);
const latencyMs = Number(args.get("latency-ms") ?? 20);
const prefix = `benchlanes${Math.random().toString(36).slice(2, 8)}`;
process.env.REDIS_PREFIX = prefix;

const { sql } = await import("../store/db");
const { createTenant } = await import("../store/tenants");
const { insertChannel } = await import("../store/channels");
const { redis } = await import("../store/redis");

const basePort = 20000 + Math.floor(Math.random() * 12000);
const apiPort = basePort;
const providerPort = basePort + 1;
const tenants = [await createTenant(`bench-lanes-a-${prefix}`), await createTenant(`bench-lanes-b-${prefix}`)];
for (const t of tenants) {
  await insertChannel(sql, { tenantId: t.tenant.id, environment: "production" }, "sms", {
    provider: "twilio",
    credentials: { account_sid: "AC" + "0123456789abcdef".repeat(2), auth_token: "bench-token" },
    settings: { from: "+14155550100", base_url: `http://127.0.0.1:${providerPort}`, rate_limit_per_second: 100000 },
    active: true,
  });
}
const [A, B] = tenants as [(typeof tenants)[0], (typeof tenants)[0]];

const childEnv = { ...process.env, REDIS_PREFIX: prefix, RATE_LIMIT_PER_MINUTE: "100000000", LOG_LEVEL: "warn" };
const children: Subprocess[] = [];
function start(cmd: string[], env: Record<string, string> = {}) {
  const child = spawn({ cmd, cwd: root, env: { ...childEnv, ...env }, stdout: "ignore", stderr: "inherit" });
  children.push(child);
  return child;
}

let seq = 0;
const target = (key: string, priority: string) => ({
  url: `http://127.0.0.1:${apiPort}/v1/notifications`,
  headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
  body: () => JSON.stringify({ channel: "sms", to: `+55119${String(10000000 + (seq++ % 89999999))}`, priority, data: { content: "Your code is 123456" } }),
});

async function pendingOf(tenantId: string, priority: string, since: Date) {
  const [r] = await sql`select count(*) filter (where status = 'pending')::int as pending, count(*)::int as total
    from notifications where tenant_id = ${tenantId} and priority = ${priority} and created_at >= ${since}`;
  return r as { pending: number; total: number };
}

/** Sent per second between the first and the last send of the tenant's low rows since `since`. */
async function floodRate(since: Date) {
  const [r] = await sql`select count(*)::int as n, extract(epoch from (max(sent_at) - min(sent_at))) as secs
    from notifications where tenant_id = ${A.tenant.id} and priority = 'low' and created_at >= ${since} and status = 'sent'`;
  return { n: r!.n as number, perSec: (r!.n as number) / Math.max(0.001, Number(r!.secs ?? 0)) };
}

async function highP99(tenantId: string, since: Date) {
  const [r] = await sql`select percentile_cont(0.99) within group (order by extract(epoch from (sent_at - created_at)) * 1000) as p99,
      percentile_cont(0.5) within group (order by extract(epoch from (sent_at - created_at)) * 1000) as p50, count(*)::int as n
    from notifications where tenant_id = ${tenantId} and priority = 'high' and created_at >= ${since} and status = 'sent'`;
  return { p99: Number(r!.p99 ?? 0), p50: Number(r!.p50 ?? 0), n: r!.n as number };
}

async function drain(since: Date, timeoutMs: number) {
  const t0 = performance.now();
  while (performance.now() - t0 < timeoutMs) {
    const p = await pendingOf(A.tenant.id, "low", since);
    if (p.pending === 0) return true;
    await Bun.sleep(250);
  }
  return false;
}

async function acceptFlood() {
  const since = new Date();
  // as fast as the API takes them (a closed loop: an open one drops what a loaded API cannot take)
  const r = await closedLoop(target(A.apiKey.raw, "low"), { concurrency: 64, seconds: 3600, maxRequests: flood });
  return { since, accepted: r.ok };
}

let sender: Subprocess | null = null;
const cpuOf = (pid: number) => {
  try {
    const f = require("node:fs").readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return (Number(f[11]) + Number(f[12])) / 100; // utime + stime, in seconds at 100 Hz
  } catch {
    return 0;
  }
};
/** Starts the sender and waits until it sends (a loaded machine may take many seconds to start a process). */
const startSender = async (since: Date) => {
  sender = start([bun, "scripts/start.ts", "--only", "channel-sender"]);
  for (let i = 0; i < 1200; i++) {
    const [r] = await sql`select count(*)::int as n from notifications where tenant_id = ${A.tenant.id} and created_at >= ${since} and status = 'sent'`;
    if (r!.n > 0) return;
    await Bun.sleep(100);
  }
  throw new Error("the sender sent nothing within 120 s");
};
const stopSender = async () => {
  if (!sender) return 0;
  const cpu = cpuOf(sender.pid);
  sender.kill("SIGTERM");
  await sender.exited;
  sender = null;
  return cpu;
};
const load = () => require("node:fs").readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");

try {
  start([bun, "scripts/start.ts", "--only", "api"], { PORT: String(apiPort) });
  start([bun, "scripts/bench-lanes.ts", "--provider-server", String(providerPort), "--latency-ms", String(latencyMs)]);
  await Promise.all([waitReady(`http://127.0.0.1:${apiPort}/health`), waitReady(`http://127.0.0.1:${providerPort}/`)]);
  console.log(`flood ${flood} low-priority (tenant A), high ${highRate}/s x ${seconds} s per tenant (A and B), provider latency ${latencyMs} ms; load ${load()}`);

  // 1. the flood alone
  const alone = await acceptFlood();
  console.log(`flood accepted: ${alone.accepted}`);
  await startSender(alone.since);
  const aloneDrained = await drain(alone.since, 600_000);
  const aloneCpu = await stopSender();
  const aloneRate = await floodRate(alone.since);
  console.log(`alone: ${aloneRate.n} sent at ${aloneRate.perSec.toFixed(0)}/s${aloneDrained ? "" : " (NOT drained)"}; sender CPU ${((aloneCpu * 1000) / Math.max(1, aloneRate.n)).toFixed(2)} ms/notification; load ${load()}`);

  // 2. the flood again, with both tenants' high-priority traffic while it drains
  const lanes = await acceptFlood();
  await startSender(lanes.since);
  const highSince = new Date();
  const [ha, hb] = await Promise.all([
    openLoop(target(A.apiKey.raw, "high"), { rate: highRate, seconds }),
    openLoop(target(B.apiKey.raw, "high"), { rate: highRate, seconds }),
  ]);
  const stillFlooding = (await pendingOf(A.tenant.id, "low", lanes.since)).pending;
  const lanesDrained = await drain(lanes.since, 600_000);
  // the high ones are out long before; give stragglers a moment
  for (let i = 0; i < 50 && ((await pendingOf(A.tenant.id, "high", highSince)).pending || (await pendingOf(B.tenant.id, "high", highSince)).pending); i++) await Bun.sleep(100);
  const lanesCpu = await stopSender();
  const [pa, pb, lanesRate] = await Promise.all([highP99(A.tenant.id, highSince), highP99(B.tenant.id, highSince), floodRate(lanes.since)]);
  console.log(`high A: ${ha.ok} accepted, ${pa.n} sent, p50 ${pa.p50.toFixed(0)} ms p99 ${pa.p99.toFixed(0)} ms`);
  console.log(`high B: ${hb.ok} accepted, ${pb.n} sent, p50 ${pb.p50.toFixed(0)} ms p99 ${pb.p99.toFixed(0)} ms`);
  console.log(
    `flood with high traffic: ${lanesRate.n} sent at ${lanesRate.perSec.toFixed(0)}/s${lanesDrained ? "" : " (NOT drained)"}; ${stillFlooding} low still pending when the high traffic ended` +
      ` (the p99s were measured while the flood drained only if this is > 0); sender CPU ${((lanesCpu * 1000) / Math.max(1, lanesRate.n + pa.n + pb.n)).toFixed(2)} ms/notification; load ${load()}`,
  );
  const ratio = lanesRate.perSec / Math.max(1, aloneRate.perSec);
  console.log(`targets: high p99 < 250 ms for both tenants; flood >= 85% of alone`);
  console.log(`lanes: high p99 ${pa.p99.toFixed(0)} ms (A) ${pb.p99.toFixed(0)} ms (B), flood ${lanesRate.perSec.toFixed(0)}/s (${ratio.toFixed(2)} of alone)`);
} finally {
  await stopSender().catch(() => 0);
  for (const c of children) c.kill();
  await Promise.all(children.map((c) => c.exited));
  for (const t of tenants) await removeBenchData(sql, redis, t.tenant.id, prefix);
  await sql.end();
  redis.disconnect();
}
process.exit(0);
