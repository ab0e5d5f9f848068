// The dashboard in a real browser (Debian's chromium) against an API process on APP_URL's default
// origin and a channel sender: sign-in by magic link, every page, the template editor's live
// preview, a channel form, a notification sent through the API followed to its attempts, the
// environment switch, the API's error messages, sign-out. Screenshots land in .nms/screenshots/.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "../../store/db";
import { startBrowser, type TestBrowser, type TestPage } from "../support/browser";
import { eventually, navTo, pageShown, startDashboardServer, textOf, TEST_MS, WAIT_MS, type DashboardServer } from "../support/dashboard-session";
import { deleteTenants } from "../support/tenant-cleanup";
import { startDeliveryHost } from "../integration/delivery-support";

const run = crypto.randomUUID().slice(0, 8);
const EMAIL = `owner-${run}@dashboard-${run}.com`;

let server: DashboardServer;
let delivery: Awaited<ReturnType<typeof startDeliveryHost>>;
let browser: TestBrowser;
/** http://localhost:<port>: APP_URL's default for the process's PORT, so the Origin rule holds as shipped. */
let base: string;
let dash: TestPage;
let tenantId: string | undefined;
let magicLink: string;
let liveKey: string;

const linkMailedTo = (to: string) => server.linkMailedTo(to);
const apiCall = (method: string, path: string, key: string, body?: unknown) => server.apiCall(method, path, key, body);
const nav = (name: string, title: string | RegExp = name) => navTo(dash.page, name, title);

beforeAll(async () => {
  server = await startDashboardServer({ GITHUB_CLIENT_ID: `e2e-${run}`, GITHUB_CLIENT_SECRET: "e2e-secret" });
  base = server.base;
  delivery = await startDeliveryHost();
  browser = await startBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await delivery?.stop();
  await server?.stop();
  if (tenantId) await deleteTenants([tenantId]);
});

describe("sign-in", () => {
  test("by magic link: the sign-in page offers only the configured OAuth provider, the mailed link lands on the overview", async () => {
    const signIn = await browser.newPage();
    await signIn.page.goto(`${base}/`);
    await pageShown(signIn.page, "Sign in to NMS");
    await signIn.page.getByRole("link", { name: "Sign in with GitHub" }).waitFor({ timeout: WAIT_MS });
    expect(await signIn.page.getByRole("link", { name: "Sign in with Google" }).count()).toBe(0);
    expect(await signIn.page.getByRole("link", { name: "Sign in with GitHub" }).getAttribute("href")).toBe(`${base}/auth/github`);
    await signIn.screenshot("dashboard-sign-in");

    await signIn.page.getByLabel("Email address").fill(EMAIL);
    await signIn.page.getByRole("button", { name: "Email me a sign-in link" }).click();
    expect(await textOf(signIn.page.getByRole("status").filter({ hasText: "We sent a sign-in link" }))).toContain(EMAIL);
    magicLink = await linkMailedTo(EMAIL);
    expect(magicLink.startsWith(`${base}/auth/magic-link/verify?token=`)).toBe(true);

    await signIn.page.goto(magicLink);
    await pageShown(signIn.page, "Overview");
    expect(new URL(signIn.page.url()).pathname).toBe("/");
    expect(await textOf(signIn.page.locator(".user-email"))).toBe(EMAIL);
    const [user] = await sql`select tenant_id, role from users where email = ${EMAIL}`;
    tenantId = user!.tenant_id;
    expect(user!.role).toBe("owner");
    expect(signIn.consoleErrors).toEqual([]);
    await signIn.page.close();
  }, TEST_MS);
});

describe("signed in", () => {
  test("every page loads (empty states of a new account) with its heading focused after navigation", async () => {
    dash = await browser.newPage(); // shares the browser's cookie
    await dash.page.goto(`${base}/`);
    await pageShown(dash.page, "Overview");
    // the URL names its environment, so a copied link opens the same data
    expect(new URL(dash.page.url()).searchParams.get("env")).toBe("production");
    expect(await textOf(dash.page.locator(".empty-title"))).toBe("No notifications in this period");
    await dash.screenshot("dashboard-overview-empty");

    const pages: [string, string, string | null][] = [
      ["Notifications", "Notifications", "No notifications yet"],
      ["Templates", "Templates", "No templates yet"],
      ["Subscribers", "Subscribers", "No subscribers yet"],
      ["Channels", "Channels", null],
      ["API keys", "API keys", null],
      ["Audit log", "Audit log", null],
      ["Team", "Team", null],
    ];
    for (const [link, title, empty] of pages) {
      await nav(link, title);
      expect(await dash.page.evaluate(() => document.activeElement?.id)).toBe("page-title");
      expect(await dash.page.title()).toBe(`${title} · NMS`);
      if (empty) expect(await textOf(dash.page.locator(".empty-title"))).toBe(empty);
      await dash.screenshot(`dashboard-${title.toLowerCase().replace(/\s+/g, "-")}-empty`);
    }
    // browser back returns to the previous page
    await dash.page.goBack();
    await pageShown(dash.page, "Audit log");
    expect(new URL(dash.page.url()).pathname).toBe("/audit-log");
    expect(await textOf(dash.page.locator("nav a[aria-current=page]"))).toBe("Audit log");
  }, TEST_MS);

  test("API keys: a new secret key is shown once with a copy button; the audit log records it", async () => {
    await nav("API keys");
    await dash.page.getByLabel("Label").fill(`e2e-${run}`);
    await dash.page.getByRole("button", { name: "Create key" }).click();
    const shown = dash.page.locator(".shown-once");
    await shown.waitFor({ timeout: WAIT_MS });
    liveKey = await shown.getByRole("textbox", { name: "API key" }).inputValue();
    expect(liveKey).toMatch(/^nk_live_/);
    await shown.getByRole("button", { name: "Copy the API key" }).click();
    expect(await textOf(shown.locator(".copy-status"))).toMatch(/Copied|select the value/);
    const row = dash.page.locator(`tr[data-prefix="${liveKey.slice(0, 12)}"]`);
    await row.waitFor({ timeout: WAIT_MS });
    expect(await row.textContent()).toContain(`e2e-${run}`);
    await dash.screenshot("dashboard-api-keys-shown-once");
    await dash.page.getByRole("button", { name: "I have copied it" }).click();
    expect(await dash.page.locator(".shown-once").count()).toBe(0);

    // rotate: a new key shown once; the old one keeps working through its grace period
    await row.getByRole("button", { name: "Rotate" }).click();
    await dash.page.getByRole("dialog", { name: /^Rotate / }).getByRole("button", { name: "Rotate key" }).click();
    await dash.page.locator(".shown-once").waitFor({ timeout: WAIT_MS });
    const rotated = await dash.page.locator(".shown-once").getByRole("textbox", { name: "API key" }).inputValue();
    expect(rotated).toMatch(/^nk_live_/);
    expect(rotated).not.toBe(liveKey);
    expect((await apiCall("GET", "/v1/api-keys", rotated)).status).toBe(200);
    expect((await apiCall("GET", "/v1/api-keys", liveKey)).status).toBe(200);
    liveKey = rotated;
    await dash.page.getByRole("button", { name: "I have copied it" }).click();

    // the inbox embed: an allowed origin and developer mode
    await dash.page.getByLabel("Origin", { exact: true }).fill(`https://shop-${run}.example.com`);
    await dash.page.getByRole("button", { name: "Add origin" }).click();
    await dash.page.locator(".origins", { hasText: `https://shop-${run}.example.com` }).waitFor({ timeout: WAIT_MS });
    await dash.page.getByRole("checkbox", { name: /Developer mode/ }).check();
    const embed = await eventually(async () => {
      const r = await apiCall("GET", "/v1/inbox-embed/settings", liveKey);
      return r.body.data.developer_mode ? r : null;
    });
    expect(embed.body.data).toMatchObject({ developer_mode: true, allowed_origins_count: 1 });

    await nav("Audit log");
    const entry = dash.page.locator("table.audit tbody tr", { hasText: "api_key.created" });
    await entry.first().waitFor({ timeout: WAIT_MS });
    expect(await entry.first().textContent()).toContain("user");
    await dash.screenshot("dashboard-audit-log");
  }, TEST_MS);

  test("a template: the preview follows the typing, warnings come and go, create and publish", async () => {
    await nav("Templates");
    await dash.page.getByRole("link", { name: "New template" }).click();
    await pageShown(dash.page, "New template");
    await dash.page.getByLabel("Slug").fill(`welcome-${run}`);
    await dash.page.getByLabel("Name", { exact: true }).fill("Welcome");
    await dash.page.getByLabel("Sample data").fill('{"name": "Ana"}');
    const content = dash.page.getByLabel("Content");
    const body = dash.page.locator(".rendered-body .rendered-text");

    await content.pressSequentially("Hello {{ name }}", { delay: 10 });
    await dash.page.waitForFunction(() => document.querySelector(".rendered-body .rendered-text")?.textContent === "Hello Ana", null, { timeout: WAIT_MS });
    // email without a subject: the API warns
    expect(await textOf(dash.page.locator(".validation-warnings"))).toMatch(/subject/i);
    await content.pressSequentially(", welcome aboard", { delay: 10 });
    await dash.page.waitForFunction(() => document.querySelector(".rendered-body .rendered-text")?.textContent === "Hello Ana, welcome aboard", null, { timeout: WAIT_MS });
    await dash.page.getByLabel("Subject").fill("Hi {{ name }}");
    await dash.page.waitForFunction(() => document.querySelector(".rendered-subject .rendered-text")?.textContent === "Hi Ana", null, { timeout: WAIT_MS });
    // the HTML body renders in a frame sandboxed without scripts, inline styles included
    await dash.page.getByLabel("HTML body").fill('<p style="color: rgb(200, 30, 90)">Hello <b>{{ name }}</b></p>');
    const frame = dash.page.frameLocator("iframe.html-preview");
    await frame.locator("b", { hasText: "Ana" }).waitFor({ timeout: WAIT_MS });
    expect(await frame.locator("p").evaluate((p) => getComputedStyle(p).color)).toBe("rgb(200, 30, 90)");
    expect(await dash.page.locator("iframe.html-preview").getAttribute("sandbox")).toBe("");
    expect(await dash.page.locator(".validation-warnings").count()).toBe(0);
    // a syntax error is an error, not a crash
    await content.pressSequentially(" {% if %}", { delay: 10 });
    expect(await textOf(dash.page.locator(".validation-errors"))).toContain("content");
    expect(await textOf(dash.page.locator(".validation .invalid"))).toBe("Template not valid");
    await dash.screenshot("dashboard-template-invalid");
    for (let i = 0; i < " {% if %}".length; i++) await content.press("Backspace");
    await dash.page.waitForFunction(() => document.querySelector(".validation .valid")?.textContent === "Template valid", null, { timeout: WAIT_MS });
    expect(await body.textContent()).toBe("Hello Ana, welcome aboard");

    await dash.page.getByRole("button", { name: "Create and publish" }).click();
    await dash.page.waitForURL(new RegExp(`/templates/welcome-${run}\\?env=production$`), { timeout: WAIT_MS });
    expect(await textOf(dash.page.locator(".template-state .badge"))).toBe("active");
    expect(await textOf(dash.page.locator(".flash"))).toBe("Template created. Published: production notifications can use it now.");
    await dash.screenshot("dashboard-template-published");
  }, TEST_MS);

  test("the email channel: a form generated from the smtp provider's fields, saved, and its test button", async () => {
    await nav("Channels");
    await dash.page.getByRole("link", { name: "Email", exact: true }).click();
    await pageShown(dash.page, "Email channel");
    await dash.page.getByLabel("Provider", { exact: true }).selectOption("smtp");
    // one input per field of the provider's description, typed: port is a number, secure a choice
    expect(await dash.page.locator("#smtp-settings-port").getAttribute("type")).toBe("number");
    expect(await dash.page.locator("#smtp-settings-secure").evaluate((e) => e.tagName)).toBe("SELECT");
    expect(await dash.page.locator("#smtp-credentials-password").getAttribute("type")).toBe("password");
    await dash.page.locator("#smtp-settings-host").fill("127.0.0.1");
    await dash.page.locator("#smtp-settings-port").fill(String(server.smtp.port));
    await dash.page.locator("#smtp-settings-secure").selectOption("false");
    await dash.page.locator("#smtp-settings-from_email").fill(`no-reply@dashboard-${run}.com`);
    await dash.page.getByRole("button", { name: "Configure channel" }).click();
    expect(await textOf(dash.page.locator(".form-status"))).toBe("Saved.");
    const stored = await apiCall("GET", "/v1/channels/email", liveKey);
    expect(stored.body.data).toMatchObject({ provider: "smtp", active: true, settings: { host: "127.0.0.1", port: server.smtp.port, secure: false } });

    await dash.page.getByLabel("Recipient").fill(`test-${run}@example.com`);
    await dash.page.getByRole("button", { name: "Send test" }).click();
    // the test waits for the provider: the fake SMTP server's 250 comes back
    expect(await textOf(dash.page.locator(".test-result"))).toContain(`Sent to test-${run}@example.com through smtp; it accepted the message`);
    await dash.screenshot("dashboard-channel-email");
    await dash.page.getByRole("link", { name: "Follow the test notification" }).click();
    await pageShown(dash.page, "Notification");
    // an SMTP server's acceptance is "sent" (only a bounce or the inbox say more)
    await dash.page.waitForFunction(() => document.querySelector(".facts .badge")?.textContent === "sent", null, { timeout: WAIT_MS });
  }, TEST_MS);

  test("a notification sent through the API appears in the list without a reload, and its page shows the attempts", async () => {
    await nav("Notifications");
    await dash.page.evaluate(() => ((window as any).notReloaded = true));
    const to = `ana-${run}@example.com`;
    const sent = await apiCall("POST", "/v1/notifications", liveKey, { channel: "email", to, template: `welcome-${run}`, data: { name: "Ana" } });
    expect(sent.status).toBe(202);
    const row = dash.page.locator(`tr[data-id="${sent.body.data.id}"]`);
    await row.waitFor({ timeout: WAIT_MS });
    expect(await dash.page.evaluate(() => (window as any).notReloaded)).toBe(true);
    expect(await row.textContent()).toContain(`welcome-${run}`);
    await dash.screenshot("dashboard-notifications");

    await row.getByRole("link", { name: to }).click();
    await pageShown(dash.page, "Notification");
    expect(new URL(dash.page.url()).pathname).toBe(`/notifications/${sent.body.data.id}`);
    await dash.page.waitForFunction(() => document.querySelector(".facts .badge")?.textContent === "sent", null, { timeout: WAIT_MS });
    const attempt = dash.page.locator("table.attempts tr.attempt");
    await attempt.first().waitFor({ timeout: WAIT_MS });
    expect(await attempt.count()).toBe(1);
    expect(await attempt.first().textContent()).toContain("smtp");
    expect(await textOf(attempt.first().locator(".badge"))).toBe("success");
    const timeline = await dash.page.locator(".timeline").textContent();
    for (const step of ["Created", "Attempt 1", "Sent"]) expect(timeline).toContain(step);
    expect(await dash.page.locator("section[aria-labelledby=content-title] pre.json").first().textContent()).toContain('"name": "Ana"');
    // the mail really went out through the configured channel
    await server.smtp.waitForMessages(1, WAIT_MS);
    expect(server.smtp.messages.some((m) => m.rcptTo.includes(to) && m.header("subject") === "Hi Ana")).toBe(true);
    await dash.screenshot("dashboard-notification-detail");

    // the detail URL is shareable: a fresh page opens it directly; back returns to the list
    const other = await browser.newPage();
    await other.page.goto(dash.page.url());
    await pageShown(other.page, "Notification");
    expect(await other.page.locator("table.attempts tr.attempt").count()).toBe(1);
    await other.page.close();
    await dash.page.goBack();
    await pageShown(dash.page, "Notifications");

    // the overview counts it
    await nav("Overview");
    await dash.page.locator(".chart-canvas").waitFor({ timeout: WAIT_MS });
    expect(Number(await textOf(dash.page.locator(".counter-total dd")))).toBeGreaterThanOrEqual(2);
    await dash.screenshot("dashboard-overview");
  }, TEST_MS);

  test("filters live in the URL (back undoes one); the environment switch: sandbox shows sandbox data, production its own", async () => {
    await nav("Notifications");
    expect(await dash.page.locator("table.notifications tbody tr").count()).toBeGreaterThanOrEqual(2);
    await dash.page.getByLabel("Status").selectOption("failed");
    await dash.page.waitForURL(/status=failed/, { timeout: WAIT_MS });
    expect(await textOf(dash.page.locator(".empty-title"))).toBe("No notification matches this search");
    await dash.page.goBack();
    await dash.page.locator("table.notifications tbody tr").first().waitFor({ timeout: WAIT_MS });
    expect(new URL(dash.page.url()).searchParams.get("status")).toBeNull();

    await dash.page.getByText("Sandbox", { exact: true }).click();
    await dash.page.waitForURL(/env=sandbox/, { timeout: WAIT_MS });
    await pageShown(dash.page, "Notifications");
    expect(await dash.page.locator(".topbar").getAttribute("data-environment")).toBe("sandbox");
    expect(await textOf(dash.page.locator(".empty-title"))).toBe("No notifications yet");
    await nav("API keys");
    expect(await textOf(dash.page.locator(".empty-title"))).toBe("No sandbox keys");
    await dash.screenshot("dashboard-sandbox");
    await dash.page.getByText("Production", { exact: true }).click();
    await pageShown(dash.page, "API keys");
    await dash.page.locator(`tr[data-prefix="${liveKey.slice(0, 12)}"]`).waitFor({ timeout: WAIT_MS });
  }, TEST_MS);

  test("subscribers: search, the detail with preferences and inbox, erase behind a confirmation", async () => {
    const sub = await apiCall("POST", "/v1/subscribers", liveKey, { external_id: `ana-${run}`, email: `ana-${run}@example.com`, name: "Ana Lima" });
    expect(sub.status).toBe(201);
    await nav("Subscribers");
    await dash.page.getByLabel("Search").fill("Lima");
    await dash.page.getByRole("button", { name: "Search" }).click();
    await dash.page.waitForURL(/q=Lima/, { timeout: WAIT_MS });
    await dash.page.getByRole("link", { name: `ana-${run}` }).click();
    await pageShown(dash.page, "Subscriber");
    expect(await textOf(dash.page.locator("#record-title"))).toBe("Ana Lima");
    await dash.page.getByLabel("Category").fill("marketing");
    await dash.page.getByRole("button", { name: "Opt out" }).click();
    await dash.page.getByRole("checkbox", { name: "marketing by Email" }).waitFor({ timeout: WAIT_MS });
    expect(await dash.page.getByRole("checkbox", { name: "marketing by Email" }).isChecked()).toBe(false);
    expect((await apiCall("GET", `/v1/subscribers/${sub.body.data.id}/preferences`, liveKey)).body.data).toEqual([{ category: "marketing", channel: "email", enabled: false }]);
    expect(await textOf(dash.page.locator(".empty-title", { hasText: "inbox" }))).toBe("The inbox is empty");
    await dash.screenshot("dashboard-subscriber");

    await dash.page.getByRole("button", { name: "Erase subscriber" }).click();
    const dialog = dash.page.getByRole("dialog", { name: `Erase ana-${run}?` });
    await dialog.waitFor({ timeout: WAIT_MS });
    // Cancel has the focus: Enter would not erase by accident
    expect(await dash.page.evaluate(() => document.activeElement?.textContent)).toBe("Cancel");
    await dash.screenshot("dashboard-subscriber-erase-confirm");
    await dialog.getByRole("button", { name: "Erase for good" }).click();
    await pageShown(dash.page, "Subscribers");
    expect(await textOf(dash.page.locator(".flash"))).toContain(`Subscriber ana-${run} was erased`);
    const [row] = await sql`select email, name from subscribers where id = ${sub.body.data.id}`;
    expect(row).toEqual({ email: null, name: null });
  }, TEST_MS);

  test("the team: invite a member (mailed a link), change the role in place, remove behind a confirmation", async () => {
    await nav("Team");
    expect(await textOf(dash.page.locator("table.team tbody tr"))).toContain(`${EMAIL} (you)`);
    const invited = `bob-${run}@dashboard-${run}.com`;
    await dash.page.getByLabel("Invite by email").fill(invited);
    await dash.page.getByRole("button", { name: "Send invitation" }).click();
    expect(await textOf(dash.page.locator(".form-status"))).toBe(`Invited ${invited}: a sign-in link is on its way.`);
    expect(await linkMailedTo(invited)).toContain("/auth/magic-link/verify?token=");
    await dash.page.getByLabel(`Role of ${invited}`).selectOption("admin");
    await dash.page.locator(".form-status", { hasText: `${invited} is now admin.` }).waitFor({ timeout: WAIT_MS });
    await dash.screenshot("dashboard-team");
    await dash.page.locator("table.team tr", { hasText: invited }).getByRole("button", { name: "Remove" }).click();
    await dash.page.getByRole("dialog", { name: `Remove ${invited}?` }).getByRole("button", { name: "Remove member" }).click();
    await dash.page.locator(".form-status", { hasText: `${invited} was removed.` }).waitFor({ timeout: WAIT_MS });
    // the list reloads after the message: wait for the row to go
    await dash.page.locator("table.team tr", { hasText: invited }).waitFor({ state: "detached", timeout: WAIT_MS });
    expect(await dash.page.locator("table.team tbody tr").count()).toBe(1);
  }, TEST_MS);

  test("keyboard: the skip link reaches the content, a link opens by Enter and focuses the new heading, Escape closes a dialog", async () => {
    await dash.page.goto(`${base}/keys?env=production`);
    await pageShown(dash.page, "API keys");
    const focused = () => dash.page.evaluate(() => ({ id: document.activeElement?.id, text: document.activeElement?.textContent?.trim() }));
    await dash.page.keyboard.press("Tab");
    expect((await focused()).text).toBe("Skip to content");
    await dash.page.keyboard.press("Enter");
    expect((await focused()).id).toBe("main");

    const revoke = dash.page.locator(`tr[data-prefix="${liveKey.slice(0, 12)}"]`).getByRole("button", { name: "Revoke" });
    await revoke.focus();
    await dash.page.keyboard.press("Enter");
    const dialog = dash.page.getByRole("dialog", { name: /^Revoke / });
    await dialog.waitFor({ timeout: WAIT_MS });
    await dash.page.keyboard.press("Escape");
    await dialog.waitFor({ state: "hidden", timeout: WAIT_MS });
    expect(await revoke.evaluate((b) => b === document.activeElement)).toBe(true);
    expect((await apiCall("GET", "/v1/api-keys", liveKey)).status).toBe(200); // not revoked

    await dash.page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Templates", exact: true }).focus();
    await dash.page.keyboard.press("Enter");
    await pageShown(dash.page, "Templates");
    expect((await focused()).id).toBe("page-title");
  }, TEST_MS);

  test("no page logged a console error", () => {
    expect(dash.consoleErrors).toEqual([]);
  });
});

describe("errors show the API's message", () => {
  test("an unknown notification's page and a duplicate template slug show the API's error message and code", async () => {
    const errors = await browser.newPage();
    const missing = crypto.randomUUID();
    const expected = await apiCall("GET", `/v1/notifications/${missing}`, liveKey);
    expect(expected.status).toBe(404);
    await errors.page.goto(`${base}/notifications/${missing}?env=production`);
    await pageShown(errors.page, "Notification");
    const alert = errors.page.getByRole("alert");
    expect(await textOf(alert.locator(".error-message"))).toBe(expected.body.error.message);
    expect(await textOf(alert.locator(".error-code"))).toContain(`${expected.body.error.code} · HTTP 404`);
    await errors.screenshot("dashboard-error-not-found");

    await errors.page.goto(`${base}/templates/new?env=production`);
    await pageShown(errors.page, "New template");
    await errors.page.getByLabel("Slug").fill(`welcome-${run}`);
    await errors.page.getByLabel("Name", { exact: true }).fill("Again");
    await errors.page.getByLabel("Content").fill("Hi");
    await errors.page.getByRole("button", { name: "Create template" }).click();
    const notice = errors.page.getByRole("alert").filter({ hasText: "Not saved" });
    expect(await textOf(notice.locator(".error-message"))).toBe("A template with this slug already exists");
    expect(await textOf(errors.page.locator("#template-slug-error"))).toBe("is already taken");
    await errors.screenshot("dashboard-error-conflict");
    // the browser logs the failed requests themselves, nothing else
    expect(errors.consoleErrors.every((e) => /Failed to load resource: the server responded with a status of (404|409)/.test(e))).toBe(true);
    await errors.page.close();
  }, TEST_MS);
});

describe("sign-out", () => {
  test("signs out to the sign-in page; the used link then says it was already used", async () => {
    await dash.page.getByRole("button", { name: "Sign out" }).click();
    await pageShown(dash.page, "Sign in to NMS");
    expect(await textOf(dash.page.getByRole("status").filter({ hasText: "signed out" }))).toBe("You signed out.");
    await dash.page.reload();
    await pageShown(dash.page, "Sign in to NMS");
    await dash.page.goto(magicLink);
    await pageShown(dash.page, "Sign in to NMS");
    expect(await textOf(dash.page.getByRole("alert"))).toContain("invalid or was already used");
    await dash.screenshot("dashboard-sign-in-used-link");
    expect(dash.consoleErrors).toEqual([]);
  }, TEST_MS);
});
