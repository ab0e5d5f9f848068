// The channel page's backup providers in a real browser (issue 23, docs/routing.md): each provider's
// circuit as the API reports it, a backup added and saved, an open circuit shown, and a 422 on the entry.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "../../store/db";
import { redis } from "../../store/redis";
import { redisKeys } from "../../store/redis-keys";
import { startBrowser, type TestBrowser, type TestPage } from "../support/browser";
import { pageShown, signInWithKey, startDashboardServer, TEST_MS, WAIT_MS, type DashboardServer } from "../support/dashboard-session";
import { deleteTenants } from "../support/tenant-cleanup";

const run = crypto.randomUUID().slice(0, 8);
const EMAIL = `owner-${run}@failover-${run}.com`;
let server: DashboardServer;
let browser: TestBrowser;
let dash: TestPage;
let tenantId: string | undefined;
let key: string;
const circuitKeys: string[] = [];


beforeAll(async () => {
  server = await startDashboardServer();
  browser = await startBrowser();
}, 60_000);

afterAll(async () => {
  if (circuitKeys.length) await redis.del(...circuitKeys);
  await browser?.close();
  await server?.stop();
  if (tenantId) await deleteTenants([tenantId]);
});

describe("channel page: backup providers", () => {
  test("shows the primary's circuit, adds a backup and saves it, shows an open circuit, names a bad entry", async () => {
    dash = await browser.newPage();
    ({ tenantId, key } = await signInWithKey(dash.page, server, EMAIL, `e2e-${run}`));
    const channel = await server.apiCall("POST", "/v1/channels", key, {
      channel: "email",
      provider: "smtp",
      credentials: {},
      settings: { host: "127.0.0.1", port: server.smtp.port, secure: false, from_email: `no-reply@failover-${run}.com` },
    });
    expect(channel.status).toBe(201);

    await dash.page.goto(`${server.base}/channels/email?env=production`);
    await pageShown(dash.page, "Email channel");
    const rows = dash.page.locator("table.circuits tbody tr");
    await rows.first().waitFor({ timeout: WAIT_MS });
    expect(await rows.count()).toBe(1);
    expect(await rows.first().innerText()).toContain("Closed (sending)");

    // add a backup (the built-in sandbox needs no credentials) and save it
    await dash.page.getByRole("button", { name: "Add backup provider" }).click();
    await dash.page.locator("#failover-0-provider").selectOption("sandbox");
    await dash.page.getByRole("button", { name: "Save backup providers" }).click();
    await dash.page.getByRole("status").filter({ hasText: "Backup providers saved." }).waitFor({ timeout: WAIT_MS });
    const stored = await server.apiCall("GET", "/v1/channels/email", key);
    expect(stored.body.data.failover).toEqual([{ provider: "sandbox", settings: {}, credential_keys: [] }]);
    await dash.page.waitForFunction(() => document.querySelectorAll("table.circuits tbody tr").length === 2, undefined, { timeout: WAIT_MS });

    // the backup's circuit opens (as the sender would record it): the page shows it after a reload
    const [row] = await sql`select failover from channels where tenant_id = ${tenantId!} and channel = 'email' and environment = 'production'`;
    const entryId = (row!.failover as { id: string }[])[0]!.id;
    const ck = redisKeys.circuit(tenantId!, "production", "email", entryId);
    circuitKeys.push(ck);
    await redis.hset(ck, { state: "open", opened_at: String(Date.now()), fails: "5", last_error: "http_503: down for maintenance" });
    await dash.page.reload();
    await pageShown(dash.page, "Email channel");
    const backupRow = dash.page.locator('table.circuits tbody tr[data-circuit="open"]');
    await backupRow.waitFor({ timeout: WAIT_MS });
    expect(await backupRow.innerText()).toContain("Open (skipped)");
    expect(await backupRow.innerText()).toContain("http_503: down for maintenance");

    // a second backup that needs credentials and has none: the API's 422 is shown on that entry
    await dash.page.getByRole("button", { name: "Add backup provider" }).click();
    await dash.page.locator("#failover-1-provider").selectOption("sendgrid");
    await dash.page.getByRole("button", { name: "Save backup providers" }).click();
    await dash.page.getByRole("alert").filter({ hasText: "Backups not saved" }).waitFor({ timeout: WAIT_MS });
    expect(await dash.page.locator("#failover-1-credentials-error").innerText()).toContain("api_key");
    expect((await server.apiCall("GET", "/v1/channels/email", key)).body.data.failover.length).toBe(1);
    await dash.screenshot("dashboard-channel-failover");
    expect(dash.consoleErrors.filter((e) => !e.includes("422"))).toEqual([]);
  }, TEST_MS);
});
