// The dashboard's workflows, webhooks and sending-domains pages in a real browser (Debian's chromium)
// against an API process, a channel sender, a workflow-run host, a webhook dispatcher, a local
// receiver and a local DNS server: the step editor with a 422 on the right step, a run followed to
// its end, a cancel (and a stale one's 409), a test event, retry and replay, a domain verified, a
// suppression lifted.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { Subprocess } from "bun";
import type { Page } from "playwright-core";
import { sql } from "../../store/db";
import { addSuppression } from "../../store/suppressions";
import { startBrowser, type TestBrowser, type TestPage } from "../support/browser";
import { eventually, navTo, pageShown, signInWithKey, startDashboardServer, TEST_MS, textOf, WAIT_MS, type DashboardServer } from "../support/dashboard-session";
import { chunked, startFakeDns, type FakeDns } from "../support/fake-dns";
import { spawnUntilReady } from "../support/spawn-ready";
import { deleteTenants } from "../support/tenant-cleanup";
import { startReceiver, type Receiver } from "../support/webhook-receiver";
import { startDeliveryHost } from "../integration/delivery-support";

const root = join(import.meta.dir, "..", "..");
const BUN = join(root, "node_modules", ".bin", "bun");
const run = crypto.randomUUID().slice(0, 8);
const EMAIL = `owner-${run}@orchestration-${run}.com`;
const SLUG = `onboarding-${run}`;
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;

let server: DashboardServer;
let dns: FakeDns;
let receiver: Receiver;
/** What the receiver answers: 500 while down (deliveries fail), 200 once up. */
let receiverUp = false;
let delivery: Awaited<ReturnType<typeof startDeliveryHost>>;
const workers: Subprocess[] = [];
let browser: TestBrowser;
let dash: TestPage;
let tenantId: string | undefined;
let key: string;
let webhookId: string;
/** The first run (completed) and the workflow's first version. */
let firstRunId: string;
let firstVersionId: string;

const apiCall = (method: string, path: string, body?: unknown) => server.apiCall(method, path, key, body);
const nav = (name: string, title: string | RegExp = name) => navTo(dash.page, name, title);

/** A call made by the signed-in page itself (session cookie, same origin): how the test gets its first key. */

/** Waits until the first element matching `selector` reads `text` (trimmed). */
async function untilText(p: Page, selector: string, text: string): Promise<void> {
  await p.waitForFunction(([s, t]) => document.querySelector(s!)?.textContent?.trim() === t, [selector, text] as const, { timeout: WAIT_MS });
}

const idOf = (url: string, prefix: string) => new URL(url).pathname.slice(prefix.length);

beforeAll(async () => {
  dns = await startFakeDns();
  receiver = startReceiver(() => (receiverUp ? new Response("ok") : new Response("receiver down", { status: 500 })));
  server = await startDashboardServer({ WEBHOOK_ALLOW_PRIVATE: "true", DNS_SERVERS: dns.server });
  delivery = await startDeliveryHost(0.001);
  // a delay of 30m lasts 1.8 s, one of 2d about 3 minutes (the cancel happens during it)
  workers.push(
    await spawnUntilReady([BUN, join(root, "test/support/workflow-run-worker.ts")], {
      cwd: root,
      env: { ...process.env, WF_HOST_ID: `wf-${run}`, WF_TIME_SCALE: "0.001", LOG_LEVEL: "error" },
      ready: `ready wf-${run}`,
    }),
  );
  // TIME_SCALE 1: a failed delivery's automatic retry is 5 minutes away, so the page's Retry is what sends it
  workers.push(
    await spawnUntilReady([BUN, join(root, "test/support/webhook-dispatcher-worker.ts")], {
      cwd: root,
      env: { ...process.env, RT_HOST_ID: `wh-${run}`, WEBHOOK_ALLOW_PRIVATE: "true", TIME_SCALE: "1", LOG_LEVEL: "error" },
      ready: `ready wh-${run}`,
    }),
  );
  browser = await startBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  for (const w of workers) w.kill("SIGTERM");
  await Promise.all(workers.map((w) => Promise.race([w.exited, Bun.sleep(5_000).then(() => w.kill("SIGKILL"))])));
  await Promise.all(workers.map((w) => w.exited)); // gone before the file ends, after the SIGKILL too
  await delivery?.stop(); // deletes the run's Redis keys, the workers' included
  await server?.stop();
  await receiver?.stop();
  await dns?.stop();
  if (tenantId) await deleteTenants([tenantId]);
});

describe("set-up", () => {
  test("signs in by magic link; a key, two templates and the email channel through the API", async () => {
    dash = await browser.newPage();
    ({ tenantId, key } = await signInWithKey(dash.page, server, EMAIL, `e2e-${run}`));
    for (const [slug, subject] of [[`wf-first-${run}`, "Welcome {{ name }}"], [`wf-second-${run}`, "Still there, {{ name }}?"]]) {
      const t = await apiCall("POST", "/v1/templates", { slug, name: slug, channel: "email", content: "Hello {{ name }}", variants: { subject }, status: "active" });
      expect([slug, t.status]).toEqual([slug, 201]);
    }
    const channel = await apiCall("POST", "/v1/channels", {
      channel: "email",
      provider: "smtp",
      credentials: {},
      settings: { host: "127.0.0.1", port: server.smtp.port, secure: false, from_email: `no-reply@orchestration-${run}.com` },
    });
    expect(channel.status).toBe(201);
  }, TEST_MS);
});

describe("signed in", () => {
  test("the new pages load with their empty states and the heading focused", async () => {
    const pages: [string, string, string][] = [
      ["Workflows", "Workflows", "No workflows yet"],
      ["Domains", "Sending domains", "No sending domains yet"],
      ["Webhooks", "Webhooks", "No webhook endpoints yet"],
      ["Suppressions", "Suppressions", "No suppressed addresses"],
    ];
    for (const [link, title, empty] of pages) {
      await nav(link, title);
      expect(await dash.page.evaluate(() => document.activeElement?.id)).toBe("page-title");
      expect(await dash.page.title()).toBe(`${title} · NMS`);
      expect(await textOf(dash.page.locator(".empty-title"))).toBe(empty);
      await dash.screenshot(`dashboard-${title.toLowerCase().replace(/\s+/g, "-")}-empty`);
    }
    expect(new URL(dash.page.url()).pathname).toBe("/suppressions");
    await nav("Workflows");
    await dash.page.getByRole("link", { name: "All runs" }).click();
    await pageShown(dash.page, "Workflow runs");
    expect(await textOf(dash.page.locator(".empty-title"))).toBe("No runs yet");
    // the runs belong to the workflows section
    expect(await textOf(dash.page.locator("nav a[aria-current=page]"))).toBe("Workflows");
    await dash.screenshot("dashboard-workflow-runs-empty");
  }, TEST_MS);

  test("webhooks: add an endpoint (its secret shown once), test events fail then succeed, disable and enable", async () => {
    await nav("Webhooks");
    await dash.page.getByLabel("URL", { exact: true }).fill(receiver.url);
    await dash.page.getByRole("checkbox", { name: /workflow\.completed/ }).check();
    await dash.page.getByLabel("Description (optional)").fill(`e2e receiver ${run}`);
    await dash.page.getByRole("button", { name: "Add endpoint" }).click();
    const shown = dash.page.locator(".shown-once");
    await shown.waitFor({ timeout: WAIT_MS });
    expect(await shown.getByRole("textbox", { name: "Signing secret" }).inputValue()).toMatch(/^whsec_/);
    await shown.getByRole("button", { name: "Copy the Signing secret" }).click();
    expect(await textOf(shown.locator(".copy-status"))).toMatch(/Copied|select the value/);
    await dash.screenshot("dashboard-webhooks-secret-shown-once");
    await dash.page.getByRole("button", { name: "I have copied it" }).click();
    const listed = await apiCall("GET", "/v1/webhooks");
    expect(listed.body.data).toEqual([expect.objectContaining({ url: receiver.url, events: ["workflow.completed"], active: true, description: `e2e receiver ${run}` })]);
    webhookId = listed.body.data[0].id;

    await dash.page.getByRole("link", { name: receiver.url }).click();
    await pageShown(dash.page, "Webhook endpoint");
    expect(new URL(dash.page.url()).pathname).toBe(`/webhook-endpoints/${webhookId}`);
    expect(await textOf(dash.page.locator(".empty-title"))).toBe("No deliveries yet");

    // the receiver is down: the test event's outcome and its delivery say so
    await dash.page.getByRole("button", { name: "Send test event" }).click();
    expect(await textOf(dash.page.locator(".test-result"))).toContain("The receiver answered HTTP 500");
    const failed = dash.page.locator('tr[data-event-type="notification.test"][data-status="failed"]');
    await failed.waitFor({ timeout: WAIT_MS });
    expect(await failed.locator(".response-status").textContent()).toBe("HTTP 500");
    expect(await failed.getByRole("button", { name: /Retry/ }).count()).toBe(0); // the API does not retry test deliveries
    receiverUp = true;
    await dash.page.getByRole("button", { name: "Send test event" }).click();
    await dash.page.locator(".test-result", { hasText: "HTTP 200" }).waitFor({ timeout: WAIT_MS });
    await dash.page.locator('tr[data-event-type="notification.test"][data-status="success"]').waitFor({ timeout: WAIT_MS });
    expect(receiver.received.filter((r) => r.json?.type === "notification.test" && r.headers["webhook-signature"]).length).toBe(2);
    await dash.screenshot("dashboard-webhook-endpoint");
    receiverUp = false; // the workflow events below fail first, for the retry

    await dash.page.getByRole("button", { name: "Disable" }).click();
    await dash.page.locator(".form-status", { hasText: "Disabled: nothing is delivered" }).waitFor({ timeout: WAIT_MS });
    expect((await apiCall("GET", `/v1/webhooks/${webhookId}`)).body.data.active).toBe(false);
    await dash.page.getByRole("button", { name: "Enable" }).click();
    await dash.page.locator(".form-status", { hasText: "Enabled: new events are delivered again" }).waitFor({ timeout: WAIT_MS });
    expect((await apiCall("GET", `/v1/webhooks/${webhookId}`)).body.data.active).toBe(true);
  }, TEST_MS);

  test("a workflow: the step editor shows the API's 422 on the right step, then creates send, delay, send", async () => {
    await nav("Workflows");
    await dash.page.getByRole("link", { name: "New workflow" }).click();
    await pageShown(dash.page, "New workflow");
    await dash.page.getByLabel("Slug").fill(SLUG);
    await dash.page.getByLabel("Name", { exact: true }).fill("Onboarding");
    const step = (n: number) => dash.page.getByRole("group", { name: `Step ${n}`, exact: true });
    await step(1).getByLabel("Template").fill(`wf-first-${run}`);
    await dash.page.getByRole("button", { name: "Add step" }).click();
    await step(2).getByLabel("Type").selectOption("delay");
    await step(2).getByLabel("Duration").fill("90x");
    await dash.page.getByRole("button", { name: "Add step" }).click();
    await step(3).getByLabel("Template").fill(`wf-second-${run}`);
    // by keyboard: the last step moves up and back down, keeping what was typed
    await dash.page.getByRole("button", { name: "Move step 3 up" }).focus();
    await dash.page.keyboard.press("Enter");
    expect(await step(2).getByLabel("Template").inputValue()).toBe(`wf-second-${run}`);
    expect(await step(3).getByLabel("Duration").inputValue()).toBe("90x");
    await dash.page.getByRole("button", { name: "Move step 2 down" }).focus();
    await dash.page.keyboard.press("Enter");
    expect(await step(3).getByLabel("Template").inputValue()).toBe(`wf-second-${run}`);
    await dash.page.getByRole("button", { name: "Create workflow" }).click();

    const notice = dash.page.getByRole("alert").filter({ hasText: "Not created" });
    expect(await textOf(notice.locator(".error-message"))).toBeTruthy();
    expect(await textOf(notice.locator(".error-code"))).toContain("validation_failed · HTTP 422");
    // the message sits under step 2's duration, tied to it, and nowhere else
    expect(await textOf(step(2).locator("#step-1-duration-error"))).toContain("must be <N>m, <N>h or <N>d");
    expect(await step(2).getByLabel("Duration").getAttribute("aria-describedby")).toContain("step-1-duration-error");
    expect(await step(1).locator(".field-error").count()).toBe(0);
    expect(await step(3).locator(".field-error").count()).toBe(0);
    await dash.screenshot("dashboard-workflow-invalid-step");

    await step(2).getByLabel("Duration").fill("30m");
    await dash.page.getByRole("button", { name: "Create workflow" }).click();
    await dash.page.waitForURL(new RegExp(`/workflows/${UUID.source}\\?env=production$`), { timeout: WAIT_MS });
    await pageShown(dash.page, "Workflow");
    firstVersionId = idOf(dash.page.url(), "/workflows/");
    expect(await textOf(dash.page.locator(".flash"))).toBe("Workflow created (version 1, active).");
    expect(await dash.page.locator(".step-summary li").allTextContents()).toEqual([`Send by Email with wf-first-${run}`, "Wait 30m", `Send by Email with wf-second-${run}`]);
    const stored = await apiCall("GET", `/v1/workflows/${firstVersionId}`);
    expect(stored.body.data).toMatchObject({
      slug: SLUG,
      version: 1,
      active: true,
      steps: [
        { type: "send", channel: "email", template: `wf-first-${run}` },
        { type: "delay", duration: "30m" },
        { type: "send", channel: "email", template: `wf-second-${run}` },
      ],
    });
    await dash.screenshot("dashboard-workflow");
  }, TEST_MS);

  test("trigger it and follow the run on its page until completed, its notifications linked", async () => {
    const to = `ana-${run}@example.com`;
    await dash.page.getByLabel("Recipient").fill(to);
    await dash.page.getByLabel("Data (JSON)").fill('{"name": "Ana"}');
    await dash.page.getByRole("button", { name: "Trigger a run" }).click();
    await dash.page.waitForURL(new RegExp(`/workflow-runs/${UUID.source}\\?`), { timeout: WAIT_MS });
    await pageShown(dash.page, "Workflow run");
    firstRunId = idOf(dash.page.url(), "/workflow-runs/");
    expect(await textOf(dash.page.locator(".flash"))).toBe(`Run started for ${to}.`);
    await dash.page.evaluate(() => ((window as any).notReloaded = true));
    // the page asks again every 2 s while the run is running: the delay ends and the last send runs
    await untilText(dash.page, ".run-status .badge", "completed");
    expect(await dash.page.evaluate(() => (window as any).notReloaded)).toBe(true);

    const rows = dash.page.locator("table.step-results tbody tr");
    expect(await rows.count()).toBe(3);
    // the last send's notification may still be pending when the run completes: the page follows it
    await untilText(dash.page, 'tr[data-step="2"] td:nth-child(3) .badge', "sent");
    // a send step shows its notification's status now (SMTP ends at sent), and says it enqueued it
    expect(await textOf(rows.nth(0).locator(".badge").nth(1))).toBe("sent");
    expect(await textOf(rows.nth(0).locator(".step-own-status"))).toBe("step enqueued it; the notification is sent");
    expect(await textOf(rows.nth(1).locator(".badge").nth(1))).toBe("completed");
    expect(await rows.nth(1).textContent()).toContain("30m · resumes");
    expect(await textOf(rows.nth(2).locator(".badge").nth(1))).toBe("sent");
    const stored = (await apiCall("GET", `/v1/workflow-runs/${firstRunId}`)).body.data;
    expect(stored.status).toBe("completed");
    for (const [i, n] of [[0, 1], [2, 3]] as const) {
      const href = await rows.nth(i).getByRole("link", { name: `Notification of step ${n}` }).getAttribute("href");
      expect(href).toBe(`/notifications/${stored.step_results[i].notification_id}?env=production`);
    }
    await dash.screenshot("dashboard-workflow-run-completed");

    await rows.nth(0).getByRole("link", { name: "Notification of step 1" }).click();
    await pageShown(dash.page, "Notification");
    await untilText(dash.page, ".facts .badge", "sent");
    expect(await dash.page.locator(".facts").textContent()).toContain(to);
    await dash.page.goBack();
    await pageShown(dash.page, "Workflow run");
    const mails = await eventually(async () => {
      const got = server.smtp.messages.filter((m) => m.rcptTo.includes(to));
      return got.length >= 2 ? got : null;
    }, "the run's two mails never arrived");
    expect(mails.map((m) => m.header("subject")).sort()).toEqual(["Still there, Ana?", "Welcome Ana"]);
  }, TEST_MS);

  test("a new version (edit), a run cancelled during its delay; the old version stays readable; runs filtered", async () => {
    await dash.page.getByRole("link", { name: `${SLUG} version 1` }).click();
    await pageShown(dash.page, "Workflow");
    await dash.page.getByRole("link", { name: "Edit", exact: true }).click();
    await pageShown(dash.page, "Edit workflow");
    await dash.page.getByLabel("Name", { exact: true }).fill("Onboarding, slower");
    await dash.page.getByRole("group", { name: "Step 2", exact: true }).getByLabel("Duration").fill("2d");
    await dash.page.getByRole("button", { name: "Save as version 2" }).click();
    await dash.page.waitForFunction((first) => !location.pathname.includes(first) && /^\/workflows\/[0-9a-f-]{36}$/.test(location.pathname), firstVersionId, { timeout: WAIT_MS });
    await pageShown(dash.page, "Workflow");
    expect(await textOf(dash.page.locator(".flash"))).toContain("Saved as version 2");
    const versions = dash.page.locator("table.versions tbody tr");
    await versions.nth(1).waitFor({ timeout: WAIT_MS });
    expect(await versions.count()).toBe(2);

    await dash.page.getByLabel("Recipient").fill(`bob-${run}@example.com`);
    await dash.page.getByRole("button", { name: "Trigger a run" }).click();
    await pageShown(dash.page, "Workflow run");
    const runId = idOf(dash.page.url(), "/workflow-runs/");
    // the delay has started once its row says when the run resumes
    await dash.page.locator('tr[data-step="1"]', { hasText: "2d · resumes" }).waitFor({ timeout: WAIT_MS });
    await dash.page.getByRole("button", { name: "Cancel run" }).click();
    const dialog = dash.page.getByRole("dialog", { name: "Cancel this run?" });
    await dialog.waitFor({ timeout: WAIT_MS });
    expect(await dash.page.evaluate(() => document.activeElement?.textContent)).toBe("Keep it running");
    await dialog.getByRole("button", { name: "Cancel run" }).click();
    await untilText(dash.page, ".run-status .badge", "cancelled");
    expect(await textOf(dash.page.locator('tr[data-step="2"] td').nth(2))).toBe("not run");
    const cancelled = (await apiCall("GET", `/v1/workflow-runs/${runId}`)).body.data;
    expect(cancelled).toMatchObject({ status: "cancelled", workflow_version: 2, current_step: 1 });
    expect(cancelled.completed_at).not.toBeNull();
    await dash.screenshot("dashboard-workflow-run-cancelled");

    // version 1 is readable at its own URL, no longer triggerable
    await dash.page.goto(`${server.base}/workflows/${firstVersionId}?env=production`);
    await pageShown(dash.page, "Workflow");
    expect(await textOf(dash.page.locator(".notice"))).toContain("no longer active");
    expect(await dash.page.getByRole("button", { name: "Trigger a run" }).count()).toBe(0);
    expect(await dash.page.getByRole("link", { name: "Edit", exact: true }).count()).toBe(0);
    await dash.page.getByRole("link", { name: "Runs of version 1" }).click();
    await pageShown(dash.page, "Workflow runs");
    expect(await dash.page.locator("table.runs tbody tr").count()).toBe(1);
    expect(await dash.page.locator(`tr[data-id="${firstRunId}"]`).count()).toBe(1);
    await dash.page.getByRole("button", { name: "Show every workflow's runs" }).click();
    await dash.page.locator(`tr[data-id="${runId}"]`).waitFor({ timeout: WAIT_MS });
    await dash.page.getByLabel("Status").selectOption("cancelled");
    await dash.page.waitForURL(/status=cancelled/, { timeout: WAIT_MS });
    await dash.page.locator(`tr[data-id="${firstRunId}"]`).waitFor({ state: "detached", timeout: WAIT_MS });
    expect(await dash.page.locator("table.runs tbody tr").count()).toBe(1);
    await dash.screenshot("dashboard-workflow-runs");
  }, TEST_MS);

  test("webhooks: the runs' workflow.completed events failed; Retry now delivers one once the receiver is up; replay sends the rest", async () => {
    await nav("Webhooks");
    await dash.page.getByRole("link", { name: receiver.url }).click();
    await pageShown(dash.page, "Webhook endpoint");
    // the list asks again every few seconds: the dispatcher's failed attempts appear
    const failed = dash.page.locator('tr[data-event-type="workflow.completed"][data-status="failed"]');
    // both runs' events (the completed one and the cancelled one) were attempted
    await eventually(async () => ((await failed.count()) >= 2 ? true : null), "the runs' workflow.completed deliveries never showed as failed");
    expect(await failed.first().locator(".response-status").textContent()).toBe("HTTP 500");
    expect(await failed.first().locator("time").count()).toBe(2); // next retry and created
    await dash.screenshot("dashboard-webhook-deliveries-failed");

    receiverUp = true;
    const before = receiver.received.filter((r) => r.json?.type === "workflow.completed").length;
    await failed.first().getByRole("button", { name: /^Retry the workflow.completed delivery/ }).click();
    await dash.page.locator('tr[data-event-type="workflow.completed"][data-status="success"]').first().waitFor({ timeout: WAIT_MS });
    expect(receiver.received.filter((r) => r.json?.type === "workflow.completed").length).toBeGreaterThan(before);
    // the failed attempt now points at the one that replaced it, and offers no retry
    const replaced = dash.page.locator('tr[data-event-type="workflow.completed"][data-status="failed"]', { hasText: "replaced by attempt 2 (success)" });
    await replaced.waitFor({ timeout: WAIT_MS });
    expect(await replaced.getByRole("button", { name: /Retry/ }).count()).toBe(0);

    // replay: the events of the last hour the endpoint has not acknowledged go out once more
    await dash.page.getByRole("button", { name: "Replay", exact: true }).click();
    const said = await textOf(dash.page.locator(".replay-result"));
    const queued = Number(/^(\d+) events? queued/.exec(said)?.[1]);
    expect(queued).toBeGreaterThanOrEqual(1); // the cancelled runs' events
    await eventually(async () => {
      const acked = (await apiCall("GET", `/v1/webhooks/${webhookId}/deliveries?status=success&limit=100`)).body.data;
      return acked.filter((d: any) => d.event_type === "workflow.completed").length >= 1 + queued ? acked : null;
    }, "the replayed events were not delivered");
    await dash.screenshot("dashboard-webhook-deliveries");

    await dash.page.getByRole("button", { name: "Delete", exact: true }).click();
    await dash.page.getByRole("dialog", { name: `Delete the endpoint ${receiver.url}?` }).getByRole("button", { name: "Delete endpoint" }).click();
    await pageShown(dash.page, "Webhooks");
    expect(await textOf(dash.page.locator(".flash"))).toBe(`Endpoint ${receiver.url} deleted.`);
    expect(await textOf(dash.page.locator(".empty-title"))).toBe("No webhook endpoints yet");
    expect((await apiCall("GET", "/v1/webhooks")).body.data).toEqual([]);
  }, TEST_MS);

  test("a sending domain: its records with copy buttons, Verify fails saying why, then passes record by record; removed", async () => {
    const name = `mail.acme-${run}.com`;
    await nav("Domains", "Sending domains");
    await dash.page.getByLabel("Domain", { exact: true }).fill(name);
    await dash.page.getByRole("button", { name: "Add domain" }).click();
    await pageShown(dash.page, "Sending domain");
    expect(await textOf(dash.page.locator(".flash"))).toContain(`${name} added`);
    const id = idOf(dash.page.url(), "/domains/");
    const records = dash.page.locator("table.dns-records tbody tr");
    expect(await records.count()).toBe(4);
    for (const r of ["Ownership", "SPF", "DKIM", "DMARC"]) {
      for (const part of ["host", "value"]) expect(await dash.page.getByRole("button", { name: `Copy the ${part} of the ${r} record` }).count()).toBe(1);
    }
    const copyDkim = dash.page.getByRole("button", { name: "Copy the value of the DKIM record" });
    await copyDkim.click();
    expect(await textOf(dash.page.locator('tr[data-record="dkim"] .dns-text .copy-status'))).toMatch(/Copied|select the value/);
    // the 2048-bit DKIM key sits on one line in a box that scrolls sideways, not in a 40-line cell
    const dkimBox = dash.page.locator('tr[data-record="dkim"] .dns-text .copy-box');
    const box = await dkimBox.evaluate((e) => ({ height: e.getBoundingClientRect().height, scroll: e.scrollWidth, width: e.clientWidth, text: e.textContent }));
    expect(box.height).toBeLessThan(60);
    expect(box.scroll).toBeGreaterThan(box.width);
    expect(box.text).toContain("v=DKIM1");
    expect(await textOf(dash.page.locator('tr[data-record="txt"] .dns-result .badge'))).toBe("not verified yet");
    expect(await dash.page.locator('tr[data-record="txt"] .dns-result .badge').getAttribute("class")).not.toContain("tone-good");

    // nothing published yet: the ownership row says what was looked for
    await dash.page.getByRole("button", { name: "Verify", exact: true }).click();
    expect(await textOf(dash.page.locator(".form-status"))).toContain("Not verified yet");
    // a failed verification is not good news: red, not green
    expect(await dash.page.locator(".form-status").evaluate((e) => getComputedStyle(e).color)).toBe("rgb(194, 54, 43)");
    const pending = (await apiCall("GET", `/v1/domains/${id}`)).body.data;
    expect(pending.status).toBe("pending");
    expect(await textOf(dash.page.locator('tr[data-record="txt"] .dns-result .field-error'))).toBe(pending.verification_error);
    expect(pending.verification_error).toContain(`no TXT record found at _nms-verify.${name}`);
    await dash.screenshot("dashboard-domain-not-verified");

    const r = pending.dns_records;
    for (const k of ["txt", "spf", "dmarc"]) dns.setTxt(r[k].name, r[k].value);
    dns.setTxt(r.dkim.name, chunked(r.dkim.value));
    await dash.page.getByRole("button", { name: "Verify", exact: true }).click();
    await untilText(dash.page, ".facts .badge", "verified");
    expect(await textOf(dash.page.locator('tr[data-record="txt"] .dns-result .badge'))).toBe("verified");
    for (const k of ["spf", "dkim", "dmarc"]) expect([k, await textOf(dash.page.locator(`tr[data-record="${k}"] .dns-result .badge`))]).toEqual([k, "pass"]);
    const verified = (await apiCall("GET", `/v1/domains/${id}`)).body.data;
    expect(verified).toMatchObject({ status: "verified", health: { spf: { status: "pass" }, dkim: { status: "pass" }, dmarc: { status: "pass" } } });
    expect(await textOf(dash.page.locator(".empty-title"))).toBe("No alerts");
    await dash.screenshot("dashboard-domain-verified");

    await dash.page.getByRole("link", { name: "All domains" }).click();
    await pageShown(dash.page, "Sending domains");
    expect(await dash.page.locator(`tr[data-domain="${name}"] .badge`).allTextContents()).toEqual(["verified", "pass", "pass", "pass"]);
    await dash.screenshot("dashboard-domains");
    await dash.page.getByRole("link", { name }).click();
    await pageShown(dash.page, "Sending domain");
    await dash.page.getByRole("button", { name: "Remove domain" }).click();
    await dash.page.getByRole("dialog", { name: `Remove ${name}?` }).getByRole("button", { name: "Remove domain" }).click();
    await pageShown(dash.page, "Sending domains");
    expect(await textOf(dash.page.locator(".flash"))).toBe(`${name} removed.`);
    expect((await apiCall("GET", "/v1/domains")).body.data).toEqual([]);
  }, TEST_MS);

  test("suppressions: a listed address, found by reason, lifted behind a confirmation", async () => {
    // a hard bounce lists an address through a provider's callback; the test lists one directly
    const address = `gone-${run}@example.com`;
    await addSuppression(sql, { tenantId: tenantId!, environment: "production", address, channel: "email", reason: "bounced", notificationId: null });
    await nav("Suppressions");
    await dash.page.getByLabel("Reason").selectOption("bounced");
    await dash.page.waitForURL(/reason=bounced/, { timeout: WAIT_MS });
    const row = dash.page.locator("table.suppressions tbody tr", { hasText: address });
    await row.waitFor({ timeout: WAIT_MS });
    expect(await row.textContent()).toContain("Hard bounce");
    await dash.screenshot("dashboard-suppressions");
    await row.getByRole("button", { name: "Lift" }).click();
    await dash.page.getByRole("dialog", { name: `Send to ${address} again?` }).getByRole("button", { name: "Lift suppression" }).click();
    expect(await textOf(dash.page.locator(".empty-title"))).toBe("No suppression matches these filters");
    expect((await apiCall("GET", "/v1/suppressions")).body.data).toEqual([]);
  }, TEST_MS);

  test("no new page logged a console error (the step editor's one 422 aside, which the browser logs)", () => {
    expect(dash.consoleErrors.filter((e) => !/Failed to load resource: the server responded with a status of 422/.test(e))).toEqual([]);
    expect(dash.consoleErrors.length).toBe(1);
  });
});

describe("errors show the API's message", () => {
  test("Cancel on a run that ended meanwhile shows the API's 409; an unknown run its 404", async () => {
    const missing = await browser.newPage();
    const unknown = crypto.randomUUID();
    const notFound = await apiCall("GET", `/v1/workflow-runs/${unknown}`);
    expect(notFound.status).toBe(404);
    await missing.page.goto(`${server.base}/workflow-runs/${unknown}?env=production`);
    await pageShown(missing.page, "Workflow run");
    expect(await textOf(missing.page.getByRole("alert").locator(".error-message"))).toBe(notFound.body.error.message);
    expect(await textOf(missing.page.getByRole("alert").locator(".error-code"))).toContain(`${notFound.body.error.code} · HTTP 404`);
    await missing.screenshot("dashboard-workflow-run-not-found");

    // a page that still shows the run running: its clock is stopped, so it does not ask again
    const stale = await browser.newPage();
    await stale.page.clock.install();
    const started = await apiCall("POST", `/v1/workflows/${SLUG}/trigger`, { recipient: `carla-${run}@example.com`, data: { name: "Carla" } });
    expect(started.status).toBe(202);
    await stale.page.goto(`${server.base}/workflow-runs/${started.body.data.id}?env=production`);
    await pageShown(stale.page, "Workflow run");
    await stale.page.getByRole("button", { name: "Cancel run" }).waitFor({ timeout: WAIT_MS });
    await stale.page.clock.pauseAt((await stale.page.evaluate(() => Date.now())) + 1_000);
    expect((await apiCall("POST", `/v1/workflow-runs/${started.body.data.id}/cancel`)).status).toBe(200);
    const refused = await apiCall("POST", `/v1/workflow-runs/${started.body.data.id}/cancel`);
    expect([refused.status, refused.body.error.code]).toEqual([409, "run_not_cancellable"]);

    await stale.page.getByRole("button", { name: "Cancel run" }).click();
    await stale.page.getByRole("dialog", { name: "Cancel this run?" }).getByRole("button", { name: "Cancel run" }).click();
    const alert = stale.page.getByRole("alert").filter({ hasText: "Not cancelled" });
    expect(await textOf(alert.locator(".error-message"))).toBe(refused.body.error.message);
    expect(await textOf(alert.locator(".error-code"))).toContain("run_not_cancellable · HTTP 409");
    // and the page shows where the run is now
    await untilText(stale.page, ".run-status .badge", "cancelled");
    await stale.screenshot("dashboard-workflow-run-not-cancellable");
    for (const t of [missing, stale]) {
      expect(t.consoleErrors.every((e) => /Failed to load resource: the server responded with a status of (404|409)/.test(e))).toBe(true);
      await t.page.close();
    }
  }, TEST_MS);
});
