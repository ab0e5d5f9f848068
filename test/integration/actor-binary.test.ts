// The compiled actor binary (scripts/build-actors.ts) as the Procfile starts it (scripts/run-kind.sh):
// a channel-sender from it delivers a notification (its Lua scripts, config and providers inside), and
// a source file newer than the binary makes run-kind.sh start the kind from source instead.
import { afterAll, describe, expect, test } from "bun:test";
import { spawn, type ChildProcess } from "node:child_process";
import { readlinkSync, statSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { config } from "../../config";
import { ACTOR_BINARY, buildActorBinary } from "../../scripts/build-actors";
import { call, createTenant } from "../support/fixtures";
import { PROCESS_START_MS, stopChild } from "../support/spawn-ready";
import { waitForStatus } from "./delivery-support";

const root = join(import.meta.dir, "..", "..");
const children: ChildProcess[] = [];
afterAll(async () => {
  // every process is gone before the file ends: a live channel sender would take the next files' messages
  await Promise.all(children.map((c) => stopChild(c)));
});

/** `sh scripts/run-kind.sh <kind>` as a Procfile line runs it; resolves once its ready line is printed. */
async function runKind(kind: string): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn("sh", ["scripts/run-kind.sh", kind], {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: "warn", REDIS_PREFIX: config.redisPrefix },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let output = "";
  child.stdout!.on("data", (c: Buffer) => (output += c.toString()));
  child.stderr!.on("data", (c: Buffer) => (output += c.toString()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${kind} did not start:\n${output}`)), PROCESS_START_MS);
    const check = () => {
      if (output.includes("ready: nms")) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on("data", check);
    child.once("exit", (code) => reject(new Error(`${kind} exited ${code}:\n${output}`)));
  });
  return { child, output: () => output };
}

async function stop(child: ChildProcess) {
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  return await exited;
}

describe("the compiled actor binary", () => {
  test("a channel-sender started by run-kind.sh runs the binary (same pid) and delivers", async () => {
    const built = buildActorBinary();
    expect(built.bytes).toBeGreaterThan(10_000_000);
    const { child } = await runKind("channel-sender");
    // exec: the supervisor's pid is the actor process itself, running the binary
    expect(readlinkSync(`/proc/${child.pid}/exe`)).toBe(ACTOR_BINARY);
    const t = await createTenant();
    const r = await call("POST", "/v1/notifications", { key: t.sandboxKey, body: { channel: "sms", to: "+5511912340078", data: { content: "binary" } } });
    expect(r.status).toBe(202);
    const row = await waitForStatus(r.body.data.id, ["delivered", "failed"], 20_000);
    expect(row!.status).toBe("delivered");
    expect(await stop(child)).toBe(0);
  }, 120_000);

  test("a source file newer than the binary: run-kind.sh says so and starts the kind from source", async () => {
    const { mtime, atime } = statSync(ACTOR_BINARY);
    // the binary made older than every source file (only its own timestamps are touched)
    utimesSync(ACTOR_BINARY, new Date(0), new Date(0));
    try {
      const { child, output } = await runKind("workflow-run");
      expect(output()).toContain(`is newer than .nms/bin/nms: starting workflow-run from source`);
      expect(readlinkSync(`/proc/${child.pid}/exe`)).not.toBe(ACTOR_BINARY);
      expect(await stop(child)).toBe(0);
    } finally {
      utimesSync(ACTOR_BINARY, atime, mtime);
    }
  }, 120_000);
});
