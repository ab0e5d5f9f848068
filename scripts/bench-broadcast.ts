// Benchmark of a broadcast to a topic (issue 22): real processes (`start.ts --only` api, broadcast,
// workflow-run, channel-sender), an in_app single-send workflow in sandbox (the inbox provider).
// 1. a topic of --members subscribers made through the bulk APIs (import and member adds, 1,000 per
//    call, --concurrency calls at a time): members per second;
// 2. one trigger to the topic: fan-out runs created per second (trigger to completed broadcast),
//    notifications delivered per second and the time to the last delivery, duplicates (a subscriber
//    with two notifications), and the peak RSS of every process (VmHWM).
// Usage: bun scripts/bench-broadcast.ts [--members 1000000] [--concurrency 4] [--profile <dir>] [--build-only 1]
// (--build-only: stop after the topic's build; the api's resident memory is sampled every 2 s during it)
// Cleans up its rows and Redis keys. The last line reads
// `broadcast: <N> members, <N> runs, <N> delivered, <N> duplicate, fan-out <N> runs/s, delivered in <N> s, peak rss <N> MB`.
import { spawn, type Subprocess } from "bun";
import { join } from "node:path";
import { forEachLine, removeBenchData, waitReady } from "./bench-load";

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ""), process.argv[i + 1] ?? "");
const members = Number(args.get("members") ?? 1_000_000);
const concurrency = Number(args.get("concurrency") ?? 4);
/** the send step's lane: absent, a broadcast's runs send in the low lane (docs/routing.md) */
const priority = args.get("priority");

const root = join(import.meta.dir, "..");
const bun = process.execPath;
const prefix = `benchbc${Math.random().toString(36).slice(2, 8)}`;
process.env.REDIS_PREFIX = prefix;

const { sql } = await import("../store/db");
const { createTenant } = await import("../store/tenants");
const { insertApiKey } = await import("../store/api-keys");
const { redis } = await import("../store/redis");
const { getRuntime } = await import("../store/runtime-handle");

const { tenant } = await createTenant(`bench-broadcast-${prefix}`);
const key = (await insertApiKey(sql, { tenantId: tenant.id, environment: "sandbox", keyType: "secret", name: "bench" })).raw;
const apiPort = 20000 + Math.floor(Math.random() * 12000);
const api = `http://127.0.0.1:${apiPort}`;
const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
const childEnv = { ...process.env, REDIS_PREFIX: prefix, RATE_LIMIT_PER_MINUTE: "100000000", LOG_LEVEL: "warn" };
const children: { kind: string; proc: Subprocess<"ignore", "pipe", "inherit">; ready: Promise<void> }[] = [];
/** Starts one process kind; `ready` resolves at its ready line (its hosts read their partitions). */
const start = (kind: string, env: Record<string, string> = {}) => {
  // --profile <dir>: the workflow-run and channel-sender processes write a CPU profile (markdown) there on exit
  const profile = (kind === "workflow-run" || kind === "channel-sender") && args.get("profile") ? ["--cpu-prof-md", `--cpu-prof-dir=${args.get("profile")}`] : [];
  const proc = spawn({ cmd: [bun, ...profile, "scripts/start.ts", "--only", kind], cwd: root, env: { ...childEnv, ...env }, stdout: "pipe", stderr: "inherit" });
  let isReady!: () => void;
  const ready = new Promise<void>((r) => (isReady = r));
  void forEachLine(proc.stdout, (line) => line.startsWith("ready:") && isReady());
  children.push({ kind, proc, ready });
};

/** Peak resident memory (VmHWM, MB) of a child, from /proc (Linux); its current one (VmRSS) with `field`. */
async function peakRssMb(p: Subprocess, field = "VmHWM"): Promise<number> {
  try {
    const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(await Bun.file(`/proc/${p.pid}/status`).text());
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

async function post(path: string, body: unknown, method = "POST") {
  const r = await fetch(`${api}${path}`, { method, headers, body: JSON.stringify(body) });
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${await r.text()}`);
  return await r.json();
}

let summary = "broadcast: did not finish";
class BuildOnly extends Error {}
try {
  start("api", { PORT: String(apiPort) });
  // a loaded machine starts a process in tens of seconds: the API first, then the actors
  for (let i = 0; ; i++) {
    try {
      await waitReady(`${api}/health`);
      break;
    } catch (err) {
      if (i >= 5) throw err;
    }
  }
  start("broadcast");
  start("workflow-run");
  start("channel-sender");
  // the maintenance a deployment runs beside them (partitions, retention, table statistics: docs/operations.md)
  start("retention");
  await post("/v1/templates", { slug: "bcast", name: "News", channel: "in_app", content: "News for {{ name }}", status: "active" });
  await post("/v1/workflows", { slug: "bcast", name: "Broadcast", steps: [{ type: "send", channel: "in_app", template: "bcast", ...(priority ? { priority } : {}) }] });
  await post("/v1/topics", { key: "everyone", name: "Everyone" });

  const t0 = performance.now();
  let next = 0;
  // the api's resident memory while it builds the topic: the peak (VmHWM) alone does not say when
  const apiProc = children[0]!.proc;
  let buildRssMax = 0;
  const rssSampler = setInterval(async () => {
    const mb = await peakRssMb(apiProc, "VmRSS");
    if (mb > buildRssMax) buildRssMax = mb;
    if (args.get("build-only")) console.log(`  ${Math.min(next, members)} members: api rss ${mb.toFixed(0)} MB`);
  }, 2000);
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (;;) {
        const from = next;
        next += 1000;
        if (from >= members) return;
        const ids = Array.from({ length: Math.min(1000, members - from) }, (_, k) => `m-${from + k}`);
        await post("/v1/subscribers/import", { subscribers: ids.map((external_id) => ({ external_id })) });
        await post("/v1/topics/everyone/subscribers", { subscribers: ids });
      }
    }),
  );
  clearInterval(rssSampler);
  const setupS = (performance.now() - t0) / 1000;
  console.log(
    `topic: ${members} members through the bulk APIs in ${setupS.toFixed(1)} s (${(members / setupS).toFixed(0)} members/s); api rss at most ${buildRssMax.toFixed(0)} MB sampled, peak ${(await peakRssMb(apiProc)).toFixed(0)} MB`,
  );
  if (args.get("build-only")) {
    summary = `broadcast: ${members} members built, build only`;
    throw new BuildOnly();
  }

  // a loaded machine starts a process in tens of seconds: fan-out is timed from a trigger every actor process is ready for
  await Promise.race([Promise.all(children.map((c) => c.ready)), Bun.sleep(120_000)]);
  const t1 = performance.now();
  const b = (await post("/v1/workflows/bcast/trigger", { to: { topic: "everyone" }, data: { name: "all" } })).data;
  let fanOutS = 0;
  let deliveredS = 0;
  let delivered = 0;
  let runs = 0;
  // 15 ms per member: a loaded 2-core machine delivered 140-170 a second (docs/topics.md)
  const deadline = Date.now() + Math.max(600_000, members * 15);
  let lastLog = Date.now();
  let lastSettledCheck = Date.now();
  // counting a million rows costs the service's CPU: poll every 500 ms up to 100,000 members, then
  // slower (5 s at 1,000,000); the last delivery's time comes from PostgreSQL's stamps anyway
  const pollMs = Math.max(500, members / 200);
  const logMs = Math.max(5000, members / 50);
  while (Date.now() < deadline) {
    const [row] = await sql`select status, runs_created from broadcasts where id = ${b.id}`;
    runs = row!.runs_created;
    if (!fanOutS && row!.status === "completed") fanOutS = (performance.now() - t1) / 1000;
    const [d] = await sql`select count(*)::int as n from notifications where tenant_id = ${tenant.id} and status = 'delivered'`;
    delivered = d!.n;
    if (Date.now() - lastLog >= logMs) {
      lastLog = Date.now();
      const st = await sql`select status, count(*)::int as n from notifications where tenant_id = ${tenant.id} group by status order by status`;
      const [rc] = await sql`select count(*) filter (where status = 'completed')::int as done, count(*)::int as n from workflow_runs where tenant_id = ${tenant.id}`;
      const rssNow = await Promise.all(children.map(async (c) => `${c.kind} ${(await peakRssMb(c.proc, "VmRSS")).toFixed(0)}`));
      console.log(
        `+${((performance.now() - t1) / 1000).toFixed(0)} s: runs ${rc!.n} (${rc!.done} completed), notifications ${st.map((r) => `${r.status} ${r.n}`).join(", ") || "none"}; rss MB ${rssNow.join(", ")}`,
      );
    }
    if (fanOutS && delivered >= runs) {
      deliveredS = (performance.now() - t1) / 1000;
      break;
    }
    // a run that failed (its step's error) never delivers: stop once nothing is left moving
    if (fanOutS && delivered > 0 && Date.now() - lastSettledCheck >= logMs) {
      lastSettledCheck = Date.now();
      const [m] = await sql`select
          (select count(*)::int from workflow_runs where tenant_id = ${tenant.id} and status = 'running') as running,
          (select count(*)::int from notifications where tenant_id = ${tenant.id} and status = 'pending') as pending`;
      if (m!.running === 0 && m!.pending === 0) {
        deliveredS = (performance.now() - t1) / 1000;
        const failed = await sql`select step_results from workflow_runs where tenant_id = ${tenant.id} and status = 'failed' limit 3`;
        console.log(`settled with ${runs - delivered} run(s) not delivered, e.g. ${JSON.stringify(failed.map((f) => f.step_results))}`);
        break;
      }
    }
    await Bun.sleep(pollMs);
  }
  // the last delivery as PostgreSQL stamped it, from the broadcast's creation (the poll above is up to 5 s late)
  const [last] = await sql`select extract(epoch from (select max(delivered_at) from notifications where tenant_id = ${tenant.id}) - b.created_at)::float8 as s
    from broadcasts b where b.id = ${b.id}`;
  // stopped by the deadline: the time to the last delivery so far (delivered says how many)
  if (last?.s) deliveredS = last.s;
  // the fan-out as PostgreSQL stamped it (trigger to completion), not to the poll that saw it (up to 500 ms late)
  const [fo] = await sql`select extract(epoch from completed_at - created_at)::float8 as s from broadcasts where id = ${b.id} and status = 'completed'`;
  if (fo?.s) fanOutS = fo.s;
  if (delivered < runs) console.log(`stopped before every run delivered: ${delivered} of ${runs}`);
  const [dup] = await sql`select count(*)::int as n from (select subscriber_id from notifications where tenant_id = ${tenant.id} group by subscriber_id having count(*) > 1) x`;
  const rss = await Promise.all(children.map(async (c) => [c.kind, await peakRssMb(c.proc)] as const));
  // CPU per recipient of each process (utime + stime from /proc, clock ticks of 10 ms), start-up included
  const cpu = await Promise.all(
    children.map(async (c) => {
      const f = (await Bun.file(`/proc/${c.proc.pid}/stat`).text().catch(() => "")).split(") ")[1]?.split(" ") ?? [];
      return `${c.kind} ${(((Number(f[11]) + Number(f[12])) * 10) / Math.max(1, runs)).toFixed(2)} ms`;
    }),
  );
  console.log(`cpu per recipient: ${cpu.join(", ")}`);
  for (const [kind, mb] of rss) console.log(`peak rss ${kind}: ${mb.toFixed(0)} MB`);
  console.log(`fan-out ${fanOutS.toFixed(1)} s, last delivery ${deliveredS.toFixed(1)} s after the trigger (${(delivered / (deliveredS || 1)).toFixed(0)} delivered/s)`);
  const peak = Math.max(...rss.map(([, mb]) => mb));
  summary = `broadcast: ${members} members, ${runs} runs, ${delivered} delivered, ${dup!.n} duplicate, fan-out ${(runs / (fanOutS || 1)).toFixed(0)} runs/s, delivered in ${deliveredS.toFixed(1)} s, peak rss ${peak.toFixed(0)} MB`;
} catch (err) {
  if (!(err instanceof BuildOnly)) throw err;
} finally {
  for (const c of children) c.proc.kill("SIGTERM");
  await Promise.all(children.map((c) => Promise.race([c.proc.exited, Bun.sleep(5000)])));
  for (const c of children) if (c.proc.exitCode === null) c.proc.kill("SIGKILL");
  await Promise.all(children.map((c) => c.proc.exited));
  await sql`delete from workflow_runs where tenant_id = ${tenant.id}`;
  await sql`delete from broadcasts where tenant_id = ${tenant.id}`;
  await removeBenchData(sql, redis, tenant.id, prefix);
  await sql.end();
  redis.disconnect();
  await getRuntime().close();
}
console.log(`\n${summary}`);
