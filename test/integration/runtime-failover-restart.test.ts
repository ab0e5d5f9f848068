// The failover watch on a single Redis (runtime/failover-watch.ts): a restarted Redis (new run id) is
// seen when the client reconnects, not at the next poll. Uses a private redis-server: the shared one is never restarted.
import { afterAll, expect, test } from "bun:test";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger } from "../../runtime/actor";
import { watchFailovers } from "../../runtime/failover-watch";
import { createRedisClient } from "../../runtime/redis-client";
import { stopChild } from "../support/spawn-ready";

const hasRedisServer = spawnSync("sh", ["-c", "command -v redis-server"]).status === 0;
const dir = hasRedisServer ? mkdtempSync(join(tmpdir(), "nms-redis-")) : "";
let server: ChildProcess | null = null;

function startServer(port: number): ChildProcess {
  return spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir], { stdio: "ignore" });
}

async function waitForPing(url: string) {
  const probe = createRedisClient(url, { maxRetriesPerRequest: 1 });
  try {
    for (let i = 0; i < 100; i++) {
      if (await probe.ping().then(() => true, () => false)) return;
      await Bun.sleep(50);
    }
    throw new Error(`redis at ${url} did not answer`);
  } finally {
    probe.disconnect();
  }
}

afterAll(async () => {
  if (server) await stopChild(server, 0);
});

test.skipIf(!hasRedisServer)("a restarted single Redis is seen at the client's reconnect, long before the next poll", async () => {
  const port = 20000 + Math.floor(Math.random() * 12000); // below the kernel's ephemeral range
  const url = `redis://127.0.0.1:${port}`;
  server = startServer(port);
  await waitForPing(url);
  const client = createRedisClient(url, { maxRetriesPerRequest: null });
  // counts the watch's answers (INFO), so the test knows the run id before the restart was read
  let answers = 0;
  const info = client.info.bind(client);
  client.info = (async (...args: Parameters<typeof info>) => {
    const r = await info(...args);
    answers++;
    return r;
  }) as typeof client.info;
  const seen: number[] = [];
  // the poll every 60 s: only the reconnect can notice the restart within this test
  const watch = watchFailovers(client, { singleEveryMs: 60_000, log: silentLogger, onFailover: () => seen.push(performance.now()) });
  try {
    for (let i = 0; i < 400 && answers === 0; i++) await Bun.sleep(25); // the run id before the restart is known
    expect(answers).toBeGreaterThan(0);
    expect(seen).toEqual([]);
    server.kill("SIGKILL");
    await new Promise((r) => server!.once("exit", r));
    server = startServer(port);
    await waitForPing(url);
    const up = performance.now();
    for (let i = 0; i < 100 && seen.length === 0; i++) await Bun.sleep(50);
    expect(seen.length).toBe(1);
    // the client's reconnect back-off is at most 2 s; the poll would take 60 s
    expect(seen[0]! - up).toBeLessThan(4000);
  } finally {
    await watch.stop();
    client.disconnect();
  }
});
