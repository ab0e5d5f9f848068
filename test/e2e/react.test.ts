// @nms/react in a real browser (Debian's chromium): a page rendered with react-dom/server and hydrated from a
// Bun.build bundle shows a notification live in <Inbox>, marks it read, saves a preference; the API agrees.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Route } from "playwright-core";
import { createHmac } from "node:crypto";
import { createElement } from "react";
import { renderToString } from "react-dom/server";
import { closeInboxStreams, inboxStreamSettings } from "../../http/routes/inbox";
import { startServer } from "../../http/server";
import { call, createKey, createTenant } from "../support/fixtures";
import { startBrowser, type TestBrowser, type TestPage } from "../support/browser";
import { startDeliveryHost, waitForStatus } from "../integration/delivery-support";
import { waitFor } from "../support/runtime-redis";
import { App } from "./react-page/app";

const HOST_RULES = "--host-resolver-rules=MAP *.nms.test 127.0.0.1";
const WAIT_MS = 15_000;

let api: ReturnType<typeof startServer>;
let delivery: Awaited<ReturnType<typeof startDeliveryHost>>;
let browser: TestBrowser;
let host: ReturnType<typeof Bun.serve>;
let T: Awaited<ReturnType<typeof createTenant>>;
let sub: { id: string; external_id: string };
let origin: string;
let p: TestPage;

beforeAll(async () => {
  inboxStreamSettings.retryMs = 400; // the reconnect delay the server tells clients (3 s in production)
  api = startServer(0, "127.0.0.1");
  delivery = await startDeliveryHost();
  T = await createTenant();
  await call("POST", "/v1/preference-categories", { key: T.secretKey, body: { key: "security", name: "Security", required: true } });
  await call("POST", "/v1/preference-categories", { key: T.secretKey, body: { key: "offers", name: "Offers", default_enabled_channels: ["email", "in_app"] } });
  const s = await call("POST", "/v1/subscribers", { key: T.secretKey, body: { external_id: `re-${crypto.randomUUID().slice(0, 8)}` } });
  expect(s.status).toBe(201);
  sub = s.body.data;
  const publishableKey = (await createKey(T.tenant.id, { keyType: "publishable" })).raw;
  const settings = await call("GET", "/v1/inbox-embed/settings", { key: T.secretKey });
  const config = {
    apiUrl: `http://127.0.0.1:${api.port}`,
    publishableKey,
    subscriberId: sub.external_id,
    subscriberHash: createHmac("sha256", settings.body.data.inbox_secret).update(sub.external_id).digest("hex"),
    pageSize: 1, // so that two items make an older page
  };

  // the page as a framework serves it: markup rendered on the server, then the bundle hydrates it
  const bundle = await Bun.build({
    entrypoints: [`${import.meta.dir}/react-page/main.tsx`],
    target: "browser",
    format: "esm",
    define: { "process.env.NODE_ENV": '"development"' }, // React's development build reports hydration mismatches
  });
  expect(bundle.logs.map(String)).toEqual([]);
  expect(bundle.success).toBe(true);
  const js = await bundle.outputs[0]!.text();
  const markup = renderToString(createElement(App, { config }));
  const pageWith = (c: typeof config) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>My account</title><link rel="icon" href="data:,">
<script>window.NMS_CONFIG = ${JSON.stringify(c)};</script>
<script type="module" src="/app.js"></script></head>
<body><div id="root">${markup}</div></body></html>`;
  const pages: Record<string, string> = { "/": pageWith(config), "/wrong-hash": pageWith({ ...config, subscriberHash: "0".repeat(64) }) };
  host = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: (req) => {
      const path = new URL(req.url).pathname;
      if (path === "/app.js") return new Response(js, { headers: { "content-type": "text/javascript; charset=utf-8" } });
      return pages[path] ? new Response(pages[path], { headers: { "content-type": "text/html; charset=utf-8" } }) : new Response("not found", { status: 404 });
    },
  });
  origin = `http://app.nms.test:${host.port}`;
  expect((await call("POST", "/v1/inbox-embed/allowed-origins", { key: T.secretKey, body: { origin } })).status).toBe(201);
  browser = await startBrowser({ args: [HOST_RULES] });
  p = await browser.newPage();
}, 60_000);

afterAll(async () => {
  inboxStreamSettings.retryMs = 3_000;
  await browser?.close();
  host?.stop(true);
  await delivery?.stop();
  await api?.stop();
});

async function send(title: string) {
  const r = await call("POST", "/v1/notifications", { key: T.secretKey, body: { channel: "in_app", to: sub.external_id, data: { title, body: "It leaves today." } } });
  expect(r.status).toBe(202);
  expect((await waitForStatus(r.body.data.id, ["delivered", "failed"]))!.status).toBe("delivered");
}

async function unreadCountFromApi(): Promise<number> {
  const r = await call("GET", `/v1/subscribers/${sub.id}/notifications/unread-count`, { key: T.secretKey });
  return r.body.data.count;
}

describe("@nms/react in Chromium", () => {
  test("the server-rendered page hydrates; a notification sent through the API appears live in <Inbox>; mark read updates the count and the API agrees", async () => {
    await p.page.goto(origin);
    const bell = p.page.getByRole("button", { name: /^Notifications/ });
    await bell.click();
    // the first page was loaded once the stream listened: from here on everything arrives live
    await p.page.getByText("No notifications yet.").waitFor({ timeout: WAIT_MS });

    await send("Order shipped");

    const item = p.page.getByRole("listitem").filter({ hasText: "Order shipped" });
    await item.waitFor({ timeout: WAIT_MS });
    expect(await item.textContent()).toContain("Unread: Order shipped");
    await p.page.getByRole("button", { name: "Notifications, 1 unread" }).waitFor({ timeout: WAIT_MS });
    expect(await p.page.getByLabel("unread count").textContent()).toBe("1");
    await p.screenshot("react-inbox");

    await item.getByRole("button").click();
    await p.page.getByRole("button", { name: "Notifications", exact: true }).waitFor({ timeout: WAIT_MS });
    expect(await p.page.getByLabel("unread count").textContent()).toBe("0");
    expect(await item.textContent()).not.toContain("Unread:");
    await waitFor(async () => (await unreadCountFromApi()) === 0, WAIT_MS);
    const list = await call("GET", `/v1/subscribers/${sub.id}/notifications`, { key: T.secretKey });
    expect(list.body.data.map((i: { title: string; read: boolean }) => [i.title, i.read])).toEqual([["Order shipped", true]]);
    expect(p.consoleErrors).toEqual([]);
  }, 60_000);

  test("<Preferences> shows categories x channels with required ones locked; a switch saves and the API agrees", async () => {
    const offers = p.page.getByRole("group", { name: "Offers" });
    const email = offers.getByRole("checkbox", { name: "Email" });
    await email.waitFor({ timeout: WAIT_MS });
    expect(await email.isChecked()).toBe(true);
    expect(await offers.getByRole("checkbox", { name: "SMS" }).isChecked()).toBe(false);
    const locked = p.page.getByRole("group", { name: "Security" }).getByRole("checkbox", { name: "Email" });
    expect(await locked.isDisabled()).toBe(true);
    expect(await locked.isChecked()).toBe(true);

    await email.uncheck();
    await p.page.getByRole("status").filter({ hasText: "Saved" }).waitFor({ timeout: WAIT_MS });
    const prefs = await call("GET", `/v1/subscribers/${sub.id}/preferences`, { key: T.secretKey });
    expect(prefs.body.data).toEqual([{ category: "offers", channel: "email", enabled: false }]);
    expect(await p.page.evaluate(() => (window as any).changes)).toEqual([{ category: "offers", channel: "email", enabled: false }]);
    expect(await offers.getByRole("checkbox", { name: "Email" }).isChecked()).toBe(false);
    await p.screenshot("react-preferences");
    expect(p.consoleErrors).toEqual([]);
  }, 60_000);

  test("a cut stream reconnects with Last-Event-ID: what was sent meanwhile appears without a reload", async () => {
    // hold the reconnect in the browser until the item exists, so only the replay can bring it
    const held: Route[] = [];
    await p.page.route(/\/notifications\/stream$/, (route) => void held.push(route));
    expect(closeInboxStreams()).toBe(1); // as a server restart or a proxy timeout would
    await waitFor(() => held.length > 0, WAIT_MS, 25);
    expect(await p.page.locator(".nms-inbox").getAttribute("data-connection")).toBe("reconnecting");
    await send("Sent while cut");
    expect((await held[0]!.request().allHeaders())["last-event-id"]).toBeTruthy();
    await held[0]!.continue();
    await p.page.unroute(/\/notifications\/stream$/);

    // the click on a checkbox above closed the popover (a click outside it)
    const bell = p.page.getByRole("button", { name: /^Notifications/ });
    expect(await bell.getAttribute("aria-expanded")).toBe("false");
    await bell.click();
    await p.page.getByRole("listitem").filter({ hasText: "Sent while cut" }).waitFor({ timeout: WAIT_MS });
    await p.page.getByRole("button", { name: "Notifications, 1 unread" }).waitFor({ timeout: WAIT_MS });
    expect(await p.page.getByRole("listitem").count()).toBe(2);
    expect(await p.page.locator(".nms-inbox").getAttribute("data-connection")).toBe("live");
    expect(p.consoleErrors).toEqual([]);
  }, 60_000);

  test("after a reload: the first page, older items on demand, mark all read; the API agrees", async () => {
    await p.page.reload();
    await p.page.getByRole("button", { name: "Notifications, 1 unread" }).click();
    const items = p.page.getByRole("listitem");
    await items.first().waitFor({ timeout: WAIT_MS });
    expect(await items.allTextContents()).toEqual([expect.stringContaining("Unread: Sent while cut")]);
    await p.page.getByRole("button", { name: "Load older notifications" }).click();
    await items.nth(1).waitFor({ timeout: WAIT_MS });
    expect(await items.count()).toBe(2);
    expect(await items.nth(1).textContent()).toContain("Order shipped");
    expect(await p.page.getByRole("button", { name: "Load older notifications" }).count()).toBe(0);

    await p.page.getByRole("button", { name: "Mark all as read" }).click();
    await p.page.getByRole("button", { name: "Notifications", exact: true }).waitFor({ timeout: WAIT_MS });
    expect(await p.page.getByRole("button", { name: "Mark all as read" }).isDisabled()).toBe(true);
    await waitFor(async () => (await unreadCountFromApi()) === 0, WAIT_MS);
    expect(p.consoleErrors).toEqual([]);
  }, 60_000);

  test("a hash the API refuses: the subscriber reads a sentence, the developer the API's code in the console; the stream gives up", async () => {
    const other = await browser.newPage();
    const warnings: string[] = [];
    other.page.on("console", (m) => void (m.type() === "warning" && warnings.push(m.text())));
    await other.page.goto(`${origin}/wrong-hash`);
    await other.page.getByRole("button", { name: /^Notifications/ }).click();
    await other.page.getByRole("alert").filter({ hasText: "This inbox could not be loaded." }).waitFor({ timeout: WAIT_MS });
    expect(await other.page.locator(".nms-inbox").getAttribute("data-connection")).toBe("off"); // given up, not "reconnecting"
    expect(warnings.some((w) => w.startsWith("@nms/react: ") && w.includes("insufficient_permissions"))).toBe(true);
    await other.page.getByText("Your preferences could not be loaded.").waitFor({ timeout: WAIT_MS });
    // only the browser's own lines about the refused requests (403), none from the page
    expect(other.consoleErrors.filter((e) => !e.includes("403"))).toEqual([]);
  }, 60_000);
});
