// The dashboard's step editor and run page for issue 21's steps in a real browser (Debian's chromium)
// against an API process and an in-process workflow host: a digest and a conditional send built in the
// editor (the API's 422 under the condition field), then a leader's and a member's run pages linked.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "../../store/db";
import { startBrowser, type TestBrowser, type TestPage } from "../support/browser";
import { eventually, navTo, pageShown, signInWithKey, startDashboardServer, TEST_MS, textOf, WAIT_MS, type DashboardServer } from "../support/dashboard-session";
import { deleteTenants } from "../support/tenant-cleanup";
import { startWorkflowHost } from "../integration/workflow-support";

const run = crypto.randomUUID().slice(0, 8);
const EMAIL = `owner-${run}@steps-${run}.com`;
const SLUG = `digest-${run}`;
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;

let server: DashboardServer;
let host: Awaited<ReturnType<typeof startWorkflowHost>>;
let browser: TestBrowser;
let dash: TestPage;
let tenantId: string | undefined;
let key: string;

const apiCall = (method: string, path: string, body?: unknown) => server.apiCall(method, path, key, body);


beforeAll(async () => {
  server = await startDashboardServer();
  host = await startWorkflowHost({ timeScale: 0.001 });
  browser = await startBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await host?.stop();
  await server?.stop();
  if (tenantId) await deleteTenants([tenantId]);
});

describe("digest and condition in the dashboard", () => {
  test("the editor offers digest, throttle, delay until and a condition; the API's 422 shows under the condition", async () => {
    dash = await browser.newPage();
    ({ tenantId, key } = await signInWithKey(dash.page, server, EMAIL, `e2e-${run}`));
    const t = await apiCall("POST", "/v1/templates", { slug: `dg-${run}`, name: "Digest", channel: "in_app", content: "{{ digest.count }} new comments", variants: { title: "News" }, status: "active" });
    expect(t.status).toBe(201);

    await navTo(dash.page, "Workflows");
    await dash.page.getByRole("link", { name: "New workflow" }).click();
    await pageShown(dash.page, "New workflow");
    await dash.page.getByLabel("Slug").fill(SLUG);
    await dash.page.getByLabel("Name", { exact: true }).fill("Comment digest");
    const step = (n: number) => dash.page.getByRole("group", { name: `Step ${n}`, exact: true });
    await step(1).getByLabel("Type").selectOption("digest");
    // 1d lasts 86 s here: max_events closes it
    await step(1).getByLabel("Window").fill("1d");
    await step(1).getByLabel("Max events").fill("3");
    await dash.page.getByRole("button", { name: "Add step" }).click();
    await step(2).getByLabel("Channel").selectOption("in_app");
    await step(2).getByLabel("Template").fill(`dg-${run}`);
    await step(2).getByLabel("Condition").fill('{"frobnicate": 1}');
    // a send's delivery fields: category, lane, critical
    await step(2).getByLabel("Category").fill("comments");
    await step(2).getByLabel("Priority").selectOption("high");
    await step(2).getByLabel("Critical").check();
    // the other new types' fields are offered too
    await dash.page.getByRole("button", { name: "Add step" }).click();
    await step(3).getByLabel("Type").selectOption("throttle");
    expect(await step(3).getByLabel("Limit").count()).toBe(1);
    await step(3).getByLabel("Type").selectOption("delay");
    await step(3).getByLabel("Wait").selectOption("until");
    expect(await step(3).getByLabel("Until").count()).toBe(1);
    await dash.page.getByRole("button", { name: "Remove step 3" }).click();
    await dash.page.getByRole("button", { name: "Create workflow" }).click();
    expect(await textOf(step(2).locator("#step-1-if-error"))).toContain("unknown operator 'frobnicate'");
    expect(await step(2).getByLabel("Condition").getAttribute("aria-describedby")).toContain("step-1-if-error");
    expect(await step(1).locator(".field-error").count()).toBe(0);
    await dash.screenshot("dashboard-workflow-condition-invalid");

    await step(2).getByLabel("Condition").fill('{"!=": [{"var": "data.muted"}, true]}');
    await dash.page.getByRole("button", { name: "Create workflow" }).click();
    await dash.page.waitForURL(new RegExp(`/workflows/${UUID.source}\\?env=production$`), { timeout: WAIT_MS });
    await pageShown(dash.page, "Workflow");
    expect(await dash.page.locator(".step-summary li").allTextContents()).toEqual([
      "Digest for 1d, at most 3 events",
      `Send by In-app with dg-${run}, high priority, critical, category comments (if {"!=":[{"var":"data.muted"},true]})`,
    ]);
    const [wf] = (await apiCall("GET", `/v1/workflows?slug=${SLUG}`)).body.data;
    const stored = [
      { type: "digest", window: "1d", max_events: 3 },
      { type: "send", channel: "in_app", template: `dg-${run}`, category: "comments", priority: "high", critical: true, if: { "!=": [{ var: "data.muted" }, true] } },
    ];
    expect(wf.steps).toEqual(stored);
    // the editor of the stored version shows them again, so saving a new version keeps them
    await dash.page.getByRole("link", { name: "Edit" }).click();
    await pageShown(dash.page, "Edit workflow");
    expect(await step(2).getByLabel("Priority").inputValue()).toBe("high");
    expect(await step(2).getByLabel("Critical").isChecked()).toBe(true);
    expect(await step(2).getByLabel("Category").inputValue()).toBe("comments");
    await dash.page.getByRole("button", { name: "Save as version 2" }).click();
    await dash.page.waitForURL(new RegExp(`/workflows/${UUID.source}\\?env=production$`), { timeout: WAIT_MS });
    await pageShown(dash.page, "Workflow");
    const [v2] = (await apiCall("GET", `/v1/workflows?slug=${SLUG}`)).body.data;
    expect(v2.version).toBe(2);
    expect(v2.steps).toEqual(stored);
  }, TEST_MS);

  test("a leader's run page lists the merged runs; a merged run's page links back to its leader", async () => {
    const sub = await apiCall("POST", "/v1/subscribers", { external_id: `reader-${run}` });
    expect([200, 201]).toContain(sub.status);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await apiCall("POST", `/v1/workflows/${SLUG}/trigger`, { to: `reader-${run}`, data: { comment: `c${i}` } });
      expect(r.status).toBe(202);
      ids.push(r.body.data.id);
      await eventually(async () => ((await sql`select 1 from workflow_digest_members where run_id = ${r.body.data.id}`).length ? true : null), "the run never reached its digest");
    }
    await eventually(async () => ((await apiCall("GET", `/v1/workflow-runs/${ids[0]}`)).body.data.status === "completed" ? true : null), "the leader never completed");

    await dash.page.goto(`${server.base}/workflow-runs/${ids[0]}?env=production`);
    await pageShown(dash.page, "Workflow run");
    const rows = dash.page.locator("table.step-results tbody tr");
    expect(await textOf(rows.nth(0).locator(".digest-members"))).toContain("Leader of a digest of 3 events");
    const members = rows.nth(0).getByRole("list", { name: "Runs merged into this digest" }).getByRole("link");
    expect(await members.count()).toBe(2);
    expect(await members.nth(0).getAttribute("href")).toBe(`/workflow-runs/${ids[1]}?env=production`);
    expect(await rows.nth(1).getByRole("link", { name: "Notification of step 2" }).count()).toBe(1);
    await dash.screenshot("dashboard-workflow-run-digest-leader");

    await members.nth(0).click();
    await dash.page.waitForURL(new RegExp(`/workflow-runs/${ids[1]}\\?`), { timeout: WAIT_MS });
    await pageShown(dash.page, "Workflow run");
    const first = dash.page.locator("table.step-results tbody tr").nth(0);
    expect(await textOf(first.locator(".badge").nth(1))).toBe("merged");
    expect(await textOf(first.locator(".digest-link"))).toContain("Merged into the digest of");
    expect(await first.getByRole("link", { name: `run …${ids[0]!.slice(-8)}` }).getAttribute("href")).toBe(`/workflow-runs/${ids[0]}?env=production`);
    await dash.screenshot("dashboard-workflow-run-digest-member");
  }, TEST_MS);

  test("no page logged a console error (the editor's one 422 aside)", () => {
    expect(dash.consoleErrors.filter((e) => !/Failed to load resource: the server responded with a status of 422/.test(e))).toEqual([]);
  });
});
