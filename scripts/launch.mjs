#!/usr/bin/env node
// The quick-start launcher, run by `npm start` / `npm test` with plain Node: makes sure Redis
// and PostgreSQL answer (installing and starting Debian's packages when nothing does), creates
// and migrates the database, builds the browser code (web/), then hands over to Bun; `test` also
// installs Debian's chromium for the browser tests when it is missing. Usage: node scripts/launch.mjs start|test|migrate|bench <script>|run <script>
import { spawn, spawnSync, execSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { withServiceEnv } from "./service-env.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const bun = join(root, "node_modules", ".bin", "bun");
const [mode = "start", ...rest] = process.argv.slice(2);
const log = (msg) => console.log(`[launch] ${msg}`);
const CHROMIUM = "/usr/bin/chromium"; // test/support/browser.ts launches the same binary

function probe(host, port, timeoutMs = 700) {
  return new Promise((resolve) => {
    const s = net.connect({ host, port });
    const done = (ok) => { s.destroy(); resolve(ok); };
    s.setTimeout(timeoutMs, () => done(false));
    s.once("connect", () => done(true));
    s.once("error", () => done(false));
  });
}

async function waitFor(host, port, what, seconds = 60) {
  for (let i = 0; i < seconds * 4; i++) {
    if (await probe(host, port)) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${what} did not start answering on ${host}:${port}`);
}

const has = (cmd) => spawnSync("sh", ["-c", `command -v ${cmd}`]).status === 0;
const isLocal = (h) => ["127.0.0.1", "localhost", "::1", "[::1]"].includes(h);
let aptUpdated = false;
function aptInstall(pkgs) {
  const sudo = process.getuid && process.getuid() !== 0 && has("sudo") ? "sudo " : "";
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  if (!aptUpdated) {
    log("apt-get update");
    execSync(`${sudo}apt-get update -qq`, { stdio: "inherit", env });
    aptUpdated = true;
  }
  log(`apt-get install ${pkgs.join(" ")}`);
  execSync(`${sudo}apt-get install -y -qq ${pkgs.join(" ")}`, { stdio: "inherit", env });
}

async function ensureRedis(url) {
  const cluster = /^rediss?\+cluster:\/\/(?:[^@/]*@)?([^/?#]+)/i.exec(url);
  if (cluster) {
    // a Redis Cluster is never started here (docs/operations.md): one of its nodes must answer
    const nodes = cluster[1].split(",").map((n) => { const i = n.lastIndexOf(":"); return { host: n.slice(0, i) || n, port: Number(n.slice(i + 1)) || 6379 }; });
    for (const n of nodes) if (await probe(n.host.replace(/^\[|\]$/g, ""), n.port)) return;
    throw new Error(`no node of the Redis Cluster answers (${nodes.map((n) => `${n.host}:${n.port}`).join(", ")})`);
  }
  const u = new URL(url);
  const host = u.hostname || "127.0.0.1";
  const port = Number(u.port || 6379);
  if (await probe(host, port)) return;
  if (!isLocal(host)) throw new Error(`Redis at ${host}:${port} does not answer`);
  if (!has("redis-server")) {
    aptInstall(["redis-server"]);
    // the package may have started its own server already
    if (await waitFor(host, port, "Redis", 3).then(() => true, () => false)) return;
  }
  const dir = join(root, ".nms", "redis");
  mkdirSync(dir, { recursive: true });
  log(`starting redis-server on ${port} (data in ${dir})`);
  execSync(`redis-server --daemonize yes --bind 127.0.0.1 --port ${port} --dir ${dir} --appendonly yes --logfile ${join(dir, "redis.log")}`, { stdio: "inherit" });
  await waitFor(host, port, "Redis");
}

function pgClusters() {
  if (!existsSync("/etc/postgresql")) return [];
  return readdirSync("/etc/postgresql").flatMap((v) =>
    existsSync(`/etc/postgresql/${v}/main`) ? [{ version: v, dir: `/etc/postgresql/${v}/main` }] : [],
  );
}

async function ensurePostgres(url) {
  const u = new URL(url);
  const host = u.hostname || "127.0.0.1";
  const port = Number(u.port || 5432);
  if (await probe(host, port)) return;
  if (!isLocal(host)) throw new Error(`PostgreSQL at ${host}:${port} does not answer`);
  if (pgClusters().length === 0) aptInstall(["postgresql"]);
  const cluster = pgClusters()[0];
  if (!cluster) throw new Error("postgresql is installed but has no cluster in /etc/postgresql");
  // local development trusts loopback connections as the quick start promises (user postgres, no password)
  const hba = join(cluster.dir, "pg_hba.conf");
  const text = readFileSync(hba, "utf8");
  if (!text.includes("# nms quick start")) {
    writeFileSync(hba, `# nms quick start: trust loopback\nhost all all 127.0.0.1/32 trust\nhost all all ::1/128 trust\n${text}`);
  }
  const ctl = (action) =>
    spawnSync("sh", ["-c", `pg_ctlcluster --skip-systemctl-redirect ${cluster.version} main ${action} || pg_ctlcluster ${cluster.version} main ${action}`], { stdio: "inherit" }).status === 0;
  if (await probe(host, port)) {
    // the package started the cluster itself: reload so the loopback trust lines apply
    log(`reloading PostgreSQL ${cluster.version}`);
    ctl("reload");
  } else {
    log(`starting PostgreSQL ${cluster.version}`);
    if (!ctl("start")) log("pg_ctlcluster start failed; waiting for the port anyway");
  }
  await waitFor(host, port, "PostgreSQL");
}

// ---- signals: the launcher stands in front of its Bun child, so it passes SIGINT/SIGTERM on and
// exits with the child's status. `npm start` runs us through `sh -c`, and dash neither execs nor
// forwards: npm's SIGTERM kills that shell and orphans us, so under npm a lost parent means stop.
let current = null; // the Bun child running now
let stopping = false;
function stop(sig) {
  if (!current || current.exitCode !== null || current.signalCode !== null) process.exit(128 + os.constants.signals[sig]);
  current.kill(sig);
  if (stopping) return;
  stopping = true;
  // the service gives itself 30 s to finish in-flight work (scripts/start.ts); past that, force it
  setTimeout(() => current?.kill("SIGKILL"), 35_000).unref();
}
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => stop(sig));
if (process.env.npm_lifecycle_event) {
  const parent = process.ppid;
  const watch = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(watch);
    stop("SIGTERM");
  }, 250);
  watch.unref();
}

function exitStatus(code, signal) {
  return code ?? 128 + (os.constants.signals[signal] ?? 0);
}

function run(cmd, args, env) {
  return new Promise((resolve) => {
    const child = (current = spawn(cmd, args, { cwd: root, env, stdio: "inherit" }));
    child.on("exit", (code, signal) => resolve(exitStatus(code, signal)));
  });
}

function runCapture(cmd, args, env) {
  return new Promise((resolve) => {
    const child = (current = spawn(cmd, args, { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] }));
    let tail = "";
    const keep = (chunk) => { tail = (tail + chunk.toString()).slice(-20000); };
    child.stdout.on("data", (c) => { process.stdout.write(c); keep(c); });
    child.stderr.on("data", (c) => { process.stderr.write(c); keep(c); });
    child.on("exit", (code, signal) => resolve({ code: exitStatus(code, signal), tail }));
  });
}

async function main() {
  if (!existsSync(bun)) throw new Error("Bun is missing: run `npm install` first");
  const env = { ...process.env };
  if (mode === "test") {
    env.NODE_ENV = "test";
    env.DATABASE_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/nms_test";
  }
  if (mode === "bench") {
    // benchmarks create millions of rows: keep them out of the development database
    env.DATABASE_URL = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/nms_bench";
  }
  env.DATABASE_URL ??= "postgres://postgres@127.0.0.1:5432/nms";
  env.REDIS_URL ??= "redis://127.0.0.1:6379";
  await ensureRedis(env.REDIS_URL);
  await ensurePostgres(env.DATABASE_URL);
  // the browser tests (test/e2e) drive Debian's chromium through playwright-core
  if (mode === "test" && !existsSync(CHROMIUM)) aptInstall(["chromium"]);
  const migrated = await run(bun, ["scripts/migrate.ts"], env);
  if (migrated !== 0) process.exit(migrated);
  if (mode === "migrate") return;
  if (mode === "start" || mode === "test") {
    // the API serves the built files (.nms/web); a no-op when web/ did not change
    const built = await run(bun, ["scripts/build-web.ts"], env);
    if (built !== 0) process.exit(built);
  }
  if (mode === "start") process.exit(await run(bun, ["scripts/start.ts", ...rest], withServiceEnv(env)));
  if (mode === "bench" || mode === "run") process.exit(await run(bun, rest, env));
  if (mode === "test") {
    // --timeout: Bun ignores bunfig.toml's test timeout, and a loaded CI machine needs more than its 5 s default
    const { code, tail } = await runCapture(bun, ["test", "--timeout", "60000", ...rest], env);
    const clean = tail.replace(/\x1b\[[0-9;]*m/g, "");
    const passed = [...clean.matchAll(/^\s*(\d+) pass\s*$/gm)].pop()?.[1];
    const failed = [...clean.matchAll(/^\s*(\d+) fail\s*$/gm)].pop()?.[1];
    console.log(`tests: ${passed ?? 0} passed, ${failed ?? (code === 0 ? 0 : 1)} failed`);
    process.exit(code);
  }
  throw new Error(`unknown mode ${mode}`);
}

main().catch((err) => {
  console.error(`[launch] ${err.message}`);
  process.exit(1);
});
