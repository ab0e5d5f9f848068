// The dashboard's Topics and Delivery settings pages in a real browser (Debian's chromium) against an
// API process and a broadcast worker (issue 22): a topic created, members added and removed by
// external id (added/already/not found shown), a trigger to the topic followed to its completed
// broadcast, the delivery policy refused with the field's error and then saved.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { sql } from "../../store/db";
import { startBrowser, type TestBrowser, type TestPage } from "../support/browser";
import { eventually, navTo, pageShown, signInWithKey, startDashboardServer, TEST_MS, textOf, WAIT_MS, type DashboardServer } from "../support/dashboard-session";
import { spawnUntilReady } from "../support/spawn-ready";
import { deleteTenants } from "../support/tenant-cleanup";

const root = join(import.meta.dir, "..", "..");
const BUN = join(root, "node_modules", ".bin", "bun");
const run = crypto.randomUUID().slice(0, 8);
const EMAIL = `owner-${run}@audiences-${run}.com`;
const TOPIC = `plan:pro-${run}`;

let server: DashboardServer;
let browser: TestBrowser;
let dash: TestPage;
let worker: Subprocess | undefined;
let tenantId: string | undefined;
let key: string;
const apiCall = (method: string, path: string, body?: unknown) => server.apiCall(method, path, key, body);


beforeAll(async () => {
  server = await startDashboardServer();
  worker = await spawnUntilReady([BUN, join(root, "test/support/broadcast-worker.ts")], {
    cwd: root,
    env: { ...process.env, BC_HOST_ID: `bc-${run}`, LOG_LEVEL: "error" },
    ready: `ready bc-${run}`,
  });
  browser = await startBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  if (worker) {
    worker.kill("SIGTERM");
    await Promise.race([worker.exited, Bun.sleep(5_000).then(() => worker!.kill("SIGKILL"))]);
    await worker.exited;
  }
  await server?.stop();
  if (tenantId) {
    await sql`delete from workflow_runs where tenant_id = ${tenantId}`;
    await deleteTenants([tenantId]);
  }
});

describe("topics", () => {
  test("signs in; a topic created, members added and removed by external id, a broadcast followed to completed", async () => {
    dash = await browser.newPage();
    ({ tenantId, key } = await signInWithKey(dash.page, server, EMAIL, `e2e-${run}`));
    for (const id of ["ana", "bo"]) expect((await apiCall("POST", "/v1/subscribers", { external_id: `${id}-${run}` })).status).toBe(201);
    expect((await apiCall("POST", "/v1/workflows", { slug: `news-${run}`, name: "News", steps: [{ type: "send", channel: "in_app", template: "news" }] })).status).toBe(201);

    const p = dash.page;
    await navTo(p, "Topics");
    await p.getByLabel("Key").fill(TOPIC);
    await p.getByLabel("Name").fill("Pro customers");
    await p.getByRole("button", { name: "Create topic" }).click();
    await pageShown(p, `Topic ${TOPIC}`);

    await p.getByLabel("External ids").fill(`ana-${run}, bo-${run}\nghost-${run}`);
    await p.getByRole("button", { name: "Add members" }).click();
    expect(await textOf(p.getByRole("status").filter({ hasText: "added" }))).toBe(`2 added, 0 already members, not found: ghost-${run}.`);
    await p.waitForFunction(() => document.querySelector("[data-testid=member-count]")?.textContent === "2", null, { timeout: WAIT_MS });
    // the member list is a request of its own, answered after the count: wait for its rows
    await p.waitForFunction(
      (ids) => ids.every((id) => [...document.querySelectorAll("table.topic-members code")].some((c) => c.textContent === id)),
      [`ana-${run}`, `bo-${run}`],
      { timeout: WAIT_MS },
    );
    expect(await p.locator("table.topic-members code").allTextContents()).toEqual(expect.arrayContaining([`ana-${run}`, `bo-${run}`]));

    await p.getByLabel("External ids").fill(`bo-${run}`);
    await p.getByRole("button", { name: "Remove members" }).click();
    expect(await textOf(p.getByRole("status").filter({ hasText: "removed" }))).toBe("1 removed, 0 were not members.");
    await eventually(async () => ((await apiCall("GET", `/v1/topics/${TOPIC}`)).body.data.subscriber_count === 1 ? true : null));

    await p.getByLabel("Workflow slug").fill(`news-${run}`);
    await p.getByRole("button", { name: "Send to every member" }).click();
    await pageShown(p, "Broadcast");
    await p.waitForFunction(() => document.querySelector("[data-testid=broadcast-status]")?.textContent === "completed", null, { timeout: WAIT_MS });
    expect(await textOf(p.locator("[data-testid=broadcast-runs]"))).toBe("1 of 1");
    const id = new URL(p.url()).pathname.slice("/broadcasts/".length);
    expect((await apiCall("GET", `/v1/broadcasts/${id}`)).body.data).toMatchObject({ status: "completed", runs_created: 1, topic: TOPIC });
  }, TEST_MS * 2);
});

describe("delivery settings", () => {
  test("a bad time zone is refused beside its field; a policy with quiet hours and a cap is saved", async () => {
    const p = dash.page;
    await navTo(p, "Delivery settings");
    await p.getByLabel("Time zone").fill("Mars/Olympus");
    await p.getByRole("button", { name: "Save" }).click();
    expect(await textOf(p.locator(".field-error, [id$=-errors]").filter({ hasText: "IANA" }))).toMatch(/IANA time zone/);
    await p.getByLabel("Time zone").fill("America/Sao_Paulo");
    await p.getByLabel("Hold sends during quiet hours").check();
    await p.getByRole("button", { name: "Add a cap" }).click();
    await p.getByLabel("Cap 1 limit").fill("3");
    await p.getByRole("button", { name: "Save" }).click();
    await p.getByRole("status").filter({ hasText: "Saved." }).waitFor({ timeout: WAIT_MS });
    const s = (await apiCall("GET", "/v1/settings/delivery")).body.data;
    expect(s).toMatchObject({
      timezone: "America/Sao_Paulo",
      quiet_hours: { start: "22:00", end: "08:00", channels: ["sms", "push", "whatsapp"] },
      frequency_caps: [{ channel: "push", limit: 3, window: "1h" }],
    });
  }, TEST_MS);
});
