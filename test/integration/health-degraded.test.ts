// GET /health reports each dependency and degrades to 503 when Redis stops answering
// (DESIGN.md 6). Uses a private redis-server so the shared one is never touched.
import { afterAll, expect, test } from "bun:test";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startApiProcess, type ApiProcess } from "../support/api-process";
import { stopChild } from "../support/spawn-ready";

const hasRedisServer = spawnSync("sh", ["-c", "command -v redis-server"]).status === 0;
let api: ApiProcess | null = null;
let redisChild: ReturnType<typeof spawn> | null = null;

afterAll(async () => {
  await api?.stop();
  if (redisChild) await stopChild(redisChild, 0);
});

async function waitForPort(port: number) {
  for (let i = 0; i < 100; i++) {
    try {
      const s = await Bun.connect({ hostname: "127.0.0.1", port, socket: { data() {} } });
      s.end();
      return;
    } catch {
      await Bun.sleep(50);
    }
  }
  throw new Error(`port ${port} never opened`);
}

test.skipIf(!hasRedisServer)("/health is 200 ok with Redis up, then 503 degraded with checks.redis down when it stops", async () => {
  const port = 20000 + Math.floor(Math.random() * 12000); // below the kernel's ephemeral range (32768+), where client sockets would collide
  const dir = mkdtempSync(join(tmpdir(), "nms-redis-"));
  redisChild = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir], {
    stdio: "ignore",
  });
  await waitForPort(port);
  api = await startApiProcess({ REDIS_URL: `redis://127.0.0.1:${port}` });

  const up = await fetch(`${api.url}/health`);
  expect(up.status).toBe(200);
  const upBody: any = await up.json();
  expect(upBody.status).toBe("ok");
  expect(upBody.checks.redis.status).toBe("ok");

  redisChild.kill("SIGKILL");
  await Bun.sleep(200);
  const down = await fetch(`${api.url}/health`);
  expect(down.status).toBe(503);
  const downBody: any = await down.json();
  expect(downBody.status).toBe("degraded");
  expect(downBody.checks.redis.status).toBe("down");
  expect(downBody.checks.postgres.status).toBe("ok");
});
