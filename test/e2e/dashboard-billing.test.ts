// The Billing page and the operator's plans page in a real browser (Debian's chromium) against an
// API process: subscribe, the usage bar filling with notifications sent through the API, an
// upgrade (now), a downgrade (at the period end), a cancellation, each in the audit log as the
// user; the operator's plans page behind the admin token, with the API's 422 under its field.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { sql } from "../../store/db";
import { startBrowser, type TestBrowser, type TestPage } from "../support/browser";
import { navTo, pageShown, sessionCall, signInByMagicLink, startDashboardServer, TEST_MS, textOf, WAIT_MS, type DashboardServer } from "../support/dashboard-session";
import { ADMIN_TOKEN } from "../support/fixtures";
import { deleteTenants } from "../support/tenant-cleanup";

const run = crypto.randomUUID().slice(0, 8);
const EMAIL = `owner-${run}@billing-${run}.com`;
const plan = (n: string) => `e2e-${run}-${n}`;

let server: DashboardServer;
let browser: TestBrowser;
let dash: TestPage;
let tenantId: string | undefined;
let key: string;


const adminCall = (method: string, path: string, body?: unknown) => server.apiCall(method, path, ADMIN_TOKEN, body);

beforeAll(async () => {
  server = await startDashboardServer();
  browser = await startBrowser();
  expect((await adminCall("POST", "/v1/admin/plans", { id: plan("starter"), name: `Starter ${run}`, price_cents: 1500, limits: { notifications_per_month: 5, webhooks: 2 } })).status).toBe(201);
  expect((await adminCall("POST", "/v1/admin/plans", { id: plan("growth"), name: `Growth ${run}`, price_cents: 4900, limits: { notifications_per_month: 1000 } })).status).toBe(201);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  if (tenantId) await deleteTenants([tenantId]);
  await sql`delete from plans where id like ${`e2e-${run}-%`}`;
});

/** The row of plan `name` in the Billing page's plans table. */
const planRow = (p: Page, name: string) => p.locator("table.plans tbody tr").filter({ has: p.getByRole("rowheader", { name: new RegExp(name) }) });

async function confirmIn(p: Page, button: string, confirm: string) {
  await p.getByRole("button", { name: button }).click();
  const dialog = p.getByRole("dialog", { name: new RegExp(`${button}\\?`) });
  await dialog.getByRole("button", { name: confirm, exact: true }).click();
}

describe("the Billing page", () => {
  test("subscribe, the usage bar, upgrade now, downgrade at the period end, cancel; each in the audit log as the user", async () => {
    dash = await browser.newPage();
    await signInByMagicLink(dash.page, server, EMAIL);
    const [user] = await sql`select tenant_id from users where email = ${EMAIL}`;
    tenantId = user!.tenant_id;
    const created = await sessionCall(dash.page, "POST", "/v1/api-keys", { key_type: "secret", label: "billing e2e", environment: "production" });
    key = created.body.data.raw_key;
    expect((await server.apiCall("POST", "/v1/channels", key, { channel: "sms", provider: "sandbox" })).status).toBe(201);

    await navTo(dash.page, "Billing");
    expect(await textOf(dash.page.locator("#plan-title"))).toContain("Free");
    expect(await textOf(dash.page.locator("#usage-text"))).toContain("no limit");
    await dash.screenshot("billing-default-plan");

    await confirmIn(dash.page, `Subscribe to Starter ${run}`, "Subscribe");
    await dash.page.getByRole("status").filter({ hasText: `You are on Starter ${run} now.` }).waitFor({ timeout: WAIT_MS });
    await dash.page.locator("#usage-text", { hasText: "0 of 5 (0 %)" }).waitFor({ timeout: WAIT_MS });
    expect(await textOf(dash.page.locator("#plan-title"))).toContain(`Starter ${run}`);

    for (let i = 0; i < 4; i++) expect((await server.apiCall("POST", "/v1/notifications", key, { channel: "sms", to: `+1555010000${i}`, data: { content: "hi" } })).status).toBe(202);
    await dash.page.reload();
    await pageShown(dash.page, "Billing");
    expect(await textOf(dash.page.locator("#usage-text"))).toBe("4 of 5 (80 %)");
    expect(await dash.page.locator(".usage.warn meter").getAttribute("value")).toBe("4");
    await dash.screenshot("billing-usage-warning");

    await confirmIn(dash.page, `Upgrade to Growth ${run}`, "Upgrade");
    await dash.page.getByRole("status").filter({ hasText: `You are on Growth ${run} now.` }).waitFor({ timeout: WAIT_MS });
    await dash.page.locator("#usage-text", { hasText: "4 of 1,000 (0 %)" }).waitFor({ timeout: WAIT_MS });

    await confirmIn(dash.page, `Downgrade to Starter ${run}`, "Downgrade");
    await dash.page.getByText(`Changes to Starter ${run} on`).waitFor({ timeout: WAIT_MS });
    expect(await textOf(dash.page.locator("#plan-title"))).toContain(`Growth ${run}`);

    await dash.page.getByRole("button", { name: "Cancel subscription" }).click();
    const dialog = dash.page.getByRole("dialog", { name: "Cancel the subscription?" });
    await dialog.getByLabel("Reason (kept in the audit log)").fill("trying the e2e flow");
    await dialog.getByRole("button", { name: "Cancel subscription" }).click();
    await dash.page.getByText("Ends on").waitFor({ timeout: WAIT_MS });
    await dash.screenshot("billing-cancel-at-period-end");

    const audit = await sql`select action, actor_type, metadata from audit_logs where tenant_id = ${tenantId!} and action like 'subscription.%' order by inserted_at`;
    expect(audit.map((a) => a.action)).toEqual(["subscription.created", "subscription.plan_changed", "subscription.plan_changed", "subscription.cancelled"]);
    for (const a of audit) expect(a.actor_type).toBe("user");
    expect(audit[3]!.metadata).toEqual({ reason: "trying the e2e flow", cancel_at_period_end: true });
    expect(dash.consoleErrors).toEqual([]);
  }, TEST_MS);
});

describe("the operator's plans page", () => {
  test("behind the admin token: lists plans, a bad id shows the API's message under the field, create and change a plan", async () => {
    await dash.page.goto(`${server.base}/billing/plans?env=production`);
    await pageShown(dash.page, "Plans (operator)");
    await dash.page.getByLabel("Admin token").fill("not-the-token");
    await dash.page.getByRole("button", { name: "Use token" }).click();
    expect(await textOf(dash.page.locator(".error-code"))).toContain("invalid_admin_token");
    await dash.page.getByLabel("Admin token").fill(ADMIN_TOKEN);
    await dash.page.getByRole("button", { name: "Use token" }).click();
    await dash.page.getByRole("rowheader", { name: new RegExp(`Starter ${run}`) }).waitFor({ timeout: WAIT_MS });

    await dash.page.getByLabel("Id", { exact: true }).fill("Bad Id");
    await dash.page.getByLabel("Name", { exact: true }).fill(`Scale ${run}`);
    await dash.page.getByLabel("Price in cents").fill("19900");
    await dash.page.getByLabel("Notifications per period").fill("50000");
    await dash.page.getByRole("button", { name: "Create plan" }).click();
    expect(await textOf(dash.page.locator("#plan-id-error"))).toMatch(/pattern|match/i);

    await dash.page.getByLabel("Id", { exact: true }).fill(plan("scale"));
    await dash.page.getByRole("button", { name: "Create plan" }).click();
    await dash.page.getByRole("status").filter({ hasText: `Scale ${run} created.` }).waitFor({ timeout: WAIT_MS });
    const [row] = await sql`select price_cents, notifications_per_month, webhooks from plans where id = ${plan("scale")}`;
    expect(row).toMatchObject({ price_cents: "19900", notifications_per_month: "50000", webhooks: null });

    await dash.page.getByRole("button", { name: `Edit Starter ${run}` }).click();
    await dash.page.getByLabel("Notifications per period").fill("8");
    await dash.page.getByRole("button", { name: "Save plan" }).click();
    await dash.page.getByRole("status").filter({ hasText: `Starter ${run} saved` }).waitFor({ timeout: WAIT_MS });
    const got = await adminCall("GET", `/v1/admin/plans/${plan("starter")}`);
    expect(got.body.data.limits).toMatchObject({ notifications_per_month: 8, webhooks: 2 });
    await dash.screenshot("billing-operator-plans");
    // the wrong token's 401 and the bad id's 422 were asked for; nothing else may fail
    expect(dash.consoleErrors.filter((e) => !/status of (401|422) .*\/v1\/admin\/plans/.test(e))).toEqual([]);
  }, TEST_MS);
});
