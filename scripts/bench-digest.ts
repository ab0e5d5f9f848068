// Benchmark of the digest step (issue 21): real processes (`start.ts --only` api, workflow-run,
// channel-sender) at TIME_SCALE 0.001, sandbox provider, loopback only.
//
// Both phases send through the bulk trigger route (POST /v1/workflows/:slug/trigger/bulk), --per
// events per call, closed loop over --concurrency connections: like for like, so "of plain" compares
// two acceptance rates measured the same way in the same run. (At TIME_SCALE 0.001 a 1m window is
// 60 ms, shorter than 100 single HTTP triggers take, so one recipient's triggers go in one call.)
// 1. plain: --plain triggers of send / delay 1m / send (bench:workflows' workflow), --per distinct
//    recipients per call: the plain trigger acceptance rate.
// 2. digest: --recipients x --per triggers of digest (--window, max_events --max-events, default --per;
//    0: none, the window's end closes every digest) / send, one call per
//    recipient with its --per triggers: triggers accepted per second, then, once every run ended:
//    digests sent (leaders' notifications), events per digest, duplicates (a run in two digests, or a
//    leader with two notifications), missing (a run in no digest, or not completed), and the close
//    lateness of each digest: its notification's creation minus its window's end (window_ended_at: the
//    window's end, or when the max_events-th run joined). Also printed: each digest's send minus its
//    last event's trigger (what queueing in the workflow-run actor adds before the close).
//
// Usage: bun scripts/bench-digest.ts [--recipients 1000] [--per 100] [--plain 10000] [--window 1m] [--concurrency 4] [--max-events <per>]
// Cleans up its rows and Redis keys. The last line reads
// `digest: <N> triggers, <N> digests, <N> duplicate, <N> missing, <N> triggers/s (<R> of plain), close lateness p99 <N> ms`.
import { spawn, type Subprocess } from "bun";
import { join } from "node:path";
import { closedLoop, latencySummary, removeBenchData } from "./bench-load";

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ""), process.argv[i + 1] ?? "");
const recipients = Number(args.get("recipients") ?? 1000);
const per = Number(args.get("per") ?? 100);
const plainCount = Number(args.get("plain") ?? 10_000);
const windowText = args.get("window") ?? "1m";
const concurrency = Number(args.get("concurrency") ?? 4);
const maxEvents = Number(args.get("max-events") ?? per);
const TIME_SCALE = "0.001";
const total = recipients * per;

const root = join(import.meta.dir, "..");
const bun = process.execPath;
const prefix = `benchdg${Math.random().toString(36).slice(2, 8)}`;
process.env.REDIS_PREFIX = prefix;
process.env.TIME_SCALE = TIME_SCALE;

const { sql } = await import("../store/db");
const { createTenant } = await import("../store/tenants");
const { insertApiKey } = await import("../store/api-keys");
const { redis } = await import("../store/redis");
const { getRuntime } = await import("../store/runtime-handle");

const { tenant } = await createTenant(`bench-digest-${prefix}`);
const key = (await insertApiKey(sql, { tenantId: tenant.id, environment: "sandbox", keyType: "secret", name: "bench" })).raw;
const apiPort = 20000 + Math.floor(Math.random() * 12000);
const api = `http://127.0.0.1:${apiPort}`;
const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
const childEnv = { ...process.env, REDIS_PREFIX: prefix, TIME_SCALE, RATE_LIMIT_PER_MINUTE: "100000000", LOG_LEVEL: "warn" };
const children: Subprocess[] = [];
function start(kind: string, env: Record<string, string> = {}) {
  const child = spawn({ cmd: [bun, "scripts/start.ts", "--only", kind], cwd: root, env: { ...childEnv, ...env }, stdout: "ignore", stderr: "inherit" });
  children.push(child);
  return child;
}

/** CPU time (user + system, ms) a child process has used so far, from /proc (Linux). */
async function cpuMs(child: Subprocess | undefined): Promise<number> {
  try {
    const stat = await Bun.file(`/proc/${child!.pid}/stat`).text();
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime, stime in clock ticks (100/s)
  } catch {
    return NaN;
  }
}
const cpuOf = async () => Promise.all(children.map(cpuMs));
const cpuPer = (a: number[], b: number[], n: number) =>
  ["api", "workflow-run", "channel-sender"].map((k, j) => `${k} ${((b[j]! - a[j]!) / n).toFixed(2)}`).join(", ");

async function waitUntil(check: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (await check()) return true;
    await Bun.sleep(250);
  }
  return false;
}

/** The API's health answering: up to 90 s (a loaded 2-core machine starts a Bun process slowly). */
async function waitReady(url: string): Promise<void> {
  const deadline = performance.now() + 90_000;
  while (performance.now() < deadline) {
    try {
      if ((await fetch(url)).status < 500) return;
    } catch {}
    await Bun.sleep(200);
  }
  throw new Error(`${url} did not answer`);
}

const pct = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]! : 0);
const running = async (slug: string) =>
  (await sql`select count(*)::int as n from workflow_runs where tenant_id = ${tenant.id} and workflow_slug = ${slug} and status = 'running'`)[0]!.n as number;

let summary = "";
try {
  start("api", { PORT: String(apiPort) });
  await waitReady(`${api}/health`);
  const post = async (path: string, body: unknown) => {
    const r = await fetch(`${api}${path}`, { method: "POST", headers, body: JSON.stringify(body) });
    if (r.status >= 300) throw new Error(`${path}: ${r.status} ${await r.text()}`);
  };
  await post("/v1/templates", { slug: "bench-a", name: "A", channel: "sms", content: "Hi {{ name }}" });
  await post("/v1/templates", { slug: "bench-digest", name: "D", channel: "sms", content: "{{ digest.count }} new: {% for e in digest.events %}{{ e.n }} {% endfor %}" });
  await post("/v1/workflows", {
    slug: "plain",
    name: "Plain",
    steps: [{ type: "send", channel: "sms", template: "bench-a" }, { type: "delay", duration: "1m" }, { type: "send", channel: "sms", template: "bench-a" }],
  });
  await post("/v1/workflows", {
    slug: "digest",
    name: "Digest",
    steps: [{ type: "digest", window: windowText, ...(maxEvents ? { max_events: Math.min(1000, Math.max(2, maxEvents)) } : {}) }, { type: "send", channel: "sms", template: "bench-digest" }],
  });
  start("workflow-run");
  start("channel-sender");
  await Bun.sleep(1500);

  console.log(`== plain: ${plainCount} triggers of send / delay 1m / send, bulk calls of ${per}, closed loop, ${concurrency} connections`);
  let seq = 0;
  const cpuPlain0 = await cpuOf();
  const plain = await closedLoop(
    {
      url: `${api}/v1/workflows/plain/trigger/bulk`,
      headers,
      body: () => JSON.stringify({ events: Array.from({ length: per }, () => ({ to: `+55119${String(10000000 + seq++)}`, data: { name: "Ana" } })) }),
    },
    { concurrency, seconds: 600, maxRequests: Math.ceil(plainCount / per) },
  );
  const plainRate = (plain.ok * per) / Math.max(1e-9, plain.seconds);
  console.log(`plain triggers: ${plain.ok * per} accepted at ${plainRate.toFixed(0)}/s (calls: ${latencySummary(plain)})`);
  await waitUntil(async () => (await running("plain")) === 0, 300_000);
  const cpuPlain1 = await cpuOf();
  console.log(`plain CPU ms per run (trigger to completion): ${cpuPer(cpuPlain0, cpuPlain1, plain.ok * per)}`);

  console.log(`== digest: ${total} triggers for ${recipients} recipients (one bulk call of ${per} each), window ${windowText} at TIME_SCALE ${TIME_SCALE}, max_events ${maxEvents || "none"}`);
  let r = 0;
  const cpuDg0 = await cpuOf();
  const dg = await closedLoop(
    {
      url: `${api}/v1/workflows/digest/trigger/bulk`,
      headers,
      body: () => {
        const k = r++;
        return JSON.stringify({ events: Array.from({ length: per }, (_, j) => ({ to: `+55118${String(10000000 + k)}`, data: { n: k * per + j } })) });
      },
    },
    { concurrency, seconds: 900, maxRequests: recipients },
  );
  const dgRate = (dg.ok * per) / Math.max(1e-9, dg.seconds);
  console.log(`digest triggers: ${dg.ok * per} accepted at ${dgRate.toFixed(0)}/s (calls: ${latencySummary(dg)})`);
  await waitUntil(async () => (await running("digest")) === 0, 600_000);
  const cpuDg1 = await cpuOf();
  console.log(`digest CPU ms per trigger (trigger to completion): ${cpuPer(cpuDg0, cpuDg1, dg.ok * per)}`);

  const runs = await sql<{ id: string; status: string; role: string | null }[]>`
    select id, status, step_results->0->>'status' as role from workflow_runs where tenant_id = ${tenant.id} and workflow_slug = 'digest'`;
  const [membership] = await sql<{ members: number; distinct_runs: number }[]>`
    select count(*)::int as members, count(distinct m.run_id)::int as distinct_runs
    from workflow_digest_members m join workflow_digests d on d.id = m.digest_id where d.tenant_id = ${tenant.id}`;
  const digests = await sql<{ leader: string; events: number; notes: number; lateness_ms: number | null; since_trigger_ms: number | null; filled: boolean }[]>`
    select d.leader_run_id as leader, d.event_count as events, count(n.id)::int as notes,
      (extract(epoch from (min(n.created_at) - (r.step_results->0->>'window_ended_at')::timestamptz)) * 1000)::float8 as lateness_ms,
      (extract(epoch from (min(n.created_at) - (select max(mr.started_at) from workflow_digest_members m join workflow_runs mr on mr.id = m.run_id where m.digest_id = d.id))) * 1000)::float8 as since_trigger_ms,
      d.max_events is not null and d.event_count >= d.max_events as filled
    from workflow_digests d join workflow_runs r on r.id = d.leader_run_id
      left join notifications n on n.tenant_id = d.tenant_id and n.idempotency_key = 'wfrun:' || d.leader_run_id || ':step:1'
    where d.tenant_id = ${tenant.id}
    group by d.id, d.leader_run_id, d.event_count, r.id`;
  const sent = digests.filter((d) => d.notes > 0).length;
  const duplicate = membership!.members - membership!.distinct_runs + digests.reduce((n, d) => n + Math.max(0, d.notes - 1), 0);
  const missing = runs.length - membership!.distinct_runs + runs.filter((r) => r.status !== "completed").length + (total - runs.length);
  const sizes = new Map<number, number>();
  for (const d of digests) sizes.set(d.events, (sizes.get(d.events) ?? 0) + 1);
  const late = digests.map((d) => Number(d.lateness_ms)).filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  console.log(`runs ${runs.length}: leaders ${runs.filter((r) => r.role === "completed").length}, merged ${runs.filter((r) => r.role === "merged").length}, not completed ${runs.filter((r) => r.status !== "completed").length}`);
  console.log(`digests ${digests.length} (sent ${sent}); events per digest: ${[...sizes.entries()].sort((a, b) => b[1] - a[1]).slice(0, 8).map(([e, n]) => `${n}x${e}`).join(", ")}`);
  const e2e = digests.map((d) => Number(d.since_trigger_ms)).filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  console.log(`closed by max_events ${digests.filter((d) => d.filled).length}, by the window's end ${digests.filter((d) => !d.filled).length}`);
  console.log(`send minus last event's trigger p50 ${pct(e2e, 0.5).toFixed(0)} ms p99 ${pct(e2e, 0.99).toFixed(0)} ms max ${(e2e[e2e.length - 1] ?? 0).toFixed(0)} ms`);
  console.log(`close lateness p50 ${pct(late, 0.5).toFixed(0)} ms p99 ${pct(late, 0.99).toFixed(0)} ms max ${(late[late.length - 1] ?? 0).toFixed(0)} ms`);
  const unfinished = await sql`select id, status, step_results, step_state from workflow_runs
    where tenant_id = ${tenant.id} and workflow_slug = 'digest' and status <> 'completed' limit 5`;
  for (const u of unfinished) console.log(`not completed: ${JSON.stringify(u)}`);
  if (process.env.BENCH_DEBUG) {
    const split = await sql`
      select d.recipient, d.event_count, d.opened_at, d.closes_at, d.closed_at, r.started_at as leader_started, r.rev,
        (select min(joined_at) from workflow_digest_members m where m.digest_id = d.id) as first_join,
        (select max(joined_at) from workflow_digest_members m where m.digest_id = d.id) as last_join,
        (select min(mr.started_at) from workflow_digest_members m join workflow_runs mr on mr.id = m.run_id where m.digest_id = d.id) as min_started
      from workflow_digests d join workflow_runs r on r.id = d.leader_run_id
      where d.tenant_id = ${tenant.id} and d.recipient in (select recipient from workflow_digests where tenant_id = ${tenant.id} group by recipient having count(*) > 1)
      order by d.recipient, d.opened_at limit 12`;
    for (const x of split) console.log(JSON.stringify(x));
  }
  summary = `digest: ${total} triggers, ${sent} digests, ${duplicate} duplicate, ${missing} missing, ${dgRate.toFixed(0)} triggers/s (${(dgRate / Math.max(1, plainRate)).toFixed(2)} of plain), close lateness p99 ${pct(late, 0.99).toFixed(0)} ms`;
} finally {
  for (const c of children) c.kill("SIGTERM");
  await Promise.all(children.map((c) => Promise.race([c.exited, Bun.sleep(5000)])));
  for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
  await removeBenchData(sql, redis, tenant.id, prefix);
  await sql.end();
  redis.disconnect();
  await getRuntime().close();
}
console.log(`\n${summary}`);
process.exit(summary ? 0 : 1);
