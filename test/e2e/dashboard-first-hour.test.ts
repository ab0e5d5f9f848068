// Issue 27 in a real browser (Debian's chromium), as a person uses the dashboard in their first hour:
// the activity feed searched, a workflow run whose notification failed shown as failed, subscribers
// created, edited and imported from CSV (a bad row named, nothing written), a test sent and a workflow
// triggered from a subscriber's page, the template preview with broken sample data, the channels page
// agreeing with the API on in_app, an SMTP test against a closed port, the last hour drawn, the audit
// log naming people and keys, and every page at 390 px wide. Screenshots land in .nms/screenshots/.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { channelSender } from "../../actors/channel-sender";
import { workflowRun } from "../../actors/workflow-run";
import { sql } from "../../store/db";
import { startBrowser, type TestBrowser, type TestPage } from "../support/browser";
import { eventually, freePort, navTo, pageShown, signInByMagicLink, startDashboardServer, textOf, TEST_MS, WAIT_MS, type DashboardServer } from "../support/dashboard-session";
import { deleteTenants } from "../support/tenant-cleanup";
import { startDeliveryHost } from "../integration/delivery-support";

const run = crypto.randomUUID().slice(0, 8);
const EMAIL = `owner-${run}@first-hour-${run}.com`;
const ANA = `ana-${run}`;
const ANA_EMAIL = `ana-${run}@example.com`;

let server: DashboardServer;
let delivery: Awaited<ReturnType<typeof startDeliveryHost>>;
let browser: TestBrowser;
let dash: TestPage;
let tenantId: string | undefined;
let sandboxKey: string;
let liveKey: string;
let failingRunId: string;

const sandbox = (method: string, path: string, body?: unknown) => server.apiCall(method, path, sandboxKey, body);
const live = (method: string, path: string, body?: unknown) => server.apiCall(method, path, liveKey, body);
const open = async (path: string, title: string | RegExp) => {
  await dash.page.goto(`${server.base}${path}`);
  await pageShown(dash.page, title);
};

/** A call made by the signed-in page itself (session cookie, same origin). */
async function sessionCall(p: Page, method: string, path: string, body?: unknown, environment = "production"): Promise<{ status: number; body: any }> {
  return await p.evaluate(
    async ([method, path, body, environment]) => {
      const res = await fetch(path as string, {
        method: method as string,
        headers: { "content-type": "application/json", "x-environment": environment as string },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: await res.json() };
    },
    [method, path, body, environment] as const,
  );
}

async function untilText(p: Page, selector: string, text: string): Promise<void> {
  await p.waitForFunction(([s, t]) => document.querySelector(s!)?.textContent?.trim() === t, [selector, text] as const, { timeout: WAIT_MS });
}

async function waitForStatus(id: string, statuses: string[]) {
  return await eventually(async () => {
    const [row] = await sql`select status from notifications where id = ${id}`;
    return row && statuses.includes(row.status) ? row.status : null;
  }, `notification ${id} never reached ${statuses.join("/")}`);
}

beforeAll(async () => {
  server = await startDashboardServer();
  delivery = await startDeliveryHost(0.001, [channelSender, workflowRun]);
  browser = await startBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await delivery?.stop();
  await server?.stop();
  if (tenantId) await deleteTenants([tenantId]);
});

describe("set-up", () => {
  test("signs in; keys for both environments; a sandbox template, workflow and subscriber; notifications delivered and failed", async () => {
    dash = await browser.newPage();
    await signInByMagicLink(dash.page, server, EMAIL);
    const [user] = await sql`select tenant_id from users where email = ${EMAIL}`;
    tenantId = user!.tenant_id;
    const s = await sessionCall(dash.page, "POST", "/v1/api-keys", { label: `sandbox ${run}`, key_type: "secret", environment: "sandbox" }, "sandbox");
    expect(s.status).toBe(201);
    sandboxKey = s.body.data.raw_key;
    const l = await sessionCall(dash.page, "POST", "/v1/api-keys", { label: `live ${run}`, key_type: "secret", environment: "production" });
    liveKey = l.body.data.raw_key;
    expect((await sandbox("POST", "/v1/templates", { slug: "fh-welcome", name: "Welcome", channel: "email", content: "Hi {{ name }}", variants: { subject: "Hi {{ name }}" } })).status).toBe(201);
    expect((await sandbox("POST", "/v1/workflows", { slug: "fh-flow", name: "First hour", steps: [{ type: "send", channel: "email", template: "fh-welcome" }] })).status).toBe(201);
    expect((await sandbox("POST", "/v1/subscribers", { external_id: ANA, email: ANA_EMAIL, phone: "+5511912345678", name: "Ana" })).status).toBe(201);
    const sends = [
      { channel: "email", to: ANA_EMAIL, template: "fh-welcome", data: { name: "Ana" } },
      { channel: "sms", to: "+5511912345678", data: { content: "Your code is 1234" } },
      { channel: "email", to: `fail-${run}@example.com`, data: { subject: "Hello", content: "This one fails in sandbox" } },
    ];
    for (const body of sends) {
      const r = await sandbox("POST", "/v1/notifications", body);
      expect(r.status).toBe(202);
      await waitForStatus(r.body.data.id, ["delivered", "failed"]);
    }
    const runRes = await sandbox("POST", "/v1/workflows/fh-flow/trigger", { recipient: `fail-wf-${run}@example.com`, data: { name: "X" } });
    failingRunId = runRes.body.data.id;
  }, 90_000);
});

describe("the activity feed", () => {
  test("search by subscriber, status, template and time; the filters live in the URL", async () => {
    await open("/notifications?env=sandbox", "Notifications");
    await dash.page.locator("table.notifications tbody tr").nth(3).waitFor({ timeout: WAIT_MS });
    await dash.page.getByLabel("Subscriber").fill(ANA);
    await dash.page.getByRole("button", { name: "Search" }).click();
    await dash.page.waitForURL(new RegExp(`subscriber=${ANA}`), { timeout: WAIT_MS });
    await dash.page.waitForFunction(() => document.querySelectorAll("table.notifications tbody tr").length === 2, null, { timeout: WAIT_MS });
    const channels = await dash.page.locator("table.notifications tbody tr td:nth-child(2)").allTextContents();
    expect(channels.sort()).toEqual(["email", "sms"]);
    await dash.screenshot("first-hour-feed-subscriber");

    await dash.page.getByRole("link", { name: "Clear" }).click();
    await dash.page.waitForURL((u) => !u.searchParams.has("subscriber"), { timeout: WAIT_MS });
    await dash.page.getByLabel("Status").selectOption("failed");
    await dash.page.waitForURL(/status=failed/, { timeout: WAIT_MS });
    // the filtered page replaces the whole list: only failed rows, the sandbox refusal among them
    await dash.page.waitForFunction(
      () => {
        const badges = [...document.querySelectorAll("table.notifications tbody tr .badge")].map((b) => b.textContent);
        return !document.querySelector(".stale") && badges.length > 0 && badges.every((b) => b === "failed");
      },
      null,
      { timeout: WAIT_MS },
    );
    await dash.page.locator("table.notifications tbody tr", { hasText: `fail-${run}@example.com` }).waitFor({ timeout: WAIT_MS });

    await dash.page.getByLabel("Template").fill("fh-welcome");
    await dash.page.getByLabel("From").fill("2099-01-01T00:00");
    await dash.page.getByRole("button", { name: "Search" }).click();
    await dash.page.waitForURL(/created_after=2099/, { timeout: WAIT_MS });
    expect(await textOf(dash.page.locator(".empty-title"))).toBe("No notification matches this search");
    await dash.screenshot("first-hour-feed-empty-search");
  }, TEST_MS);
});

describe("screens that tell the truth", () => {
  test("a run whose send failed shows failed, not a blue enqueued; the notification links back to its run and step", async () => {
    await open(`/workflow-runs/${failingRunId}?env=sandbox`, "Workflow run");
    await untilText(dash.page, 'tr[data-step="0"] td:nth-child(3) .badge', "failed");
    expect(await dash.page.locator('tr[data-step="0"] td:nth-child(3) .badge').getAttribute("class")).toContain("tone-bad");
    expect(await textOf(dash.page.locator('tr[data-step="0"] .step-own-status'))).toBe("step enqueued it; the notification is failed");
    await dash.screenshot("first-hour-run-failed-step");
    await dash.page.getByRole("link", { name: "Notification of step 1" }).click();
    await pageShown(dash.page, "Notification");
    const back = dash.page.locator(".workflow-step a");
    expect(await textOf(back)).toBe(`Step 1 of workflow run ${failingRunId.slice(0, 8)}…`);
    await dash.screenshot("first-hour-notification-of-run");
    await back.click();
    await pageShown(dash.page, "Workflow run");
    expect(new URL(dash.page.url()).pathname).toBe(`/workflow-runs/${failingRunId}`);
  }, TEST_MS);

  test("the template preview: broken sample data is said and not rendered, warnings still follow the typing; publishing in sandbox says what it means", async () => {
    await open("/templates/new?env=sandbox", "New template");
    await dash.page.getByLabel("Slug").fill(`preview-${run}`);
    await dash.page.getByLabel("Name", { exact: true }).fill("Preview");
    await dash.page.getByLabel("Sample data").fill('{"name": "Ana"}');
    await dash.page.getByLabel("Content").fill("Hello {{ name }}");
    await untilText(dash.page, ".rendered-body .rendered-text", "Hello Ana");
    expect(await textOf(dash.page.locator(".validation-warnings"))).toMatch(/subject/i);
    // the sample breaks: nothing rendered, and no earlier render passes for this one
    await dash.page.getByLabel("Sample data").fill('{"name": "Ana"');
    await dash.page.locator(".preview-paused").waitFor({ timeout: WAIT_MS });
    expect(await textOf(dash.page.locator(".preview-paused"))).toBe("Not rendered: the sample data is not valid JSON. Fix it to see the message.");
    await dash.page.waitForFunction(() => !document.querySelector(".rendered-part"), null, { timeout: WAIT_MS });
    expect(await dash.page.locator("#template-sample").getAttribute("aria-invalid")).toBe("true");
    // the subject is typed meanwhile: its warning goes at once, though the sample is still broken
    await dash.page.getByLabel("Subject").fill("Hi {{ name }}");
    await dash.page.waitForFunction(() => !document.querySelector(".validation-warnings") && document.querySelector(".validation .valid")?.textContent === "Template valid", null, { timeout: WAIT_MS });
    await dash.screenshot("first-hour-template-broken-sample");
    await dash.page.getByLabel("Sample data").fill('{"name": "Bo"}');
    await untilText(dash.page, ".rendered-subject .rendered-text", "Hi Bo");
    await dash.page.getByRole("button", { name: "Create and publish" }).click();
    await dash.page.waitForURL(new RegExp(`/templates/preview-${run}\\?env=sandbox$`), { timeout: WAIT_MS });
    const said = await textOf(dash.page.locator(".flash"));
    expect(said).toContain("Published in sandbox.");
    expect(said).not.toContain("can now be sent in production");
  }, TEST_MS);

  test("the channels page and the API agree on in_app; an SMTP test against a closed port says so in the provider's words", async () => {
    await open("/channels?env=production", "Channels");
    expect(await textOf(dash.page.locator('tr[data-channel="in_app"] td:nth-child(2)'))).toBe("inbox (built in, no configuration needed)");
    expect(await textOf(dash.page.locator('tr[data-channel="sms"] td:nth-child(2)'))).toBe("not configured: sends are refused");
    await dash.screenshot("first-hour-channels-production");
    // what the page says is what the API does
    expect((await live("POST", "/v1/subscribers", { external_id: ANA, name: "Ana" })).status).toBe(201);
    expect((await live("POST", "/v1/notifications", { channel: "in_app", to: ANA, data: { title: "Hi", body: "from production" } })).status).toBe(202);
    const sms = await live("POST", "/v1/notifications", { channel: "sms", to: "+5511912345678", data: { content: "x" } });
    expect([sms.status, sms.body.error.code]).toEqual([422, "channel_not_configured"]);
    await open("/channels?env=sandbox", "Channels");
    expect(await textOf(dash.page.locator('tr[data-channel="sms"] td:nth-child(2)'))).toBe("sandbox (built in, no configuration needed)");

    const closed = await freePort();
    expect((await live("POST", "/v1/channels", { channel: "email", provider: "smtp", credentials: {}, settings: { host: "127.0.0.1", port: closed, secure: false, from_email: `no-reply@first-hour-${run}.com` } })).status).toBe(201);
    await open("/channels/email?env=production", "Email channel");
    await dash.page.getByRole("button", { name: "Send test" }).click();
    const result = dash.page.locator(".test-result");
    expect(await textOf(result)).toContain("smtp could not be used");
    expect(await textOf(result)).toContain("ECONNREFUSED");
    expect(await result.getAttribute("class")).toContain("error-notice");
    await dash.screenshot("first-hour-channel-test-closed-port");
  }, TEST_MS);

  test("'Last hour' draws the hour, minute by minute", async () => {
    await open("/?period=1h&env=sandbox", "Overview");
    expect(await textOf(dash.page.locator("#chart-title"))).toBe("Over time (the last hour, per minute)");
    const summary = (await dash.page.locator(".chart-canvas").getAttribute("aria-label")) ?? "";
    expect(summary).toMatch(/^Notifications per minute over 1h: [1-9]\d* created/);
    await dash.screenshot("first-hour-overview-last-hour");
  }, TEST_MS);

  test("the audit log names people by email and keys by prefix", async () => {
    await open("/audit-log?env=production", "Audit log");
    const row = dash.page.locator("table.audit tbody tr", { hasText: "api_key.created" }).filter({ hasText: `live ${run}` });
    await row.first().waitFor({ timeout: WAIT_MS });
    expect(await textOf(row.first().locator(".audit-actor .audit-name"))).toBe(EMAIL);
    expect(await textOf(row.first().locator(".audit-resource .audit-name"))).toBe(`${liveKey.slice(0, 12)} (live ${run})`);
    await dash.screenshot("first-hour-audit-log");
  }, TEST_MS);
});

describe("subscribers in the dashboard", () => {
  test("create one, then edit it", async () => {
    await open("/subscribers?env=sandbox", "Subscribers");
    await dash.page.getByRole("link", { name: "New subscriber" }).click();
    await pageShown(dash.page, "New subscriber");
    await dash.page.getByLabel("External id").fill(`bo-${run}`);
    await dash.page.getByLabel("Email").fill("not-an-address");
    await dash.page.getByRole("button", { name: "Create subscriber" }).click();
    // the API's 422 under the field it names
    expect(await textOf(dash.page.locator(".subscriber-form .field-error"))).toMatch(/email/i);
    await dash.page.getByLabel("Email").fill(`bo-${run}@example.com`);
    await dash.page.getByLabel("Name").fill("Bo");
    await dash.page.getByLabel("Custom properties (JSON)").fill('{"plan": "pro"}');
    await dash.page.getByRole("button", { name: "Create subscriber" }).click();
    await pageShown(dash.page, "Subscriber");
    expect(await textOf(dash.page.locator(".flash"))).toBe(`Subscriber bo-${run} was created.`);
    await dash.page.getByRole("link", { name: "Edit" }).click();
    await pageShown(dash.page, "Edit subscriber");
    await dash.page.getByLabel("Name").fill("Bo Lima");
    await dash.page.getByLabel("Phone").fill("+5511987654321");
    await dash.page.getByRole("button", { name: "Save" }).click();
    await pageShown(dash.page, "Subscriber");
    expect(await textOf(dash.page.locator("#record-title"))).toBe("Bo Lima");
    const stored = (await sandbox("GET", `/v1/subscribers/bo-${run}`)).body.data;
    expect(stored).toMatchObject({ name: "Bo Lima", phone: "+5511987654321", email: `bo-${run}@example.com`, custom_properties: { plan: "pro" } });
  }, TEST_MS);

  test("import a CSV: a bad row is named and nothing is written; corrected, every row is", async () => {
    await open("/subscribers/import?env=sandbox", "Import subscribers");
    const rows = (email2: string) => `external_id,email,name,plan\ncsv1-${run},csv1-${run}@example.com,One,pro\ncsv2-${run},${email2},Two,free\ncsv3-${run},,Three,\n`;
    await dash.page.getByLabel("CSV file", { exact: true }).setInputFiles({ name: "people.csv", mimeType: "text/csv", buffer: Buffer.from(rows("broken-address")) });
    expect(await textOf(dash.page.locator(".import-preview"))).toContain("3 subscribers in people.csv");
    await dash.page.getByRole("button", { name: "Import 3 subscribers" }).click();
    const refused = dash.page.locator(".import-refused");
    expect(await textOf(refused.locator(".notice-title"))).toBe("Nothing was imported: row 2 is refused");
    expect(await textOf(refused.locator(".import-refused-row"))).toMatch(new RegExp(`^Row 2 \\(external id csv2-${run}\\): email: `));
    await dash.screenshot("first-hour-import-refused");
    expect((await sql`select 1 from subscribers where tenant_id = ${tenantId!} and external_id like ${`csv%-${run}`}`).length).toBe(0);

    await dash.page.getByLabel("CSV file", { exact: true }).setInputFiles({ name: "people.csv", mimeType: "text/csv", buffer: Buffer.from(rows(`csv2-${run}@example.com`)) });
    await dash.page.getByRole("button", { name: "Import 3 subscribers" }).click();
    expect(await textOf(dash.page.locator(".import-done"))).toBe("Imported 3 subscribers. See them");
    const one = (await sandbox("GET", `/v1/subscribers/csv1-${run}`)).body.data;
    expect(one).toMatchObject({ email: `csv1-${run}@example.com`, name: "One", custom_properties: { plan: "pro" } });
    await dash.screenshot("first-hour-import-done");
  }, TEST_MS);

  test("a subscriber's page: their history across channels and their runs; send a test and trigger a workflow for them", async () => {
    await open(`/subscribers/${ANA}?env=sandbox`, "Subscriber");
    const history = dash.page.locator("#history-title + * table.notifications tbody tr, section[aria-labelledby=history-title] table.notifications tbody tr");
    await history.nth(1).waitFor({ timeout: WAIT_MS });
    expect((await dash.page.locator("section[aria-labelledby=history-title] table.notifications tbody tr td:nth-child(2)").allTextContents()).sort()).toEqual(["email", "sms"]);

    await dash.page.locator("#test-channel").selectOption("sms");
    expect(await textOf(dash.page.locator("#test-channel-hint"))).toBe("To +5511912345678");
    await dash.page.getByRole("button", { name: "Send test" }).click();
    expect(await textOf(dash.page.locator(".test-sent"))).toBe("Queued for +5511912345678. Follow the notification");
    await dash.page.waitForFunction(() => document.querySelectorAll("section[aria-labelledby=history-title] table.notifications tbody tr").length === 3, null, { timeout: WAIT_MS });

    await dash.page.locator("#trigger-workflow").selectOption("fh-flow");
    await dash.page.getByRole("button", { name: "Trigger for this subscriber" }).click();
    await pageShown(dash.page, "Workflow run");
    expect(await textOf(dash.page.locator(".flash"))).toBe(`Run started for ${ANA}.`);
    await untilText(dash.page, ".run-status .badge", "completed");
    await dash.page.goBack();
    await pageShown(dash.page, "Subscriber");
    const runs = dash.page.locator("table.subscriber-runs tbody tr");
    await runs.first().waitFor({ timeout: WAIT_MS });
    expect(await textOf(runs.first())).toContain("fh-flow");
    await dash.screenshot("first-hour-subscriber-page");
  }, TEST_MS);
});

describe("at 390 px wide", () => {
  test("no page is wider than the screen", async () => {
    await dash.page.setViewportSize({ width: 390, height: 844 });
    const [subscriber] = await sql`select id from subscribers where tenant_id = ${tenantId!} and external_id = ${ANA} and environment = 'sandbox'`;
    const [notification] = await sql`select id from notifications where tenant_id = ${tenantId!} and environment = 'sandbox' order by created_at limit 1`;
    const pages: [string, string | RegExp][] = [
      ["/?env=sandbox", "Overview"],
      ["/notifications?env=sandbox", "Notifications"],
      [`/notifications/${notification!.id}?env=sandbox`, "Notification"],
      ["/templates?env=sandbox", "Templates"],
      ["/templates/fh-welcome?env=sandbox", "Template fh-welcome"],
      ["/workflows?env=sandbox", "Workflows"],
      ["/workflow-runs?env=sandbox", "Workflow runs"],
      [`/workflow-runs/${failingRunId}?env=sandbox`, "Workflow run"],
      ["/subscribers?env=sandbox", "Subscribers"],
      [`/subscribers/${subscriber!.id}?env=sandbox`, "Subscriber"],
      ["/subscribers/import?env=sandbox", "Import subscribers"],
      ["/channels?env=production", "Channels"],
      ["/channels/email?env=production", "Email channel"],
      ["/domains?env=production", "Sending domains"],
      ["/suppressions?env=production", "Suppressions"],
      ["/keys?env=production", "API keys"],
      ["/webhook-endpoints?env=production", "Webhooks"],
      ["/audit-log?env=production", "Audit log"],
      ["/team?env=production", "Team"],
    ];
    const wide: string[] = [];
    for (const [path, title] of pages) {
      await open(path, title);
      const width = await dash.page.evaluate(() => document.documentElement.scrollWidth);
      if (width > 390) wide.push(`${path}: ${width}px`);
    }
    expect(wide).toEqual([]);
    await open("/notifications?env=sandbox", "Notifications");
    await dash.screenshot("first-hour-390-notifications");
    await open(`/subscribers/${subscriber!.id}?env=sandbox`, "Subscriber");
    await dash.screenshot("first-hour-390-subscriber");
    await open(`/workflow-runs/${failingRunId}?env=sandbox`, "Workflow run");
    await dash.screenshot("first-hour-390-run");
    expect(dash.consoleErrors.filter((e) => !/status of (4\d\d)/.test(e))).toEqual([]);
  }, 120_000);
});
