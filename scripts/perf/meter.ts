// CPU meters and process plumbing for the cost, idle, capacity and takeover benches: CPU time (never
// wall time) of a process tree, of a database's PostgreSQL backends and of a private redis-server.
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import postgres from "postgres";
import { withServiceEnv } from "../service-env.mjs";

export const ROOT = join(import.meta.dir, "..", "..");
export const BUN = join(ROOT, "node_modules", ".bin", "bun");
const TCK = 100; // CLK_TCK on Linux
export const PG_SERVER = (process.env.BENCH_PG_SERVER ?? "postgres://postgres@127.0.0.1:5432").replace(/\/+$/, "");

interface ProcStat {
  ppid: number;
  sid: number;
  cpuMs: number;
}
function statOf(pid: number): ProcStat | null {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, "utf8");
    const f = s.slice(s.lastIndexOf(")") + 2).split(" ");
    // after ")": state(0) ppid(1) pgrp(2) session(3) ... utime(11) stime(12) cutime(13) cstime(14)
    return { ppid: Number(f[1]), sid: Number(f[3]), cpuMs: ((Number(f[11]) + Number(f[12])) * 1000) / TCK };
  } catch {
    return null;
  }
}

/** CPU ms of each live process whose session or ancestry includes one of `roots` (children of a setsid'd start included). */
export function treeCpuMs(roots: number[]): number {
  const all = new Map<number, ProcStat>();
  for (const n of readdirSync("/proc")) {
    if (!/^\d+$/.test(n)) continue;
    const st = statOf(Number(n));
    if (st) all.set(Number(n), st);
  }
  const inTree = (pid: number): boolean => {
    for (let p = pid, i = 0; p > 1 && i < 64; i++) {
      if (roots.includes(p)) return true;
      const st = all.get(p);
      if (!st) return false;
      if (roots.includes(st.sid)) return true;
      p = st.ppid;
    }
    return false;
  };
  let sum = 0;
  for (const [pid, st] of all) if (inTree(pid)) sum += st.cpuMs;
  return sum;
}

/** A tally of CPU that survives processes exiting: call sample() often; a gone pid keeps its last value. */
export class CpuTally {
  private last = new Map<number, number>();
  private base = new Map<number, number>();
  mark(pids: number[]) {
    for (const p of pids) {
      const st = statOf(p);
      if (st) {
        this.base.set(p, st.cpuMs);
        this.last.set(p, st.cpuMs);
      }
    }
  }
  sample(pids: number[]) {
    for (const p of pids) {
      const st = statOf(p);
      if (!st) continue;
      if (!this.base.has(p)) this.base.set(p, 0); // a new process counts from its start
      this.last.set(p, st.cpuMs);
    }
  }
  total(): number {
    let s = 0;
    for (const [p, v] of this.last) s += v - (this.base.get(p) ?? 0);
    return s;
  }
}

/** Backend pids connected to a database. */
export async function pgBackends(admin: postgres.Sql, db: string): Promise<number[]> {
  const rows = await admin<{ pid: number }[]>`select pid from pg_stat_activity where datname = ${db} and pid <> pg_backend_pid()`;
  return rows.map((r) => r.pid);
}

export function loadAvg(): string {
  return readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
}

export function sleep(ms: number) {
  return new Promise((r) => setTimeout(r, ms));
}

export interface RedisServer {
  pid: number;
  port: number;
  url: string;
  stop(): Promise<void>;
}
/** A private redis-server (no persistence): its CPU is the system's alone. */
export async function startRedis(port: number): Promise<RedisServer> {
  const child = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: "ignore" });
  const url = `redis://127.0.0.1:${port}`;
  for (let i = 0; i < 40; i++) {
    const ok = await Bun.connect({ hostname: "127.0.0.1", port, socket: { data() {} } }).then(
      (s) => (s.end(), true),
      () => false,
    );
    if (ok) break;
    await sleep(100);
  }
  return { pid: child.pid!, port, url, stop: () => stopChild(child) };
}

export async function stopChild(child: ChildProcess, signal: NodeJS.Signals = "SIGTERM", graceMs = 15_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const done = new Promise<void>((r) => child.once("exit", () => r()));
  try {
    child.kill(signal);
  } catch {}
  const t = setTimeout(() => {
    try {
      child.kill("SIGKILL");
    } catch {}
  }, graceMs);
  await done;
  clearTimeout(t);
}

export async function recreateDb(db: string): Promise<void> {
  const admin = postgres(`${PG_SERVER}/postgres`, { max: 1, onnotice: () => {} });
  await admin.unsafe(`drop database if exists ${db} with (force)`);
  await admin.unsafe(`create database ${db}`);
  await admin.end();
}

export const BENCH_ENV = {
  ADMIN_TOKEN: "bench-admin-token-0123456789abcdef",
  ENCRYPTION_KEY: "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=",
  RATE_LIMIT_PER_MINUTE: "100000000",
  LOG_LEVEL: "warn",
  NODE_ENV: "development",
};

export interface Service {
  child: ChildProcess;
  pid: number;
  url: string;
  stop(): Promise<void>;
  log: string[];
}

const builtFor = new Set<string>();
/** Builds a checkout's actor binary (scripts/build-actors.ts) once per bench run, so its restarts start from it. */
function ensureActorBinary(root: string) {
  if (builtFor.has(root)) return;
  const t = performance.now();
  const r = Bun.spawnSync([BUN, "scripts/build-actors.ts"], { cwd: root, stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`build:actors failed in ${root}: ${r.stderr.toString().slice(-800)}`);
  builtFor.add(root);
  console.log(`actor binary built for ${root} in ${((performance.now() - t) / 1000).toFixed(1)} s`);
}

/** Migrates `db` and starts the service (the one-process start, or `--only kind` as its Procfile line does); resolves at its ready line. */
export async function startService(opts: {
  db: string;
  port: number;
  redisUrl: string;
  only?: string;
  env?: Record<string, string>;
  migrate?: boolean;
  /** another checkout to run (a baseline commit exported with git archive, node_modules linked) */
  root?: string;
}): Promise<Service> {
  const root = opts.root ?? ROOT;
  const env = {
    ...withServiceEnv(process.env), // as npm start and the Procfile start it
    ...BENCH_ENV,
    DATABASE_URL: `${PG_SERVER}/${opts.db}`,
    REDIS_URL: opts.redisUrl,
    PORT: String(opts.port),
    APP_URL: `http://127.0.0.1:${opts.port}`,
    PUBLIC_URL: `http://127.0.0.1:${opts.port}`,
    ...opts.env,
  };
  if (opts.migrate !== false) {
    const m = Bun.spawnSync([BUN, "scripts/migrate.ts"], { cwd: root, env, stdout: "pipe", stderr: "pipe" });
    if (m.exitCode !== 0) throw new Error(`migrate failed: ${m.stderr.toString().slice(-500)}`);
  }
  // an actor kind as its Procfile line starts it (scripts/run-kind.sh: the compiled binary when it is
  // current, built here once per checkout); the api and the one-process start from source, as npm start
  const runKind = opts.only && opts.only !== "api" && existsSync(join(root, "scripts", "run-kind.sh"));
  if (runKind) ensureActorBinary(root);
  const [cmd, args] = runKind ? ["sh", ["scripts/run-kind.sh", opts.only!]] : [BUN, ["scripts/start.ts", ...(opts.only ? ["--only", opts.only] : [])]];
  const child = spawn(cmd, args, { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] });
  const log: string[] = [];
  const ready = new Promise<void>((resolve, reject) => {
    const onLine = (b: Buffer) => {
      const s = b.toString();
      log.push(s);
      if (log.length > 200) log.shift();
      if (s.includes("ready: nms")) resolve();
    };
    child.stdout!.on("data", onLine);
    child.stderr!.on("data", onLine);
    child.once("exit", (code) => reject(new Error(`service exited ${code}: ${log.join("").slice(-800)}`)));
  });
  const t = setTimeout(() => child.kill("SIGKILL"), 90_000);
  await ready;
  clearTimeout(t);
  return { child, pid: child.pid!, url: `http://127.0.0.1:${opts.port}`, stop: () => stopChild(child), log };
}

/** A tenant and a sandbox secret key on a running service (sandbox channels deliver through the built-in provider). */
export async function bootstrapKey(base: string): Promise<string> {
  const post = async (path: string, key: string, body: unknown) => {
    const res = await fetch(base + path, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify(body) });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`POST ${path}: ${res.status} ${text.slice(0, 300)}`);
    return JSON.parse(text);
  };
  const tenant = await post("/api/internal/tenants", BENCH_ENV.ADMIN_TOKEN, { name: `bench-${Date.now().toString(36)}` });
  const live = tenant.data.api_key;
  const liveKey = typeof live === "string" ? live : (live.key ?? live.raw_key);
  const created = await post("/v1/api-keys", liveKey, { key_type: "secret", label: "bench", environment: "sandbox" });
  return created.data.raw_key as string;
}
