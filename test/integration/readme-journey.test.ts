// The README's first journey works when pasted (issue 14 item 3): its shell block, taken from the
// README itself, runs with bash against the whole service (API + every actor, scripts/start.ts).
import { afterAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { sql } from "../../store/db";
import { spawnUntilReady } from "../support/spawn-ready";
import { connect, deletePrefix, randomPrefix } from "../support/runtime-redis";
import { deleteTenants } from "../support/tenant-cleanup";

const root = join(import.meta.dir, "..", "..");
const prefix = randomPrefix("readme");
const port = 20000 + Math.floor(Math.random() * 12000);
let service: Awaited<ReturnType<typeof spawnUntilReady>> | null = null;

afterAll(async () => {
  service?.kill("SIGTERM");
  await service?.exited;
  const tenants = await sql<{ id: string }[]>`select id from tenants where name = ${`readme-journey-${prefix}`}`;
  await deleteTenants(tenants.map((t) => t.id));
  const redis = connect();
  await deletePrefix(redis, prefix);
  await redis.quit();
});

/** The first ```sh block under "Your first notification and workflow". */
function journey(): string {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const at = readme.indexOf("### Your first notification and workflow");
  expect(at).toBeGreaterThan(0);
  const open = readme.indexOf("```sh\n", at) + "```sh\n".length;
  return readme.slice(open, readme.indexOf("```", open));
}

test("the README's journey, pasted into bash: tenant, sandbox key, subscriber, template, a delivered email, a workflow run, the inbox item", async () => {
  const env = { ...process.env, PORT: String(port), REDIS_PREFIX: prefix, LOG_LEVEL: "warn" };
  service = await spawnUntilReady(["node_modules/.bin/bun", "scripts/start.ts"], { cwd: root, env, ready: "ready:", timeoutMs: 60_000 });
  // the one name the test changes, so it can find and delete its tenant afterwards
  const script = journey().replace(`{"name":"Acme"}`, `{"name":"readme-journey-${prefix}"}`);
  const run = Bun.spawn(["bash", "-euo", "pipefail", "-c", script], {
    cwd: root,
    env: { ...process.env, BASE: `http://127.0.0.1:${port}`, ADMIN_TOKEN: process.env.ADMIN_TOKEN! },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([new Response(run.stdout).text(), new Response(run.stderr).text(), run.exited]);
  expect(err).toBe("");
  expect(code).toBe(0);
  const lines = out.trim().split("\n");
  expect(lines[0]).toMatch(/^[0-9a-f-]{36}$/); // the subscriber
  expect(lines.slice(1)).toEqual([
    "welcome",
    "delivered via sandbox: Welcome, Ana",
    "hello",
    "1",
    expect.stringMatching(/^running, step 1: \[\{.*"type":"send".*"status":"enqueued".*"type":"delay".*"duration_seconds":60/),
    "Hi Ana",
  ]);
}, 90_000);
