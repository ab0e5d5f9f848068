// <nms-inbox> in a real browser (Debian's chromium): a host page on an allowed origin shows the
// list and badge, receives a notification live, marks read, resumes a cut stream; another origin sees the refusal.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import type { Page, Route } from "playwright-core";
import { buildWeb } from "../../scripts/build-web";
import { startServer } from "../../http/server";
import { closeInboxStreams, inboxStreamSettings } from "../../http/routes/inbox";
import { sql } from "../../store/db";
import { call, createKey, createTenant } from "../support/fixtures";
import { startBrowser, type TestBrowser, type TestPage } from "../support/browser";
import { startDeliveryHost, waitForStatus } from "../integration/delivery-support";
import { waitFor } from "../support/runtime-redis";

// Chromium resolves these names to 127.0.0.1, so the two host pages are two real origins that
// are not localhost (developer mode would not matter for them anyway: it stays off).
const HOST_RULES = "--host-resolver-rules=MAP *.nms.test 127.0.0.1";
const WAIT_MS = 15_000;

let api: ReturnType<typeof startServer>;
let apiUrl: string;
let delivery: Awaited<ReturnType<typeof startDeliveryHost>>;
let browser: TestBrowser;
let t: Awaited<ReturnType<typeof createTenant>>;
let subscriber: { id: string; external_id: string };
let hash: string;
let publishableKey: string;
const hostServers: ReturnType<typeof Bun.serve>[] = [];
let allowedOrigin: string;
let refusedOrigin: string;
let wrongHashOrigin: string;
let shop: TestPage;

/**
 * A host page: loads the embed from the API and puts <nms-inbox> inside its own custom element's
 * shadow root, themed from outside with a custom property; it records the element's events.
 */
function hostPage(attrs: Record<string, string>): string {
  const attributes = Object.entries(attrs)
    .map(([k, v]) => `${k}="${v}"`)
    .join(" ");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Host page</title><link rel="icon" href="data:,">
<style>body { font-family: sans-serif; margin: 24px; } shop-widget { display: block; width: 420px; --nms-inbox-accent: rgb(200, 30, 90); }</style>
<script type="module" src="${apiUrl}/embed/nms-inbox.js"></script>
<script type="module">
  window.inboxEvents = [];
  for (const name of ["nms-inbox-load", "nms-inbox-received", "nms-inbox-read", "nms-inbox-read-all", "nms-inbox-error", "nms-inbox-unread-change"]) {
    document.addEventListener(name, (e) => window.inboxEvents.push({ name, detail: e.detail }));
  }
  customElements.define("shop-widget", class extends HTMLElement {
    connectedCallback() {
      this.attachShadow({ mode: "open" }).innerHTML = '<nms-inbox ${attributes}></nms-inbox>';
    }
  });
</script></head>
<body><h1>Host page</h1><shop-widget></shop-widget></body></html>`;
}

function serveHost(html: string) {
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response(html, { headers: { "content-type": "text/html; charset=utf-8" } }) });
  hostServers.push(server);
  return server.port;
}

interface InboxView {
  status: "loading" | "ready" | "error";
  badge: string;
  badgeVisible: boolean;
  items: { id: string; title: string; read: boolean }[];
  /** the sentence the end user reads; the developer's detail goes to the console */
  error: string | null;
  connection: string;
}

/** What a person sees in the element (read through the two shadow roots). */
function view(p: Page): Promise<InboxView> {
  return p.evaluate(() => {
    const el = document.querySelector("shop-widget")!.shadowRoot!.querySelector("nms-inbox") as any;
    const root = el.shadowRoot as ShadowRoot;
    const badge = root.querySelector(".badge") as HTMLElement;
    const errorSentence = root.querySelector(".error-sentence");
    return {
      status: root.querySelector(".error") ? "error" : root.querySelector("[part=loading]") ? "loading" : "ready",
      badge: badge.textContent!.trim(),
      badgeVisible: getComputedStyle(badge).visibility === "visible",
      items: [...root.querySelectorAll("button.item")].map((b) => ({
        id: (b as HTMLElement).dataset.id!,
        title: b.querySelector(".title")?.textContent ?? "",
        read: (b as HTMLElement).dataset.read === "true",
      })),
      error: errorSentence ? errorSentence.textContent! : null,
      connection: el.connection,
    } as InboxView;
  });
}

/** Polls what the page shows until `ok` holds; fails with the last view. */
async function until(p: Page, what: string, ok: (v: InboxView) => boolean): Promise<InboxView> {
  const deadline = Date.now() + WAIT_MS;
  let last: InboxView | undefined;
  for (;;) {
    try {
      last = await view(p);
      if (ok(last)) return last;
    } catch {
      // the element is not defined yet
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; the page shows ${JSON.stringify(last)}`);
    await p.waitForTimeout(50);
  }
}

async function send(title: string, body = "") {
  const r = await call("POST", "/v1/notifications", {
    key: t.secretKey,
    body: { channel: "in_app", to: subscriber.external_id, data: { title, body } },
  });
  expect(r.status).toBe(202);
  const row = await waitForStatus(r.body.data.id, ["delivered", "failed"]);
  expect(row!.status).toBe("delivered");
  return r.body.data.id as string;
}

async function unreadCountFromApi(): Promise<number> {
  const r = await call("GET", `/v1/subscribers/${subscriber.id}/notifications/unread-count`, { key: t.secretKey });
  return r.body.data.count;
}

/** The badge updates before the request returns: the API is asked until it agrees (or the time is up). */
async function apiUnreadCountBecomes(n: number): Promise<number> {
  let count = -1;
  await waitFor(async () => (count = await unreadCountFromApi()) === n, WAIT_MS);
  return count;
}

beforeAll(async () => {
  await buildWeb(); // npm test built it already; a single-file run may not have
  inboxStreamSettings.retryMs = 400; // what the server tells clients to wait before reconnecting
  api = startServer(0, "127.0.0.1");
  apiUrl = `http://127.0.0.1:${api.port}`;
  delivery = await startDeliveryHost();
  t = await createTenant();
  const sub = await call("POST", "/v1/subscribers", { key: t.secretKey, body: { external_id: `e2e-${crypto.randomUUID().slice(0, 8)}`, name: "Ana" } });
  expect(sub.status).toBe(201);
  subscriber = sub.body.data;
  publishableKey = (await createKey(t.tenant.id, { keyType: "publishable" })).raw;
  const settings = await call("GET", "/v1/inbox-embed/settings", { key: t.secretKey });
  expect(settings.body.data.developer_mode).toBe(false);
  hash = createHmac("sha256", settings.body.data.inbox_secret).update(subscriber.external_id).digest("hex");

  const common = { "publishable-key": publishableKey, "subscriber-id": subscriber.external_id, "subscriber-hash": hash };
  // the allowed page leaves api-url out: the element uses the API it was loaded from
  allowedOrigin = `http://shop.nms.test:${serveHost(hostPage(common))}`;
  refusedOrigin = `http://elsewhere.nms.test:${serveHost(hostPage({ ...common, "api-url": apiUrl }))}`;
  // an allowed origin whose page computed the hash with another secret
  wrongHashOrigin = `http://wronghash.nms.test:${serveHost(hostPage({ ...common, "subscriber-hash": "0".repeat(64), "api-url": apiUrl }))}`;
  for (const origin of [allowedOrigin, wrongHashOrigin]) {
    const added = await call("POST", "/v1/inbox-embed/allowed-origins", { key: t.secretKey, body: { origin } });
    expect(added.status).toBe(201);
  }

  await send("Welcome aboard", "Your account is ready.");
  await send("Invoice paid", "Thanks for your payment.");
  browser = await startBrowser({ args: [HOST_RULES] });
});

afterAll(async () => {
  inboxStreamSettings.retryMs = 3_000;
  await browser?.close();
  for (const s of hostServers) s.stop(true);
  await delivery?.stop();
  await api?.stop();
});

describe("<nms-inbox> on an allowed origin", () => {
  test("shows the list (title, body, time, read state) and the unread badge, inside a host's shadow root", async () => {
    shop = await browser.newPage();
    await shop.page.goto(`${allowedOrigin}/`);
    const v = await until(shop.page, "two unread items", (v) => v.status === "ready" && v.items.length === 2 && v.badge === "2");
    expect(v.items.map((i) => i.title)).toEqual(["Invoice paid", "Welcome aboard"]); // newest first
    expect(v.items.every((i) => !i.read)).toBe(true);
    expect(v.badgeVisible).toBe(true);
    const item = shop.page.locator("nms-inbox button.item").first();
    expect(await item.locator(".message").textContent()).toBe("Thanks for your payment.");
    expect(await item.locator("time").getAttribute("datetime")).toMatch(/^\d{4}-\d\d-\d\dT/);
    // themed from the host page through a CSS custom property
    expect(await shop.page.locator("nms-inbox .badge").evaluate((b) => getComputedStyle(b).backgroundColor)).toBe("rgb(200, 30, 90)");
    expect(await shop.page.locator("nms-inbox button.mark-all").getAttribute("aria-label")).toBe("Mark all notifications as read");
    await until(shop.page, "the stream to be live", (v) => v.connection === "live");
    await shop.screenshot("inbox-allowed-list");
  });

  test("a notification sent through POST /v1/notifications appears live, without a reload, and the badge increments", async () => {
    await shop.page.evaluate(() => ((window as any).notReloaded = true));
    const focusedId = () =>
      shop.page.evaluate(() => (document.querySelector("shop-widget")!.shadowRoot!.querySelector("nms-inbox")!.shadowRoot!.activeElement as HTMLElement)?.dataset.id);
    await shop.page.locator("nms-inbox button.item").first().focus();
    const focusedBefore = await focusedId();
    await send("Your order shipped", "Tracking number 123");
    const v = await until(shop.page, "the live item", (v) => v.items.length === 3 && v.badge === "3");
    expect(v.items[0]).toMatchObject({ title: "Your order shipped", read: false });
    expect(await focusedId()).toBe(focusedBefore!); // focus stayed on its item, not on the new first row
    expect(await shop.page.evaluate(() => (window as any).notReloaded)).toBe(true);
    const received = await shop.page.evaluate(() => (window as any).inboxEvents.filter((e: any) => e.name === "nms-inbox-received"));
    expect(received.map((e: any) => e.detail.item.title)).toEqual(["Your order shipped"]);
    // announced to screen readers
    expect(await shop.page.locator("nms-inbox [aria-live=polite]").textContent()).toContain("Your order shipped");
    await shop.screenshot("inbox-allowed-live-item");
  });

  test("clicking an item marks it read (badge decrements, the API agrees); the keyboard does the same", async () => {
    const before = await view(shop.page);
    await shop.page.locator("nms-inbox button.item", { hasText: "Your order shipped" }).click();
    let v = await until(shop.page, "the clicked item read", (v) => v.badge === "2" && v.items[0]!.read);
    expect(await apiUnreadCountBecomes(2)).toBe(2);
    const list = await call("GET", `/v1/subscribers/${subscriber.id}/notifications`, { key: t.secretKey });
    const shipped = list.body.data.find((i: any) => i.id === before.items[0]!.id);
    expect(shipped.read).toBe(true);

    // keyboard: focus the first item, ArrowDown to the next, Enter marks it read
    await shop.page.locator("nms-inbox button.item").first().focus();
    await shop.page.keyboard.press("ArrowDown");
    const focused = await shop.page.evaluate(
      () => ((document.querySelector("shop-widget")!.shadowRoot!.querySelector("nms-inbox")!.shadowRoot!.activeElement as HTMLElement)?.dataset.id),
    );
    expect(focused).toBe(v.items[1]!.id);
    await shop.page.keyboard.press("Enter");
    v = await until(shop.page, "the second item read by keyboard", (v) => v.badge === "1" && v.items[1]!.read);
    expect(v.items[2]!.read).toBe(false);
    expect(await apiUnreadCountBecomes(1)).toBe(1);
    await shop.screenshot("inbox-allowed-marked-read");
  });

  test("Mark all as read empties the badge, and the API agrees", async () => {
    await shop.page.locator("nms-inbox button.mark-all").click();
    const v = await until(shop.page, "every item read", (v) => v.badge === "0" && v.items.every((i) => i.read));
    expect(v.badgeVisible).toBe(false);
    expect(await apiUnreadCountBecomes(0)).toBe(0);
    expect(await shop.page.locator("nms-inbox button.mark-all").isDisabled()).toBe(true);
    // the badge changes before the API answers; the event follows the answer
    await shop.page.waitForFunction(() => (window as any).inboxEvents.some((e: any) => e.name === "nms-inbox-read-all"), null, { timeout: WAIT_MS });
    const readAll = await shop.page.evaluate(() => (window as any).inboxEvents.filter((e: any) => e.name === "nms-inbox-read-all"));
    expect(readAll).toEqual([{ name: "nms-inbox-read-all", detail: { updated: 1 } }]);
    await shop.screenshot("inbox-allowed-all-read");
  });

  test("after the server cuts the stream it reconnects with Last-Event-ID and receives the item sent meanwhile", async () => {
    // hold the reconnect in the browser until the item exists, so only the replay can bring it
    const held: Route[] = [];
    await shop.page.route(/\/notifications\/stream$/, (route) => void held.push(route));
    expect(closeInboxStreams()).toBeGreaterThanOrEqual(1);
    await waitFor(() => held.length > 0, WAIT_MS, 25);
    expect(held.length).toBe(1);
    expect(held[0]!.request().method()).toBe("GET");
    await send("Sent while offline", "Replayed on resume");

    const headers = await held[0]!.request().allHeaders();
    const lastEventId = headers["last-event-id"];
    expect(lastEventId).toBeTruthy();
    const [known] = await sql`
      select type from events
      where id = ${lastEventId!} and tenant_id = ${t.tenant.id} and data ->> 'subscriber_id' = ${subscriber.id}`;
    expect(String(known?.type)).toMatch(/^inbox\.notification\./);

    await held[0]!.continue();
    await shop.page.unroute(/\/notifications\/stream$/);
    const v = await until(shop.page, "the replayed item", (v) => v.items.length === 4 && v.badge === "1" && v.connection === "live");
    expect(v.items[0]).toMatchObject({ title: "Sent while offline", read: false });
    await shop.screenshot("inbox-allowed-resumed");
  });

  test("the allowed page logged no console error", () => {
    expect(shop.consoleErrors).toEqual([]);
  });
});

describe("<nms-inbox> refused: the end user reads a plain sentence, the developer finds the API's answer in the console", () => {
  test("an origin that is not allowed: origin_not_allowed and the origin to add, in the console only", async () => {
    const other = await browser.newPage();
    await other.page.goto(`${refusedOrigin}/`);
    const v = await until(other.page, "the refusal", (v) => v.status === "error");
    expect(v.error).toBe("This inbox could not be loaded.");
    expect(v.items).toEqual([]);
    const shown = (await other.page.locator("nms-inbox [role=alert]").textContent()) ?? "";
    expect(shown).not.toContain("origin_not_allowed");
    expect(shown).not.toContain(refusedOrigin);
    const detail = other.consoleErrors.find((m) => m.startsWith("<nms-inbox>:"))!;
    expect(detail).toContain("This Origin is not an allowed origin of the publishable key's tenant (origin_not_allowed, HTTP 403)");
    expect(detail).toContain(`Add ${refusedOrigin} to the allowed origins`);
    const errors = await other.page.evaluate(() => (window as any).inboxEvents.filter((e: any) => e.name === "nms-inbox-error"));
    expect(errors[0].detail).toMatchObject({ status: 403, code: "origin_not_allowed" });
    await other.screenshot("inbox-refused-origin");
    await other.page.close();
  });

  test("a wrong subscriber hash: the console says the hash is wrong", async () => {
    const other = await browser.newPage();
    await other.page.goto(`${wrongHashOrigin}/`);
    const v = await until(other.page, "the refusal", (v) => v.status === "error");
    expect(v.error).toBe("This inbox could not be loaded.");
    const detail = other.consoleErrors.find((m) => m.startsWith("<nms-inbox>:"))!;
    expect(detail).toContain("X-Subscriber-Hash is wrong for this X-Subscriber-Id");
    expect(detail).toContain("insufficient_permissions, HTTP 403");
    await other.screenshot("inbox-wrong-hash");
    await other.page.close();
  });
});
