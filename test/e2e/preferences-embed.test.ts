// <nms-preferences> in a real browser (Debian's chromium): a host page on an allowed origin shows
// the subscriber's categories x channels (required ones locked), a switch saves through the API.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { buildWeb } from "../../scripts/build-web";
import { startServer } from "../../http/server";
import { call, createKey, createTenant } from "../support/fixtures";
import { startBrowser, type TestBrowser } from "../support/browser";

const HOST_RULES = "--host-resolver-rules=MAP *.nms.test 127.0.0.1";

let api: ReturnType<typeof startServer>;
let apiUrl: string;
let browser: TestBrowser;
let T: Awaited<ReturnType<typeof createTenant>>;
let sub: { id: string; external_id: string };
let host: ReturnType<typeof Bun.serve>;
let origin: string;

beforeAll(async () => {
  await buildWeb();
  api = startServer(0, "127.0.0.1");
  apiUrl = `http://127.0.0.1:${api.port}`;
  T = await createTenant();
  await call("POST", "/v1/preference-categories", { key: T.secretKey, body: { key: "security", name: "Security", required: true } });
  await call("POST", "/v1/preference-categories", { key: T.secretKey, body: { key: "offers", name: "Offers", default_enabled_channels: ["email"] } });
  const s = await call("POST", "/v1/subscribers", { key: T.secretKey, body: { external_id: `pe-${crypto.randomUUID().slice(0, 8)}` } });
  sub = s.body.data;
  const publishableKey = (await createKey(T.tenant.id, { keyType: "publishable" })).raw;
  const settings = await call("GET", "/v1/inbox-embed/settings", { key: T.secretKey });
  const hash = createHmac("sha256", settings.body.data.inbox_secret).update(sub.external_id).digest("hex");
  const page = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Account</title><link rel="icon" href="data:,">
<script type="module" src="${apiUrl}/embed/nms-preferences.js"></script>
<script type="module">
  window.changes = [];
  document.addEventListener("nms-preferences-change", (e) => window.changes.push(e.detail));
</script></head>
<body><h1>Account</h1><nms-preferences locale="en" publishable-key="${publishableKey}" subscriber-id="${sub.external_id}" subscriber-hash="${hash}"></nms-preferences></body></html>`;
  host = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response(page, { headers: { "content-type": "text/html; charset=utf-8" } }) });
  origin = `http://account.nms.test:${host.port}`;
  expect((await call("POST", "/v1/inbox-embed/allowed-origins", { key: T.secretKey, body: { origin } })).status).toBe(201);
  browser = await startBrowser({ args: [HOST_RULES] });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  host?.stop(true);
  await api?.stop();
});

describe("<nms-preferences>", () => {
  test("shows categories x channels with required locked; a switch saves and the API agrees; no console error", async () => {
    const p = await browser.newPage();
    await p.page.goto(origin);
    const offers = p.page.getByRole("group", { name: "Offers" });
    const email = offers.getByRole("checkbox", { name: "Email" });
    await email.waitFor({ timeout: 15_000 });
    expect(await email.isChecked()).toBe(true);
    expect(await offers.getByRole("checkbox", { name: "SMS" }).isChecked()).toBe(false);
    const locked = p.page.getByRole("group", { name: "Security" }).getByRole("checkbox", { name: "Email" });
    expect(await locked.isDisabled()).toBe(true);
    expect(await locked.isChecked()).toBe(true);

    await email.uncheck();
    await p.page.getByRole("status").filter({ hasText: "Saved" }).waitFor({ timeout: 15_000 });
    const prefs = await call("GET", `/v1/subscribers/${sub.id}/preferences`, { key: T.secretKey });
    expect(prefs.body.data).toEqual([{ category: "offers", channel: "email", enabled: false }]);
    expect(await p.page.evaluate(() => (window as any).changes)).toEqual([{ category: "offers", channel: "email", enabled: false }]);
    expect(await offers.getByRole("checkbox", { name: "Email" }).isChecked()).toBe(false);
    await p.screenshot("nms-preferences");
    expect(p.consoleErrors).toEqual([]);
  }, 60_000);
});
