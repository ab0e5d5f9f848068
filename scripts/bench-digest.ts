// Benchmark of the digest step (issue 21): real processes (`start.ts --only` api, workflow-run,
// channel-sender) at TIME_SCALE 0.001, sandbox provider, loopback only.
//
// 1. plain: --plain triggers of send / delay 1m / send (bench:workflows' workflow) through the API,
//    closed loop: the plain trigger acceptance rate, measured in the same run.
// 2. digest: --recipients x --per triggers of digest (--window, max_events --per) / send, closed loop,
//    each recipient's triggers in a burst (trigger i goes to recipient floor(i / per)): triggers
//    accepted per second, then, once every run ended: digests sent (leaders' notifications), events
//    per digest, duplicates (a run in two digests, or a leader with two notifications), missing (a run
//    in no digest, or not completed), and the close lateness of each digest: its notification's
//    creation minus its window's end (window_ended_at: the window's end, or the max_events close).
//
// Usage: bun scripts/bench-digest.ts [--recipients 1000] [--per 100] [--plain 10000] [--window 1m] [--concurrency 64]
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
const concurrency = Number(args.get("concurrency") ?? 64);
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
    steps: [{ type: "digest", window: windowText, max_events: Math.min(1000, Math.max(2, per)) }, { type: "send", channel: "sms", template: "bench-digest" }],
  });
  start("workflow-run");
  start("channel-sender");
  await Bun.sleep(1500);

  console.log(`== plain: ${plainCount} triggers of send / delay 1m / send, closed loop, ${concurrency} connections`);
  let seq = 0;
  const plain = await closedLoop(
    { url: `${api}/v1/workflows/plain/trigger`, headers, body: () => JSON.stringify({ to: `+55119${String(10000000 + seq++)}`, data: { name: "Ana" } }) },
    { concurrency, seconds: 600, maxRequests: plainCount },
  );
  console.log(`plain triggers: ${plain.ok} accepted at ${plain.rps.toFixed(0)}/s (${latencySummary(plain)})`);
  await waitUntil(async () => (await running("plain")) === 0, 300_000);

  console.log(`== digest: ${total} triggers for ${recipients} recipients (${per} each, in bursts), window ${windowText} at TIME_SCALE ${TIME_SCALE}, max_events ${per}`);
  let i = 0;
  const dg = await closedLoop(
    {
      url: `${api}/v1/workflows/digest/trigger`,
      headers,
      body: () => {
        const k = i++;
        return JSON.stringify({ to: `+55118${String(10000000 + Math.floor(k / per))}`, data: { n: k } });
      },
    },
    { concurrency, seconds: 900, maxRequests: total },
  );
  console.log(`digest triggers: ${dg.ok} accepted at ${dg.rps.toFixed(0)}/s (${latencySummary(dg)})`);
  await waitUntil(async () => (await running("digest")) === 0, 600_000);

  const runs = await sql<{ id: string; status: string; role: string | null }[]>`
    select id, status, step_results->0->>'status' as role from workflow_runs where tenant_id = ${tenant.id} and workflow_slug = 'digest'`;
  const [membership] = await sql<{ members: number; distinct_runs: number }[]>`
    select count(*)::int as members, count(distinct m.run_id)::int as distinct_runs
    from workflow_digest_members m join workflow_digests d on d.id = m.digest_id where d.tenant_id = ${tenant.id}`;
  const digests = await sql<{ leader: string; events: number; notes: number; lateness_ms: number | null }[]>`
    select d.leader_run_id as leader, d.event_count as events, count(n.id)::int as notes,
      (extract(epoch from (min(n.created_at) - (r.step_results->0->>'window_ended_at')::timestamptz)) * 1000)::float8 as lateness_ms
    from workflow_digests d join workflow_runs r on r.id = d.leader_run_id
      left join notifications n on n.tenant_id = d.tenant_id and n.idempotency_key = 'wfrun:' || d.leader_run_id || ':step:1'
    where d.tenant_id = ${tenant.id}
    group by d.leader_run_id, d.event_count, r.id`;
  const sent = digests.filter((d) => d.notes > 0).length;
  const duplicate = membership!.members - membership!.distinct_runs + digests.reduce((n, d) => n + Math.max(0, d.notes - 1), 0);
  const missing = runs.length - membership!.distinct_runs + runs.filter((r) => r.status !== "completed").length + (total - runs.length);
  const sizes = new Map<number, number>();
  for (const d of digests) sizes.set(d.events, (sizes.get(d.events) ?? 0) + 1);
  const late = digests.map((d) => Number(d.lateness_ms)).filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  console.log(`runs ${runs.length}: leaders ${runs.filter((r) => r.role === "completed").length}, merged ${runs.filter((r) => r.role === "merged").length}, not completed ${runs.filter((r) => r.status !== "completed").length}`);
  console.log(`digests ${digests.length} (sent ${sent}); events per digest: ${[...sizes.entries()].sort((a, b) => b[1] - a[1]).slice(0, 8).map(([e, n]) => `${n}x${e}`).join(", ")}`);
  console.log(`close lateness p50 ${pct(late, 0.5).toFixed(0)} ms p99 ${pct(late, 0.99).toFixed(0)} ms max ${(late[late.length - 1] ?? 0).toFixed(0)} ms`);
  summary = `digest: ${total} triggers, ${sent} digests, ${duplicate} duplicate, ${missing} missing, ${dg.rps.toFixed(0)} triggers/s (${(dg.rps / Math.max(1, plain.rps)).toFixed(2)} of plain), close lateness p99 ${pct(late, 0.99).toFixed(0)} ms`;
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
