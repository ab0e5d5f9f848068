// Benchmark of accepted -> delivered through the channel-sender actor, over real processes: the
// API (`start.ts --only api`) and one channel-sender host (`start.ts --only channel-sender`).
//
// Two providers: the built-in sandbox (sandbox key, no configuration; final status `delivered`)
// and a local HTTP provider (a Twilio-shaped server on loopback, production key; final status
// `sent`, the provider's acceptance, since Twilio reports delivery later by callback).
// For each: (1) drain: a backlog accepted while no sender runs, then the sender is started and
// the sustained delivered/s measured; (2) steady: an open loop at --rate for --seconds with the
// sender running; end-to-end latency per notification = final-status time - created_at.
//
// Usage: bun scripts/bench-deliver.ts [--backlog 20000] [--rate 1000] [--seconds 10] [--high-rate 2000]
//        [--only sandbox|http] [--sender-profile <dir>]
// Loopback only; bounded in count and time; cleans up its rows and Redis keys.
import { spawn, type Subprocess } from "bun";
import { join } from "node:path";
import { openLoop, latencySummary, removeBenchData, waitReady } from "./bench-load";

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ""), process.argv[i + 1] ?? "");
const root = join(import.meta.dir, "..");
const bun = process.execPath;

// ----------------------------------------------------------------------------------------------
// Provider server mode: a Twilio-shaped Messages endpoint answering 201 with a sid.
if (args.has("provider-server")) {
  let n = 0;
  Bun.serve({
    hostname: "127.0.0.1",
    port: Number(args.get("provider-server")),
    async fetch(req) {
      if (req.method === "GET") return new Response("ok");
      await req.arrayBuffer();
      const sid = `SM${(++n).toString(16).padStart(32, "0")}`;
      return Response.json({ sid, status: "queued" }, { status: 201 });
    },
  });
  console.log("provider ready");
  await new Promise(() => {});
}

// ----------------------------------------------------------------------------------------------
const backlog = Number(args.get("backlog") ?? 20000);
const rate = Number(args.get("rate") ?? 1000);
const highRate = Number(args.get("high-rate") ?? 2000);
const seconds = Number(args.get("seconds") ?? 10);
const prefix = `benchdel${Math.random().toString(36).slice(2, 8)}`;
process.env.REDIS_PREFIX = prefix;

const { sql } = await import("../store/db");
const { createTenant } = await import("../store/tenants");
const { insertApiKey } = await import("../store/api-keys");
const { insertChannel } = await import("../store/channels");
const { redis } = await import("../store/redis");

const { tenant, apiKey } = await createTenant(`bench-deliver-${prefix}`);
const sandboxKey = await insertApiKey(sql, { tenantId: tenant.id, environment: "sandbox", keyType: "secret", name: "bench" });

const basePort = 20000 + Math.floor(Math.random() * 12000); // below the kernel's ephemeral range (32768+), where client sockets would collide
const apiPort = basePort;
const providerPort = basePort + 1;
await insertChannel(sql, { tenantId: tenant.id, environment: "production" }, "sms", {
  provider: "twilio",
  credentials: { account_sid: "AC" + "0123456789abcdef".repeat(2), auth_token: "bench-token" },
  settings: { from: "+14155550100", base_url: `http://127.0.0.1:${providerPort}`, rate_limit_per_second: 100000 },
  active: true,
} as any);

const childEnv = { ...process.env, REDIS_PREFIX: prefix, RATE_LIMIT_PER_MINUTE: "100000000", LOG_LEVEL: "warn" };
const children: Subprocess[] = [];
function start(cmd: string[], env: Record<string, string> = {}) {
  const child = spawn({ cmd, cwd: root, env: { ...childEnv, ...env }, stdout: "ignore", stderr: "inherit" });
  children.push(child);
  return child;
}

async function cleanup() {
  for (const c of children) c.kill();
  await removeBenchData(sql, redis, tenant.id, prefix);
}

interface Scenario {
  name: string;
  key: string;
  env: "sandbox" | "production";
  final: string;
}
const scenarios: Scenario[] = [
  { name: "sandbox provider", key: sandboxKey.raw, env: "sandbox", final: "delivered" },
  { name: "local HTTP provider (twilio-shaped)", key: apiKey.raw, env: "production", final: "sent" },
];

let seq = 0;
const target = (s: Scenario) => ({
  url: `http://127.0.0.1:${apiPort}/v1/notifications`,
  headers: { authorization: `Bearer ${s.key}`, "content-type": "application/json" },
  body: () => JSON.stringify({ channel: "sms", to: `+55119${String(10000000 + (seq++ % 89999999))}`, data: { content: "Your code is 123456" } }),
});

async function countFinal(s: Scenario, since: Date) {
  const [r] = await sql`select count(*) filter (where status = ${s.final})::int as done, count(*)::int as total,
      count(*) filter (where status not in ('pending', ${s.final}))::int as other
    from notifications where tenant_id = ${tenant.id} and environment = ${s.env} and created_at >= ${since}`;
  return r as { done: number; total: number; other: number };
}

async function latencies(s: Scenario, since: Date) {
  const col = s.final === "delivered" ? sql`delivered_at` : sql`sent_at`;
  const [r] = await sql`select
      percentile_cont(0.5) within group (order by extract(epoch from (${col} - created_at)) * 1000) as p50,
      percentile_cont(0.99) within group (order by extract(epoch from (${col} - created_at)) * 1000) as p99,
      max(extract(epoch from (${col} - created_at)) * 1000) as max, count(*)::int as n
    from notifications where tenant_id = ${tenant.id} and environment = ${s.env} and created_at >= ${since} and status = ${s.final}`;
  return { p50: Number(r!.p50 ?? 0), p99: Number(r!.p99 ?? 0), max: Number(r!.max ?? 0), n: r!.n as number };
}

async function waitDrained(s: Scenario, since: Date, expected: number, timeoutMs: number) {
  const t0 = performance.now();
  let last = await countFinal(s, since);
  while (last.done + last.other < expected && performance.now() - t0 < timeoutMs) {
    await Bun.sleep(100);
    last = await countFinal(s, since);
  }
  return { ...last, ms: performance.now() - t0 };
}

const results: Record<string, unknown>[] = [];
let sender: Subprocess | null = null;
const startSender = async () => {
  // --sender-profile <dir>: the sender process writes a CPU profile (markdown) there on exit
  const profile = args.get("sender-profile") ? [`--cpu-prof-md`, `--cpu-prof-dir=${args.get("sender-profile")}`] : [];
  sender = start([bun, ...profile, "scripts/start.ts", "--only", "channel-sender"]);
  await Bun.sleep(1500); // leases won, readers started
};
const stopSender = async () => {
  if (!sender) return;
  sender.kill("SIGTERM");
  await sender.exited;
  sender = null;
};

try {
  start([bun, "scripts/start.ts", "--only", "api"], { PORT: String(apiPort) });
  start([bun, "scripts/bench-deliver.ts", "--provider-server", String(providerPort)]);
  await Promise.all([waitReady(`http://127.0.0.1:${apiPort}/health`), waitReady(`http://127.0.0.1:${providerPort}/`)]);

  const only = args.get("only");
  for (const s of scenarios.filter((x) => !only || (only === "http" ? x.env === "production" : x.env === "sandbox"))) {
    console.log(`\n== ${s.name} (final status ${s.final})`);
    // 1. drain: accept a backlog with no sender, then measure how fast one sender process empties it
    const since1 = new Date();
    const accepted = await openLoop(target(s), { rate: 4000, seconds: backlog / 4000 });
    console.log(`backlog accepted: ${accepted.ok} (${latencySummary(accepted)})`);
    await startSender();
    const drained = await waitDrained(s, since1, accepted.ok, 120_000);
    // the rate between the first and the last final status, read from the rows themselves
    const col = s.final === "delivered" ? sql`delivered_at` : sql`sent_at`;
    const [span] = await sql`select extract(epoch from (max(${col}) - min(${col}))) as secs from notifications
      where tenant_id = ${tenant.id} and environment = ${s.env} and created_at >= ${since1} and status = ${s.final}`;
    const drainSec = Math.max(0.001, Number(span!.secs ?? 0));
    const drainRate = drained.done / drainSec;
    console.log(`drain: ${drained.done} ${s.final} (${drained.other} other) in ${drainSec.toFixed(1)} s -> ${drainRate.toFixed(0)} ${s.final}/s sustained (target >= 2000/s)`);

    // 2. steady state at the target rates, sender running: end-to-end latency from created_at
    const steady: Record<string, unknown> = {};
    for (const r of [rate, highRate]) {
      const since = new Date();
      const load = await openLoop(target(s), { rate: r, seconds });
      const done = await waitDrained(s, since, load.ok, 60_000);
      const lat = await latencies(s, since);
      console.log(
        `steady ${r}/s for ${seconds}s: accepted ${load.ok}, ${s.final} ${done.done} (other ${done.other}); end-to-end p50 ${lat.p50.toFixed(1)} ms p99 ${lat.p99.toFixed(1)} ms max ${lat.max.toFixed(0)} ms` +
          (r === rate ? "   (target p99 < 250 ms at 1000/s)" : ""),
      );
      steady[`rate_${r}`] = { accepted: load.ok, final: done.done, p50_ms: Math.round(lat.p50), p99_ms: Math.round(lat.p99), accept_p99_ms: load.p99 };
    }
    await stopSender();
    results.push({ scenario: s.name, drain_per_s: Math.round(drainRate), drained: drained.done, ...steady });
  }
  console.log("\n" + JSON.stringify({ bench: "deliver", results }));
} finally {
  await stopSender().catch(() => {});
  await cleanup();
  await sql.end();
  redis.disconnect();
}
process.exit(0);
