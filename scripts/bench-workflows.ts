// Benchmark of workflow runs through the whole system (issue 10): real processes (`start.ts --only`
// api, channel-sender, workflow-run) at TIME_SCALE 0.001, sandbox provider, loopback only.
//
// 1. drain: the single-notification drain rate of one sender process (as bench:deliver measures it):
//    a backlog of --backlog notifications accepted while no sender runs, then the sender started.
// 2. --timers other delay timers (far in the future) pending in the workflow-run actor's timer sets.
// 3. --runs runs of send / delay 1m / send triggered through the API as fast as it answers
//    (closed loop, --concurrency connections): runs completed per second (first trigger to last
//    completion) and the lateness of each delay step: its resume (when the job that ended the delay
//    created the next step's notification) minus its scheduled_at. Also the CPU time each process
//    spent per run, which does not depend on what else the machine runs.
// 4. the same runs paced below capacity (open loop at --paced-rate, default 60% of step 3's rate, for
//    --paced-runs, default 10 s worth): lateness without queueing, what the timers themselves add.
//
// Usage: bun scripts/bench-workflows.ts [--runs 10000] [--timers 100000] [--backlog 10000] [--concurrency 64]
//        [--paced-rate N] [--paced-runs N (0: skip)] [--profile <dir>]
// Cleans up its rows and Redis keys. The last line reads
// `workflows: <N> runs/s, drain <N>/s, ratio <R>, lateness p50 <N> ms p99 <N> ms, <N> timers pending`.
import { spawn, type Subprocess } from "bun";
import { join } from "node:path";
import { closedLoop, latencySummary, openLoop, removeBenchData, waitReady } from "./bench-load";

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ""), process.argv[i + 1] ?? "");
const runs = Number(args.get("runs") ?? 10_000);
const timers = Number(args.get("timers") ?? 100_000);
const backlog = Number(args.get("backlog") ?? 10_000);
const concurrency = Number(args.get("concurrency") ?? 64);
const TIME_SCALE = "0.001";

const root = join(import.meta.dir, "..");
const bun = process.execPath;
const prefix = `benchwf${Math.random().toString(36).slice(2, 8)}`;
process.env.REDIS_PREFIX = prefix;
process.env.TIME_SCALE = TIME_SCALE;

const { sql } = await import("../store/db");
const { createTenant } = await import("../store/tenants");
const { insertApiKey } = await import("../store/api-keys");
const { redis } = await import("../store/redis");
const { getRuntime } = await import("../store/runtime-handle");
const { workflowRunAddress } = await import("../domain/workflows/workflow-run-mail");
const { runtimeKeys } = await import("../runtime");

const { tenant } = await createTenant(`bench-workflows-${prefix}`);
const key = (await insertApiKey(sql, { tenantId: tenant.id, environment: "sandbox", keyType: "secret", name: "bench" })).raw;
const apiPort = 20000 + Math.floor(Math.random() * 12000); // below the ephemeral port range
const api = `http://127.0.0.1:${apiPort}`;
const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };

const childEnv = { ...process.env, REDIS_PREFIX: prefix, TIME_SCALE, RATE_LIMIT_PER_MINUTE: "100000000", LOG_LEVEL: "warn" };
const children: Subprocess[] = [];
function start(kind: string, env: Record<string, string> = {}) {
  // --profile <dir>: the workflow-run process writes a CPU profile (markdown) there on exit
  const profile = kind === "workflow-run" && args.get("profile") ? ["--cpu-prof-md", `--cpu-prof-dir=${args.get("profile")}`] : [];
  const child = spawn({ cmd: [bun, ...profile, "scripts/start.ts", "--only", kind], cwd: root, env: { ...childEnv, ...env }, stdout: "ignore", stderr: "inherit" });
  children.push(child);
  return child;
}

/** CPU time (user + system, ms) a child process has used so far, from /proc (Linux). */
async function cpuMs(child: Subprocess): Promise<number> {
  try {
    const stat = await Bun.file(`/proc/${child.pid}/stat`).text();
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime, stime in clock ticks (100/s)
  } catch {
    return NaN;
  }
}

let seq = 0;
const phone = () => `+55119${String(10000000 + (seq++ % 89999999))}`;

async function pendingTimers(): Promise<number> {
  const P = Number(process.env.PARTITIONS ?? 16);
  const pipeline = redis.pipeline();
  for (let p = 0; p < P; p++) pipeline.zcard(runtimeKeys(prefix).timers(workflowRunAddress.name, p));
  const res = (await pipeline.exec()) ?? [];
  return res.reduce((n, [, v]) => n + Number(v), 0);
}

async function waitUntil(check: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (await check()) return true;
    await Bun.sleep(100);
  }
  return false;
}

const pct = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]! : 0);

let summary = "";
try {
  const apiChild = start("api", { PORT: String(apiPort) });
  await waitReady(`${api}/health`);
  const post = async (path: string, body: unknown) => {
    const r = await fetch(`${api}${path}`, { method: "POST", headers, body: JSON.stringify(body) });
    if (r.status >= 300) throw new Error(`${path}: ${r.status} ${await r.text()}`);
  };
  await post("/v1/templates", { slug: "bench-a", name: "A", channel: "sms", content: "Hi {{ name }}, code {{ code }}" });
  await post("/v1/templates", { slug: "bench-b", name: "B", channel: "sms", content: "Still there, {{ name }}?" });
  await post("/v1/workflows", {
    slug: "bench",
    name: "Bench",
    steps: [{ type: "send", channel: "sms", template: "bench-a" }, { type: "delay", duration: "1m" }, { type: "send", channel: "sms", template: "bench-b" }],
  });

  // 1. drain of single notifications, one sender process (as bench:deliver)
  console.log(`== drain: ${backlog} notifications accepted with no sender, then one sender process`);
  const since1 = new Date();
  const accepted = await openLoop(
    { url: `${api}/v1/notifications`, headers, body: () => JSON.stringify({ channel: "sms", to: phone(), data: { content: "Your code is 123456" } }) },
    { rate: 4000, seconds: backlog / 4000 },
  );
  console.log(`backlog accepted: ${accepted.ok} (${latencySummary(accepted)})`);
  const sender = start("channel-sender");
  await waitUntil(async () => {
    const [r] = await sql`select count(*)::int as n from notifications where tenant_id = ${tenant.id} and created_at >= ${since1} and status = 'pending'`;
    return r!.n === 0;
  }, 180_000);
  const [span] = await sql`select count(*)::int as n, extract(epoch from (max(delivered_at) - min(delivered_at)))::float8 as secs
    from notifications where tenant_id = ${tenant.id} and created_at >= ${since1} and status = 'delivered'`;
  const drain = span!.n / Math.max(0.001, Number(span!.secs));
  console.log(`drain: ${span!.n} delivered in ${Number(span!.secs).toFixed(1)} s -> ${drain.toFixed(0)} delivered/s`);

  // 2. other delay timers pending in the workflow-run actor (far in the future; never due during the run)
  console.log(`== ${timers} other delay timers pending`);
  const runtime = getRuntime();
  const t0 = performance.now();
  for (let i = 0; i < timers; i += 1000) {
    await Promise.all(
      Array.from({ length: Math.min(1000, timers - i) }, (_, k) => {
        const runId = Bun.randomUUIDv7();
        return runtime.schedule(workflowRunAddress, `wfrun:${runId}`, 86_400_000 * (1 + ((i + k) % 7)), { v: 1, type: "timer", runId, token: "bench" }, { unscaled: true, keyBound: true });
      }),
    );
  }
  console.log(`scheduled in ${((performance.now() - t0) / 1000).toFixed(1)} s; pending: ${await pendingTimers()}`);

  // 3. runs through the whole system
  const engine = start("workflow-run");
  await Bun.sleep(1500); // leases won, readers started
  /** One batch of runs triggered by `trigger`: waits for all to end, then their rate and delay lateness. */
  const measureRuns = async (label: string, trigger: () => Promise<Awaited<ReturnType<typeof closedLoop>>>) => {
    console.log(label);
    const since = new Date();
    const cpuBefore = await Promise.all([apiChild, sender, engine].map(cpuMs));
    const triggered = await trigger();
    console.log(`triggered: ${triggered.ok} (${latencySummary(triggered)})`);
    await waitUntil(async () => {
      const [r] = await sql`select count(*)::int as n from workflow_runs where tenant_id = ${tenant.id} and started_at >= ${since} and status = 'running'`;
      return r!.n === 0;
    }, 300_000);
    const [done] = await sql`select count(*) filter (where status = 'completed')::int as completed, count(*)::int as total,
        extract(epoch from (max(completed_at) - min(started_at)))::float8 as secs
      from workflow_runs where tenant_id = ${tenant.id} and started_at >= ${since}`;
    const runsPerSec = done!.completed / Math.max(0.001, Number(done!.secs));
    console.log(`runs: ${done!.completed} of ${done!.total} completed in ${Number(done!.secs).toFixed(1)} s -> ${runsPerSec.toFixed(0)} runs/s`);
    const cpuAfter = await Promise.all([apiChild, sender, engine].map(cpuMs));
    const perRun = cpuAfter.map((a, k) => ((a - cpuBefore[k]!) / Math.max(1, done!.completed)).toFixed(2));
    console.log(`CPU per run (ms): api ${perRun[0]}, channel-sender ${perRun[1]}, workflow-run ${perRun[2]} (machine-independent; the sum bounds runs/s per core)`);
    // the resume of a delay = when the job that ended it created the next step's notification
    const late = await sql<{ ms: number }[]>`
      select (extract(epoch from (n.created_at - (r.step_results->1->>'scheduled_at')::timestamptz)) * 1000)::float8 as ms
      from workflow_runs r join notifications n
        on n.tenant_id = r.tenant_id and n.environment = r.environment and n.idempotency_key = 'wfrun:' || r.id || ':step:2'
      where r.tenant_id = ${tenant.id} and r.started_at >= ${since}`;
    const lateness = late.map((l) => Number(l.ms)).sort((a, b) => a - b);
    console.log(`delay steps: ${lateness.length}, lateness min ${lateness[0]?.toFixed(1)} ms p50 ${pct(lateness, 0.5).toFixed(0)} ms p99 ${pct(lateness, 0.99).toFixed(0)} ms max ${lateness[lateness.length - 1]?.toFixed(1)} ms`);
    return { runsPerSec, p50: pct(lateness, 0.5), p99: pct(lateness, 0.99) };
  };
  const trigger = { url: `${api}/v1/workflows/bench/trigger`, headers, body: () => JSON.stringify({ to: phone(), data: { name: "Ana", code: seq } }) };
  const full = await measureRuns(`== ${runs} runs of send / delay 1m / send (TIME_SCALE ${TIME_SCALE}), closed loop, ${concurrency} connections`, () =>
    closedLoop(trigger, { concurrency, seconds: 600, maxRequests: runs }),
  );
  // Lateness at saturation is mostly queueing (triggers arrive faster than runs complete); the same
  // runs paced below capacity show what the timers themselves add.
  const pacedRate = Math.max(1, Math.round(Number(args.get("paced-rate") ?? 0) || full.runsPerSec * 0.6));
  const pacedRuns = Number(args.get("paced-runs") ?? Math.min(runs, pacedRate * 10));
  let paced: Awaited<ReturnType<typeof measureRuns>> | null = null;
  if (pacedRuns > 0) {
    paced = await measureRuns(`== ${pacedRuns} runs paced at ${pacedRate}/s (open loop)`, () => openLoop(trigger, { rate: pacedRate, seconds: pacedRuns / pacedRate }));
  }
  const [notes] = await sql`select count(*) filter (where status = 'delivered')::int as delivered, count(*)::int as total
    from notifications where tenant_id = ${tenant.id} and idempotency_key like 'wfrun:%'`;
  console.log(`run notifications delivered so far ${notes!.delivered} of ${notes!.total}`);
  const runsPerSec = full.runsPerSec;
  const lateness = { p50: full.p50, p99: full.p99 };
  if (paced) console.log(`paced ${pacedRate} runs/s: lateness p50 ${paced.p50.toFixed(0)} ms p99 ${paced.p99.toFixed(0)} ms`);
  const pending = await pendingTimers();
  const ratio = runsPerSec / drain;
  summary = `workflows: ${runsPerSec.toFixed(0)} runs/s, drain ${drain.toFixed(0)}/s, ratio ${ratio.toFixed(2)}, lateness p50 ${lateness.p50.toFixed(0)} ms p99 ${lateness.p99.toFixed(0)} ms, ${pending} timers pending`;
} finally {
  for (const c of children) c.kill("SIGTERM");
  await Promise.all(children.map((c) => Promise.race([c.exited, Bun.sleep(5000)])));
  for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
  await removeBenchData(sql, redis, tenant.id, prefix);
  await sql.end();
  redis.disconnect();
  await getRuntime().close();
}
// last, after the processes stopped, so nothing prints after it
console.log(`\n${summary}`);
process.exit(summary ? 0 : 1);
