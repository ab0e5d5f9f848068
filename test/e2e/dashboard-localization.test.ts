// The dashboard's issue-28 pages in a real browser (Debian's chromium) against an API process:
// a template's translations beside the base (add, warn, edit, delete, preview per locale with the
// fallback), the preference categories page with the preference center's color, a subscriber's
// "Copy preference link", and a workflow's Try it with a locale.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { sql } from "../../store/db";
import { startBrowser, type TestBrowser, type TestPage } from "../support/browser";
import { eventually, navTo, pageShown, signInWithKey, startDashboardServer, TEST_MS, textOf, WAIT_MS, type DashboardServer } from "../support/dashboard-session";
import { deleteTenants } from "../support/tenant-cleanup";

const run = crypto.randomUUID().slice(0, 8);
const EMAIL = `owner-${run}@locale-${run}.com`;
const SLUG = `welcome-${run}`;

let server: DashboardServer;
let browser: TestBrowser;
let dash: TestPage;
let tenantId: string | undefined;
let key: string;
const apiCall = (method: string, path: string, body?: unknown) => server.apiCall(method, path, key, body);
/** Console errors but the four 422s the tests ask for (the browser logs every failed request). */
const unexpectedErrors = () =>
  dash.consoleErrors.filter((e) => !/status of 422 .*(\/translations\/brazilian|\/v1\/preference-categories|\/v1\/preference-center\/settings|\/trigger)\)$/.test(e));

beforeAll(async () => {
  server = await startDashboardServer();
  browser = await startBrowser();
  dash = await browser.newPage();
  ({ tenantId, key } = await signInWithKey(dash.page, server, EMAIL, `e2e-${run}`));
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  if (tenantId) await deleteTenants([tenantId]);
});

/** The rendered part `part` of the per-locale preview. */
const renderedPart = (p: Page, part: string) => p.locator(`.locale-preview .rendered-${part} pre`);

async function previewIn(p: Page, locale: string) {
  await p.getByLabel("Recipient locale").fill(locale);
  await p.getByRole("button", { name: "Preview", exact: true }).click();
  await p.waitForFunction((l) => document.querySelector(".preview-locale-used")?.textContent?.startsWith(l ? `Asked for ${l}:` : "rendered"), locale, { timeout: WAIT_MS });
  return await textOf(p.getByTestId("preview-locale-used"));
}

describe("template translations", () => {
  test("a locale added beside the base, warned about, edited, previewed with the fallback, deleted", async () => {
    const t = await apiCall("POST", "/v1/templates", {
      slug: SLUG,
      name: "Welcome",
      channel: "email",
      language: "pt_BR",
      content: "Olá, {{ name }}!",
      variants: { subject: "Bem-vinda" },
    });
    expect(t.status).toBe(201);
    const p = dash.page;
    await navTo(p, "Templates");
    await p.getByRole("link", { name: "Welcome", exact: true }).click();
    await pageShown(p, `Template ${SLUG}`);
    expect(await textOf(p.locator(".translations .empty-title"))).toBe("No translations yet");

    // a locale that is not one: the API's 422 is said under the form
    await p.getByLabel("New locale").fill("brazilian");
    await p.getByRole("button", { name: "Add translation" }).click();
    await p.getByRole("button", { name: "Save translation" }).click();
    expect(await textOf(p.locator(".translation-editor [role=alert]"))).toContain("must be a locale such as pt_BR");
    await p.getByRole("button", { name: "Discard" }).click();

    // en: the base shown beside it; a variable the base lacks is a warning
    await p.getByLabel("New locale").fill("en");
    await p.getByRole("button", { name: "Add translation" }).click();
    expect(await textOf(p.locator('.base-column pre[data-part="content"]'))).toBe("Olá, {{ name }}!");
    expect(await textOf(p.locator('.base-column pre[data-part="subject"]'))).toBe("Bem-vinda");
    expect(await p.getByLabel("Content (en)").inputValue()).toBe("Olá, {{ name }}!");
    await p.getByLabel("Subject (en)").fill("Welcome");
    await p.getByLabel("Content (en)").fill("Hello, {{ name }}! {{ coupon }}");
    await p.getByRole("button", { name: "Save translation" }).click();
    await p.getByRole("status").filter({ hasText: "Translation en saved." }).waitFor({ timeout: WAIT_MS });
    expect(await textOf(p.getByRole("list", { name: "Translation warnings" }))).toBe("Variable in translation en but not in the base: coupon");
    expect((await apiCall("GET", `/v1/templates/${SLUG}/translations/en`)).body.data).toMatchObject({ locale: "en", content: "Hello, {{ name }}! {{ coupon }}", variants: { subject: "Welcome" } });

    await p.getByLabel("Content (en)").fill("Hello, {{ name }}!");
    await p.getByRole("button", { name: "Save translation" }).click();
    await eventually(async () => ((await apiCall("GET", `/v1/templates/${SLUG}/translations/en`)).body.data.content === "Hello, {{ name }}!" ? true : null));
    await p.getByRole("list", { name: "Translation warnings" }).waitFor({ state: "detached", timeout: WAIT_MS });

    // pt (European Portuguese), subject left empty: the base's
    await p.getByLabel("New locale").fill("pt");
    await p.getByRole("button", { name: "Add translation" }).click();
    await p.getByLabel("Subject (pt)").fill("");
    await p.getByLabel("Content (pt)").fill("Olá (PT), {{ name }}!");
    await p.getByRole("button", { name: "Save translation" }).click();
    await p.getByRole("status").filter({ hasText: "Translation pt saved." }).waitFor({ timeout: WAIT_MS });
    await p.getByRole("list", { name: "Locales" }).getByRole("button", { name: "pt", exact: true }).waitFor({ timeout: WAIT_MS });
    expect(await p.getByRole("list", { name: "Locales" }).getByRole("button").allTextContents()).toEqual(["en", "pt"]);
    await dash.screenshot("dashboard-template-translations");

    // preview per locale through POST /v1/templates/:id/preview with `locale`
    await p.getByLabel("Sample data (JSON)").fill('{"name": "Ana"}');
    expect(await previewIn(p, "en-US")).toBe("en");
    expect(await textOf(renderedPart(p, "body"))).toBe("Hello, Ana!");
    expect(await textOf(renderedPart(p, "subject"))).toBe("Welcome");
    expect(await previewIn(p, "pt_PT")).toBe("pt");
    expect(await textOf(renderedPart(p, "body"))).toBe("Olá (PT), Ana!");
    expect(await textOf(renderedPart(p, "subject"))).toBe("Bem-vinda");
    expect(await previewIn(p, "pt-BR")).toBe("pt_BR");
    expect(await textOf(renderedPart(p, "body"))).toBe("Olá, Ana!");
    expect(await previewIn(p, "fr")).toBe("pt_BR");
    await dash.screenshot("dashboard-template-translation-preview");

    // delete pt: its recipients fall back to the base
    await p.getByRole("list", { name: "Locales" }).getByRole("button", { name: "pt", exact: true }).click();
    await p.getByRole("button", { name: "Delete translation" }).click();
    await p.getByRole("dialog").getByRole("button", { name: "Delete translation" }).click();
    await p.getByRole("status").filter({ hasText: "Translation pt deleted" }).waitFor({ timeout: WAIT_MS });
    expect((await apiCall("GET", `/v1/templates/${SLUG}/translations/pt`)).status).toBe(404);
    expect((await apiCall("POST", `/v1/templates/${SLUG}/preview`, { variables: { name: "Bo" }, locale: "pt_PT" })).body.data).toMatchObject({ locale: "pt_BR", rendered: { body: "Olá, Bo!" } });
    await p.getByRole("list", { name: "Locales" }).getByRole("button", { name: "pt", exact: true }).waitFor({ state: "detached", timeout: WAIT_MS });
    expect(unexpectedErrors()).toEqual([]);
  }, TEST_MS * 2);
});

describe("preference categories", () => {
  test("created (a required one and a refused key), edited and deleted; the API agrees", async () => {
    const p = dash.page;
    await navTo(p, "Preference categories");
    expect(await textOf(p.locator(".empty-title"))).toBe("No preference categories yet");

    await p.getByLabel("Key").fill("Security Alerts");
    await p.getByLabel("Name").fill("Security");
    await p.getByRole("button", { name: "Create category" }).click();
    expect(await textOf(p.locator("#category-key-error"))).toMatch(/lowercase/i);

    await p.getByLabel("Key").fill("security");
    await p.getByLabel("Description").fill("Sign-ins and password changes");
    for (const ch of ["WhatsApp", "SMS", "In-app", "Push"]) await p.getByRole("checkbox", { name: ch, exact: true }).uncheck();
    await p.getByRole("checkbox", { name: /^Required/ }).check();
    await p.getByRole("button", { name: "Create category" }).click();
    await p.getByRole("status").filter({ hasText: "Category security created." }).waitFor({ timeout: WAIT_MS });

    await p.getByLabel("Key").fill("marketing");
    await p.getByLabel("Name").fill("News and offers");
    for (const ch of ["WhatsApp", "SMS", "Push"]) await p.getByRole("checkbox", { name: ch, exact: true }).uncheck();
    await p.getByRole("button", { name: "Create category" }).click();
    await p.getByRole("status").filter({ hasText: "Category marketing created." }).waitFor({ timeout: WAIT_MS });
    await p.locator("tr[data-key=marketing]").waitFor({ timeout: WAIT_MS });
    expect((await apiCall("GET", "/v1/preference-categories/security")).body.data).toMatchObject({
      key: "security",
      name: "Security",
      description: "Sign-ins and password changes",
      default_enabled_channels: ["email"],
      required: true,
    });
    expect((await apiCall("GET", "/v1/preference-categories/marketing")).body.data).toMatchObject({ default_enabled_channels: ["email", "in_app"], required: false });
    expect(await textOf(p.locator("tr[data-key=security] td").nth(4))).toBe("Required");

    await p.getByRole("button", { name: "Edit marketing" }).click();
    await p.getByRole("heading", { name: "Edit marketing" }).waitFor({ timeout: WAIT_MS });
    expect(await p.getByLabel("Key").getAttribute("readonly")).not.toBeNull();
    await p.getByLabel("Name").fill("Offers");
    await p.getByRole("checkbox", { name: "In-app", exact: true }).uncheck();
    await p.getByRole("button", { name: "Save category" }).click();
    await p.getByRole("status").filter({ hasText: "Category marketing saved." }).waitFor({ timeout: WAIT_MS });
    expect((await apiCall("GET", "/v1/preference-categories/marketing")).body.data).toMatchObject({ name: "Offers", default_enabled_channels: ["email"] });
    await dash.screenshot("dashboard-preference-categories");

    await p.locator("tr[data-key=marketing]").getByRole("button", { name: "Delete" }).click();
    await p.getByRole("dialog").getByRole("button", { name: "Delete category" }).click();
    await p.getByRole("status").filter({ hasText: "Category marketing deleted." }).waitFor({ timeout: WAIT_MS });
    await p.locator("tr[data-key=marketing]").waitFor({ state: "detached", timeout: WAIT_MS });
    expect((await apiCall("GET", "/v1/preference-categories/marketing")).status).toBe(404);

    // the hosted page's accent color
    await p.getByLabel("Brand color").fill("teal");
    await p.getByRole("button", { name: "Save color" }).click();
    expect(await textOf(p.locator("#brand-color-error"))).toMatch(/color such as/);
    await p.getByLabel("Brand color").fill("#0F766E");
    await p.getByRole("button", { name: "Save color" }).click();
    await p.getByRole("status").filter({ hasText: "Brand color #0f766e saved." }).waitFor({ timeout: WAIT_MS });
    expect((await apiCall("GET", "/v1/preference-center/settings")).body.data).toEqual({ brand_color: "#0f766e" });
    expect(unexpectedErrors()).toEqual([]);
  }, TEST_MS);
});

describe("a subscriber's preference link", () => {
  test("Copy preference link shows a signed url with its expiry, and the url opens their preference center", async () => {
    const ext = `ana-${run}`;
    expect((await apiCall("POST", "/v1/subscribers", { external_id: ext, email: `${ext}@example.com`, locale: "pt-BR" })).status).toBe(201);
    const p = dash.page;
    await navTo(p, "Subscribers");
    await p.getByRole("link", { name: ext, exact: true }).click();
    await pageShown(p, "Subscriber");
    const before = Date.now();
    await p.getByRole("button", { name: "Copy preference link" }).click();
    const field = p.getByLabel("Preference link", { exact: true });
    await field.waitFor({ timeout: WAIT_MS });
    const url = await field.inputValue();
    expect(url.startsWith(`${server.base}/`)).toBe(true);
    const status = await textOf(p.locator(".preference-link-status"));
    expect(status).toMatch(/^(Copied to the clipboard|The browser refused the clipboard)/);
    const expires = Date.parse((await p.locator(".preference-link-status time").getAttribute("datetime"))!);
    // 7 days ahead by default
    expect(expires - before).toBeGreaterThan(6.9 * 24 * 3600_000);
    expect(expires - before).toBeLessThan(7.1 * 24 * 3600_000);
    await dash.screenshot("dashboard-subscriber-preference-link");

    const center = await browser.newPage();
    const res = await center.page.goto(url);
    expect(res?.status()).toBe(200);
    // the subscriber's locale (pt-BR), the brand color set above, and the required category locked
    expect(await center.page.locator("html").getAttribute("lang")).toMatch(/^pt/);
    expect(await center.page.content()).toContain("#0f766e");
    expect(await center.page.getByRole("group", { name: "Security" }).getByRole("checkbox", { name: /e-?mail/i }).isDisabled()).toBe(true);
    await center.page.close();

    // a notification to them records the locale it was rendered in, shown on its page
    const tpl = await apiCall("POST", "/v1/templates", { slug: `hi-${run}`, name: "Hi", channel: "in_app", status: "active", language: "en", content: "Hi {{ name }}", variants: { title: "Hi" } });
    expect(tpl.status).toBe(201);
    expect((await apiCall("PUT", `/v1/templates/hi-${run}/translations/pt_BR`, { content: "Oi {{ name }}", variants: { title: "Oi" } })).status).toBe(201);
    const sent = await apiCall("POST", "/v1/notifications", { channel: "in_app", to: ext, template: `hi-${run}`, data: { name: "Ana" } });
    expect(sent.status).toBe(202);
    await p.goto(`${server.base}/notifications/${sent.body.data.id}`);
    await pageShown(p, "Notification");
    expect(await textOf(p.locator("dt", { hasText: /^Locale$/ }).locator("xpath=following-sibling::dd[1]"))).toBe("pt_BR");
    expect(unexpectedErrors()).toEqual([]);
  }, TEST_MS);
});

describe("a workflow's Try it with a locale", () => {
  test("a bad locale is refused under its field; a good one is stored on the run", async () => {
    expect((await apiCall("POST", "/v1/workflows", { slug: `hi-flow-${run}`, name: "Hi flow", steps: [{ type: "send", channel: "in_app", template: `hi-${run}` }] })).status).toBe(201);
    const p = dash.page;
    await navTo(p, "Workflows");
    await p.locator(`tr[data-slug="hi-flow-${run}"]`).getByRole("link", { name: "Hi flow" }).click();
    await p.getByRole("heading", { name: "Try it" }).waitFor({ timeout: WAIT_MS });
    await p.getByLabel("Recipient").fill(`ana-${run}`);
    await p.getByLabel("Locale (optional)").fill("klingon!");
    await p.getByRole("button", { name: "Trigger a run" }).click();
    expect(await textOf(p.locator("#trigger-locale-error"))).toBe("must be a locale such as pt_BR, pt, en or en-US");
    await p.getByLabel("Locale (optional)").fill("en-US");
    await p.getByRole("button", { name: "Trigger a run" }).click();
    await pageShown(p, "Workflow run");
    const id = new URL(p.url()).pathname.slice("/workflow-runs/".length);
    expect((await sql`select locale from workflow_runs where id = ${id}`)[0]!.locale).toBe("en_US");
    expect(unexpectedErrors()).toEqual([]);
  }, TEST_MS);
});

describe("at 390 px wide", () => {
  test("the translations, categories and subscriber pages are no wider than the screen", async () => {
    const p = dash.page;
    await p.setViewportSize({ width: 390, height: 844 });
    const wide: string[] = [];
    const check = async (what: string) => {
      const width = await p.evaluate(() => document.documentElement.scrollWidth);
      if (width > 390) wide.push(`${what}: ${width}px`);
    };
    await navTo(p, "Templates");
    await p.getByRole("link", { name: "Welcome", exact: true }).click();
    await pageShown(p, `Template ${SLUG}`);
    await p.getByRole("list", { name: "Locales" }).getByRole("button", { name: "en", exact: true }).click();
    await p.getByLabel("Content (en)").waitFor({ timeout: WAIT_MS });
    await check("template with its en translation open");
    await dash.screenshot("dashboard-template-translations-390");
    await navTo(p, "Preference categories");
    await check("preference categories");
    await navTo(p, "Subscribers");
    await p.getByRole("link", { name: `ana-${run}`, exact: true }).click();
    await pageShown(p, "Subscriber");
    await p.getByRole("button", { name: "Copy preference link" }).click();
    await p.getByLabel("Preference link", { exact: true }).waitFor({ timeout: WAIT_MS });
    await check("subscriber with a preference link");
    expect(wide).toEqual([]);
    await p.setViewportSize({ width: 1000, height: 700 });
    expect(unexpectedErrors()).toEqual([]);
  }, TEST_MS);
});
