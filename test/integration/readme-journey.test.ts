// The README's first journey works when pasted (issue 14 item 3, issue 27 item 1): its shell block,
// taken from the README itself, runs with bash against the whole service (API + every actor,
// scripts/start.ts); the sign-in link it prints opens the dashboard, in a real browser, as the
// owner of the tenant it created, showing what it sent. A wrong admin token stops it at once.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { sql } from "../../store/db";
import { spawnUntilReady } from "../support/spawn-ready";
import { connect, deletePrefix, randomPrefix } from "../support/runtime-redis";
import { deleteTenants } from "../support/tenant-cleanup";
import { startBrowser, type TestBrowser } from "../support/browser";
import { freePort, pageShown, textOf, WAIT_MS } from "../support/dashboard-session";
import { buildWeb } from "../../scripts/build-web";

const root = join(import.meta.dir, "..", "..");
const prefix = randomPrefix("readme");
const tenantName = `readme-journey-${prefix}`;
const owner = `owner-${prefix.replace(/[^a-z0-9]/gi, "").toLowerCase()}@readme-journey.com`;
let port = 0;
let service: Awaited<ReturnType<typeof spawnUntilReady>> | null = null;
let browser: TestBrowser | null = null;

beforeAll(async () => {
  await buildWeb(); // npm test built it already; a single-file run may not have
  port = await freePort();
  const env = { ...process.env, PORT: String(port), REDIS_PREFIX: prefix, LOG_LEVEL: "warn" };
  service = await spawnUntilReady(["node_modules/.bin/bun", "scripts/start.ts"], { cwd: root, env, ready: "ready:", timeoutMs: 60_000 });
}, 90_000);

afterAll(async () => {
  await browser?.close();
  service?.kill("SIGTERM");
  await service?.exited;
  const tenants = await sql<{ id: string }[]>`select id from tenants where name = ${tenantName}`;
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

/** Runs the block as a reader does (pasted into bash, which keeps going after a failed line). */
async function paste(env: Record<string, string>) {
  // -c runs it like a pasted block: no -e here, the block's own subshell sets it
  const run = Bun.spawn(["bash", "-c", journey()], {
    cwd: root,
    // the names the test changes, so it finds and deletes its tenant and owner afterwards
    env: { ...process.env, BASE: `http://127.0.0.1:${port}`, TENANT: tenantName, OWNER_EMAIL: owner, ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([new Response(run.stdout).text(), new Response(run.stderr).text(), run.exited]);
  return { out, err, code };
}

test("a wrong admin token: the block stops at the first call and prints the API's error, nothing after it runs", async () => {
  const { out, err, code } = await paste({ ADMIN_TOKEN: "adm_wrong" });
  expect(code).not.toBe(0);
  expect(out).toBe("");
  expect(err).toMatch(/^POST \/api\/internal\/tenants failed with HTTP 401: \{"error":\{"code":"[a-z_]+","message":"[^"]+"/);
  expect(err.trim().split("\n")).toHaveLength(1);
  expect(err).not.toContain("ReferenceError");
  expect((await sql`select 1 from tenants where name = ${tenantName}`).length).toBe(0);
}, 60_000);

test("the README's journey, pasted into bash: tenant with its owner, sandbox key, subscriber, template, a delivered email, a workflow run, the inbox item; its link opens the tenant in the dashboard", async () => {
  const { out, err, code } = await paste({ ADMIN_TOKEN: process.env.ADMIN_TOKEN! });
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
    expect.stringMatching(new RegExp(`^http://localhost:${port}/auth/magic-link/verify\\?token=[A-Za-z0-9_%-]+$`)),
  ]);

  // the owner opens the printed link: signed in to the tenant the block created, with its sends
  browser = await startBrowser();
  const { page, consoleErrors, screenshot } = await browser.newPage();
  await page.goto(lines.at(-1)!);
  await pageShown(page, "Overview");
  expect(await textOf(page.locator(".tenant-name"))).toBe(tenantName);
  expect(await textOf(page.locator(".user-email"))).toBe(owner);
  await page.getByRole("radio", { name: "Sandbox" }).check();
  await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Notifications", exact: true }).click();
  await pageShown(page, "Notifications");
  const row = page.getByRole("row").filter({ hasText: "ana@example.com" }).filter({ hasText: "email" });
  await row.first().waitFor({ timeout: WAIT_MS });
  expect(await textOf(row.first())).toContain("delivered");
  await screenshot("readme-journey-dashboard");
  expect(consoleErrors).toEqual([]);
}, 120_000);
