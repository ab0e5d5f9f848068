// `npm start` stops on SIGTERM/SIGINT (issue 14 item 8): scripts/launch.mjs passes the signal to
// its Bun child and exits with it, also when npm's `sh -c` dies first and orphans the launcher.
import { afterAll, describe, expect, test } from "bun:test";
import { spawn, type ChildProcess } from "node:child_process";
import { readlinkSync } from "node:fs";
import { join } from "node:path";
import { portFree, processAlive as alive } from "../support/probes";
import { connect, deletePrefix, randomPrefix, waitFor } from "../support/runtime-redis";

const root = join(import.meta.dir, "..", "..");
const prefixes: string[] = [];

afterAll(async () => {
  const redis = connect();
  for (const p of prefixes) await deletePrefix(redis, p);
  await redis.quit();
});

/** the service listens on every interface */
const portIsFree = (port: number) => portFree(port, "0.0.0.0");

async function freePort(): Promise<number> {
  for (;;) {
    const port = 20000 + Math.floor(Math.random() * 12000);
    if (await portIsFree(port)) return port;
  }
}

/** The launcher's environment: this run's test database, a private Redis prefix, no npm variables of our own run. */
function launchEnv(port: number): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("npm_")) env[k] = v;
  const prefix = randomPrefix("launch");
  prefixes.push(prefix);
  return { ...env, PORT: String(port), REDIS_PREFIX: prefix, DATABASE_URL: process.env.DATABASE_URL!, LOG_LEVEL: "warn" };
}

/** Resolves with the service's pid (printed on its ready line) once it is ready. */
function whenReady(child: ChildProcess): Promise<number> {
  let output = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ready line within 60 s:\n${output}`)), 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const m = /^ready: .* pid (\d+)$/m.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", (c: Buffer) => (output += c.toString()));
    child.once("exit", (code) => reject(new Error(`exited ${code} before ready:\n${output}`)));
  });
}

function exitOf(child: ChildProcess): Promise<{ code: number | null; signal: string | null }> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
}

/** Whether the process runs in this checkout (the launcher and its service do): never signal a reused pid. */
function inRoot(pid: number): boolean {
  try {
    return readlinkSync(`/proc/${pid}/cwd`) === root;
  } catch {
    return false;
  }
}

/** After a failed test: SIGKILL whatever of the chain is left (the service is the launcher's child) and wait until it is gone. */
async function killLeft(child: ChildProcess, pids: number[]) {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = exitOf(child);
    child.kill("SIGKILL");
    await exited;
  }
  for (const pid of pids) {
    if (!alive(pid) || !inRoot(pid)) continue; // gone, or its pid already reused by another process
    process.kill(pid, "SIGKILL");
    await waitFor(() => !alive(pid), 5_000, 50);
  }
}

async function expectStopped(servicePid: number, port: number) {
  // bounded: the service's own shutdown is quick here (nothing in flight); 15 s is far above it
  expect(await waitFor(() => !alive(servicePid), 15_000, 100)).toBe(true);
  expect(await waitFor(() => portIsFree(port), 5_000, 100)).toBe(true);
}

describe("scripts/launch.mjs start and signals", () => {
  test("SIGTERM to the launcher stops the service, frees the port, and the launcher exits 0 with it", async () => {
    const port = await freePort();
    const launcher = spawn("node", [join(root, "scripts/launch.mjs"), "start"], { cwd: root, env: launchEnv(port), stdio: ["ignore", "pipe", "pipe"] });
    const left: number[] = [];
    try {
      const servicePid = await whenReady(launcher);
      left.push(servicePid);
      expect(servicePid).not.toBe(launcher.pid);
      expect(await portIsFree(port)).toBe(false);
      const exited = exitOf(launcher);
      launcher.kill("SIGTERM");
      await expectStopped(servicePid, port);
      expect(await exited).toEqual({ code: 0, signal: null });
    } finally {
      await killLeft(launcher, left);
    }
  });

  test("SIGINT (Ctrl-C) to the launcher alone does the same", async () => {
    const port = await freePort();
    const launcher = spawn("node", [join(root, "scripts/launch.mjs"), "start"], { cwd: root, env: launchEnv(port), stdio: ["ignore", "pipe", "pipe"] });
    const left: number[] = [];
    try {
      const servicePid = await whenReady(launcher);
      left.push(servicePid);
      const exited = exitOf(launcher);
      launcher.kill("SIGINT");
      await expectStopped(servicePid, port);
      expect((await exited).code).toBe(0);
    } finally {
      await killLeft(launcher, left);
    }
  });

  test("SIGTERM to `npm start` (npm -> sh -> node -> bun) stops the service and leaves no process", async () => {
    const port = await freePort();
    const npm = spawn("npm", ["start", "--silent"], { cwd: root, env: launchEnv(port), stdio: ["ignore", "pipe", "pipe"] });
    const left: number[] = [];
    try {
      const servicePid = await whenReady(npm);
      left.push(servicePid);
      const launcherPid = Number((await Bun.file(`/proc/${servicePid}/stat`).text()).split(" ")[3]);
      left.push(launcherPid);
      expect(alive(launcherPid)).toBe(true);
      npm.kill("SIGTERM");
      await expectStopped(servicePid, port);
      expect(await waitFor(() => !alive(launcherPid), 5_000, 100)).toBe(true);
      await exitOf(npm);
    } finally {
      await killLeft(npm, left);
    }
  });
});
