// Overload benchmark (issue: delivery must never stall): the one-process start (API + every actor)
// from a fresh database, an open loop past the drain rate in phases, then counts what is not terminal.
//
// Each run: a new database nms_overload_<random> (created, migrated, dropped afterwards), `bun
// scripts/start.ts` with TIME_SCALE 0.001 and LOG_LEVEL warn, a tenant and a sandbox key made over
// HTTP, then open-loop POST /v1/notifications (sms, sandbox provider) at each phase's rate. After the
// load it waits until every notification is terminal or --grace seconds pass (stuck = not terminal).
//
// Usage: bun scripts/bench-overload.ts [--runs 3] [--phases 1000:20,2000:20,3000:20] [--grace 60]
//        [--sustained 3000:20] [--sustained-runs 1] [--keep 1 (keep the databases, to look at them)] [--profile <dir>]
// Prints one line per run and, last, `overload: <N> accepted, <N> delivered, <N> stuck, drain p99 <N> ms,
// backlog drained in <N> s` (totals over the phased runs; drain p99 and drain time are the worst run's).
// Loopback only; bounded in time and count; drops its databases and deletes its Redis keys.
import { spawn, type Subprocess } from "bun";
import { join } from "node:path";
import postgres from "postgres";
import Redis from "ioredis";
import { openLoop, waitReady, deletePrefix, forEachLine, type LoadResult } from "./bench-load";

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ""), process.argv[i + 1] ?? "");
const root = join(import.meta.dir, "..");
const bun = process.execPath;
const runs = Number(args.get("runs") ?? 3);
const grace = Number(args.get("grace") ?? 60);
const parsePhases = (s: string) => s.split(",").filter(Boolean).map((p) => ({ rate: Number(p.split(":")[0]), seconds: Number(p.split(":")[1] ?? 20) }));
const phases = parsePhases(args.get("phases") ?? "1000:20,2000:20,3000:20");
const sustained = parsePhases(args.get("sustained") ?? "3000:20");
const sustainedRuns = Number(args.get("sustained-runs") ?? 1);
const baseUrl = process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/nms_bench";
const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const TERMINAL = ["sent", "delivered", "failed", "bounced", "suppressed"];

function dbUrl(name: string): string {
  const u = new URL(baseUrl);
  u.pathname = `/${name}`;
  return u.toString();
}

interface RunResult {
  accepted: number;
  delivered: number;
  terminal: number;
  stuck: number;
  drainP50: number;
  drainP99: number;
  drainedInS: number | null;
  backlogAtEnd: number;
  drainRate: number;
  phases: { rate: number; accepted: number; acceptP99: number; p50: number; p99: number }[];
  logLines: Record<string, number>;
}

async function oneRun(label: string, load: { rate: number; seconds: number }[]): Promise<RunResult> {
  const name = `nms_overload_${Math.random().toString(36).slice(2, 8)}`;
  const url = dbUrl(name);
  const prefix = `benchovl${Math.random().toString(36).slice(2, 8)}`;
  const port = 20000 + Math.floor(Math.random() * 12000);
  const env = { ...process.env, DATABASE_URL: url, REDIS_PREFIX: prefix, PORT: String(port), TIME_SCALE: "0.001", LOG_LEVEL: "warn", RATE_LIMIT_PER_MINUTE: "100000000" };
  const migrated = Bun.spawnSync({ cmd: [bun, "scripts/migrate.ts"], cwd: root, env, stdout: "ignore", stderr: "inherit" });
  if (migrated.exitCode !== 0) throw new Error("migration failed");
  const sql = postgres(url, { max: 2, onnotice: () => {} });
  const redis = new Redis(redisUrl);
  let child: Subprocess<"ignore", "pipe", "pipe"> | null = null;
  const logLines: Record<string, number> = {};
  const collect = (stream: ReadableStream<Uint8Array>) =>
    forEachLine(stream, (line) => {
      try {
        const j = JSON.parse(line);
        const k = `${j.level >= 50 ? "error" : j.level >= 40 ? "warn" : "info"}: ${j.msg}${j.err?.message ? ` (${String(j.err.message).slice(0, 60)})` : ""}`;
        logLines[k] = (logLines[k] ?? 0) + 1;
      } catch {}
    });
  try {
    // --profile <dir>: the service writes a CPU profile (markdown) there when it exits
    const profile = args.get("profile") ? ["--cpu-prof-md", `--cpu-prof-dir=${args.get("profile")}`] : [];
    child = spawn({ cmd: [bun, ...profile, "scripts/start.ts"], cwd: root, env, stdout: "pipe", stderr: "pipe" });
    void collect(child.stdout);
    void collect(child.stderr);
    await waitReady(`http://127.0.0.1:${port}/health`);
    const admin = (await import("../config")).config.adminToken;
    const t = await fetch(`http://127.0.0.1:${port}/api/internal/tenants`, {
      method: "POST",
      headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
      body: JSON.stringify({ name: `overload-${label}` }),
    }).then((r) => r.json() as any);
    const live = t.data.api_key.raw_key as string;
    const k = await fetch(`http://127.0.0.1:${port}/v1/api-keys`, {
      method: "POST",
      headers: { authorization: `Bearer ${live}`, "content-type": "application/json" },
      body: JSON.stringify({ key_type: "secret", label: "overload", environment: "sandbox" }),
    }).then((r) => r.json() as any);
    const key = k.data.raw_key as string;
    let seq = 0;
    const target = {
      url: `http://127.0.0.1:${port}/v1/notifications`,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: () => JSON.stringify({ channel: "sms", to: `+55119${String(10000000 + (seq++ % 89999999))}`, data: { content: "Your code is 123456" } }),
    };
    const phaseTimes: { rate: number; from: Date; to: Date; res: LoadResult }[] = [];
    for (const ph of load) {
      const from = new Date();
      const res = await openLoop(target, { rate: ph.rate, seconds: ph.seconds, maxInFlight: 4000 });
      phaseTimes.push({ rate: ph.rate, from, to: new Date(), res });
      process.stdout.write(`  [${label}] ${ph.rate}/s for ${ph.seconds}s: accepted ${res.ok}, accept p99 ${res.p99} ms, errors ${res.errors}\n`);
    }
    const loadEnd = performance.now();
    // While it waits, only the pending rows are counted (the partial pending index): a count over
    // every row, four times a second, cost the service a fifth of a core in the middle of its drain.
    const [{ total }] = (await sql`select count(*)::int as total from notifications`) as unknown as [{ total: number }];
    const pendingNow = async () => Number(((await sql`select count(*)::int as n from notifications where status = 'pending'`) as any)[0].n);
    const count = async (final = false) => {
      const pending = await pendingNow();
      if (!final) return { total, terminal: total - pending, delivered: 0 };
      const [r] = await sql`select count(*) filter (where status = 'delivered')::int as delivered from notifications`;
      return { total, terminal: total - pending, delivered: (r as { delivered: number }).delivered };
    };
    const atEnd = await count();
    let now = atEnd;
    let drainedInS: number | null = now.terminal === now.total ? 0 : null;
    let lastReport = performance.now();
    while (drainedInS === null && performance.now() - loadEnd < grace * 1000) {
      await Bun.sleep(500);
      now = await count();
      if (now.terminal === now.total) drainedInS = (performance.now() - loadEnd) / 1000;
      if (performance.now() - lastReport > 10_000) {
        lastReport = performance.now();
        process.stdout.write(`  [${label}] +${((performance.now() - loadEnd) / 1000).toFixed(0)} s: ${now.total - now.terminal} not terminal\n`);
      }
    }
    now = await count(true);
    const backlog = atEnd.total - atEnd.terminal;
    const drainSecs = drainedInS ?? (performance.now() - loadEnd) / 1000;
    const lat = async (from?: Date, to?: Date) => {
      const [r] = await sql`select
          percentile_cont(0.5) within group (order by extract(epoch from (coalesce(delivered_at, sent_at, failed_at, updated_at) - created_at)) * 1000) as p50,
          percentile_cont(0.99) within group (order by extract(epoch from (coalesce(delivered_at, sent_at, failed_at, updated_at) - created_at)) * 1000) as p99
        from notifications where status = any(${TERMINAL}) ${from ? sql`and created_at >= ${from} and created_at < ${to!}` : sql``}`;
      return { p50: Math.round(Number(r!.p50 ?? 0)), p99: Math.round(Number(r!.p99 ?? 0)) };
    };
    const all = await lat();
    const perPhase = [];
    for (const p of phaseTimes) {
      const l = await lat(p.from, p.to);
      perPhase.push({ rate: p.rate, accepted: p.res.ok, acceptP99: p.res.p99, p50: l.p50, p99: l.p99 });
    }
    return {
      accepted: now.total,
      delivered: now.delivered,
      terminal: now.terminal,
      stuck: now.total - now.terminal,
      drainP50: all.p50,
      drainP99: all.p99,
      drainedInS,
      backlogAtEnd: backlog,
      drainRate: backlog > 0 ? Math.round((backlog - (now.total - now.terminal)) / Math.max(0.001, drainSecs)) : 0,
      phases: perPhase,
      logLines,
    };
  } finally {
    if (child) {
      child.kill("SIGTERM");
      const exited = await Promise.race([child.exited.then(() => true), Bun.sleep(35_000).then(() => false)]);
      if (!exited) child.kill("SIGKILL");
    }
    await sql.end();
    await deletePrefix(redis, prefix);
    redis.disconnect();
    const admin = postgres(dbUrl("postgres"), { max: 1, onnotice: () => {} });
    if (args.has("keep")) console.log(`kept database ${name}`);
    else await admin.unsafe(`drop database if exists "${name}" with (force)`).catch((err) => console.error(`could not drop ${name}: ${err.message}`));
    await admin.end();
  }
}

function describe(label: string, r: RunResult) {
  const ph = r.phases.map((p) => `${p.rate}/s p50 ${p.p50} ms p99 ${p.p99} ms`).join("; ");
  console.log(
    `${label}: ${r.accepted} accepted, ${r.delivered} delivered, ${r.stuck} stuck; backlog at load end ${r.backlogAtEnd}, drained in ` +
      `${r.drainedInS === null ? `>${grace}` : r.drainedInS.toFixed(1)} s (${r.drainRate}/s); accept-to-final p50 ${r.drainP50} ms p99 ${r.drainP99} ms; ${ph}`,
  );
  const notable = Object.entries(r.logLines).filter(([k]) => !k.startsWith("info"));
  if (notable.length) console.log(`  log lines: ${notable.map(([k, v]) => `${v}x ${k}`).join("; ")}`);
}

const results: RunResult[] = [];
for (let i = 1; i <= runs; i++) {
  const r = await oneRun(`run ${i}`, phases);
  describe(`run ${i}`, r);
  results.push(r);
}
for (let i = 1; i <= sustainedRuns && sustained.length; i++) {
  const r = await oneRun(`sustained ${i}`, sustained);
  describe(`sustained ${sustained.map((p) => `${p.rate}/s x ${p.seconds}s`).join(",")} #${i}`, r);
}
const sum = (f: (r: RunResult) => number) => results.reduce((n, r) => n + f(r), 0);
const worstDrain = results.some((r) => r.drainedInS === null) ? `>${grace}` : Math.max(0, ...results.map((r) => r.drainedInS!)).toFixed(1);
console.log(
  `overload: ${sum((r) => r.accepted)} accepted, ${sum((r) => r.delivered)} delivered, ${sum((r) => r.stuck)} stuck, ` +
    `drain p99 ${Math.max(0, ...results.map((r) => r.drainP99))} ms, backlog drained in ${worstDrain} s`,
);
process.exit(0);
