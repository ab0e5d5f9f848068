// /docs in a real browser (Debian's chromium) with every request outside the service refused: the
// Swagger UI renders every operation of /openapi.json, with request schemas, descriptions and
// headers, in sections ordered with the internal routes last, and logs no error.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startServer } from "../../http/server";
import { startBrowser, type TestBrowser } from "../support/browser";

let api: ReturnType<typeof startServer>;
let browser: TestBrowser;

beforeAll(async () => {
  api = startServer(0, "127.0.0.1");
  browser = await startBrowser();
});

afterAll(async () => {
  await browser?.close();
  await api?.stop();
});

test("the API reference renders offline: all operations, a request body schema, no console error", async () => {
  const { page, consoleErrors, screenshot } = await browser.newPage();
  const origin = new URL(api.url).origin.replace("localhost", "127.0.0.1");
  const refused: string[] = [];
  await page.route("**/*", (route) => {
    const url = route.request().url();
    if (url.startsWith(origin) || url.startsWith("data:")) return route.continue();
    refused.push(url);
    return route.abort("internetdisconnected");
  });
  await page.goto(`${origin}/docs`, { timeout: 90_000 }); // 30 s was passed at load 33
  // the page renders the whole document: 14-27 s on a loaded machine, so 20 s was too tight; 31-65 s
  // at load average 19-31 on 2 cores (with nine engineers' tests), so 40 s was too
  await page.waitForSelector(".opblock", { timeout: 100_000 });
  const doc: any = await (await fetch(`${api.url}/openapi.json`)).json();
  // the paths' operations and the outbound webhooks the document describes
  const operations = [...Object.values<any>(doc.paths), ...Object.values<any>(doc.webhooks ?? {})].reduce((n, item) => n + Object.keys(item).length, 0);
  // Swagger UI draws a long list virtually (only the blocks near the viewport are in the DOM, 9-10
  // of 162 at a time): scroll to the end, collecting each operation block and section drawn on the way
  const drawn = new Set<string>();
  const sections: string[] = [];
  for (let step = 0, bottomSeen = 0; step < 2000 && bottomSeen < 3; step++) {
    const seen = await page.evaluate(() => {
      const ids = [...document.querySelectorAll(".opblock")].map((e) => e.id);
      const tags = [...document.querySelectorAll("h3.opblock-tag")].map((e) => e.getAttribute("data-tag") ?? "");
      const atBottom = window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 2;
      window.scrollBy(0, Math.floor(window.innerHeight / 2));
      return { ids, tags, atBottom };
    });
    for (const id of seen.ids) drawn.add(id);
    for (const tag of seen.tags) if (tag && !sections.includes(tag)) sections.push(tag);
    bottomSeen = seen.atBottom ? bottomSeen + 1 : 0;
    await page.waitForTimeout(40);
  }
  expect(drawn.size).toBe(operations);
  await page.evaluate(() => window.scrollTo(0, 0));

  // open POST /v1/notifications: its request body schema is shown
  // drawing the opened operation blocks the page's thread for tens of seconds at load 20+: the click
  // waits for it
  await page.locator(".opblock-post", { hasText: "/v1/notifications" }).first().locator(".opblock-summary").click({ timeout: 90_000 });
  await page.waitForSelector(".opblock-post.is-open .opblock-section-request-body", { timeout: 60_000 });
  const body = await page.locator(".opblock-post.is-open .opblock-section-request-body").innerText();
  expect(body).toContain("application/json");
  expect(body).toContain("channel");
  // its description and its Idempotency-Key header are shown too
  const opened = await page.locator(".opblock-post.is-open").first().innerText();
  expect(opened).toContain("Validates the recipient");
  expect(opened).toContain("Idempotency-Key");
  // sections in the document's order: what an integration uses first, the internal routes last
  expect(sections[0]).toBe("notifications");
  expect(sections.slice(-2)).toEqual(["admin", "operations"]);
  await screenshot("api-docs");

  expect(refused).toEqual([]);
  expect(consoleErrors).toEqual([]);
}, 300_000);
