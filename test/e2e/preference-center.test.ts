// The hosted preference center in a real browser (Debian's chromium): open the signed link, change
// a preference with the plain form (no JavaScript), the API agrees; expired and tampered links are refused.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createPreferenceToken } from "../../domain/preferences/link-token";
import { startServer } from "../../http/server";
import { call, createTenant } from "../support/fixtures";
import { startBrowser, type TestBrowser } from "../support/browser";

let api: ReturnType<typeof startServer>;
let apiUrl: string;
let browser: TestBrowser;
let T: Awaited<ReturnType<typeof createTenant>>;
let sub: { id: string };

beforeAll(async () => {
  api = startServer(0, "127.0.0.1");
  apiUrl = `http://127.0.0.1:${api.port}`;
  T = await createTenant(`Loja E2E ${crypto.randomUUID().slice(0, 6)}`);
  await call("POST", "/v1/preference-categories", { key: T.sandboxKey, body: { key: "security", name: "Segurança", required: true } });
  await call("POST", "/v1/preference-categories", { key: T.sandboxKey, body: { key: "offers", name: "Ofertas", default_enabled_channels: ["email"] } });
  await call("PUT", "/v1/preference-center/settings", { key: T.sandboxKey, body: { brand_color: "#be123c" } });
  const s = await call("POST", "/v1/subscribers", { key: T.sandboxKey, body: { external_id: `e2e-${crypto.randomUUID().slice(0, 8)}`, locale: "pt-BR" } });
  sub = s.body.data;
  browser = await startBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await api?.stop();
});

const local = (url: string) => `${apiUrl}${new URL(url).pathname}`;

describe("hosted preference center", () => {
  test("open the link, turn a channel off and another on, save: the API agrees; no console error", async () => {
    const link = await call("POST", `/v1/subscribers/${sub.id}/preference-link`, { key: T.sandboxKey });
    const p = await browser.newPage();
    await p.page.goto(local(link.body.data.url));
    expect(await p.page.locator("html").getAttribute("lang")).toBe("pt-BR");
    await p.page.getByRole("heading", { name: "Preferências de notificação" }).waitFor();
    expect(await p.page.getByText(T.tenant.name).count()).toBeGreaterThan(0);

    const offers = p.page.getByRole("group", { name: "Ofertas" });
    const security = p.page.getByRole("group", { name: "Segurança" });
    const offersEmail = offers.getByRole("checkbox", { name: "E-mail" });
    expect(await offersEmail.isChecked()).toBe(true);
    expect(await security.getByRole("checkbox", { name: "E-mail" }).isDisabled()).toBe(true);
    expect(await security.getByRole("checkbox", { name: "E-mail" }).isChecked()).toBe(true);

    await offersEmail.uncheck();
    await offers.getByRole("checkbox", { name: "SMS" }).check();
    await p.page.getByRole("button", { name: "Salvar preferências" }).click();
    await p.page.getByRole("status").waitFor();
    expect(await p.page.getByRole("status").textContent()).toContain("Suas preferências foram salvas.");
    expect(await p.page.getByRole("group", { name: "Ofertas" }).getByRole("checkbox", { name: "SMS" }).isChecked()).toBe(true);
    await p.screenshot("preference-center-saved");

    const prefs = await call("GET", `/v1/subscribers/${sub.id}/preferences`, { key: T.sandboxKey });
    expect(prefs.body.data).toEqual([
      { category: "offers", channel: "email", enabled: false },
      { category: "offers", channel: "sms", enabled: true },
    ]);
    expect(p.consoleErrors).toEqual([]);
  }, 60_000);

  test("an expired link and a tampered one are refused with a page saying so", async () => {
    const p = await browser.newPage();
    const expired = createPreferenceToken({ tenantId: T.tenant.id, environment: "sandbox", subscriberId: sub.id, expiresAt: Math.floor(Date.now() / 1000) - 5 });
    const r1 = await p.page.goto(`${apiUrl}/preferences/${expired}`);
    expect(r1!.status()).toBe(410);
    expect(await p.page.textContent("body")).toContain("expired");
    const link = await call("POST", `/v1/subscribers/${sub.id}/preference-link`, { key: T.sandboxKey });
    // one character of the signed claims changed (the signature's last character may only carry padding bits)
    const tampered = local(link.body.data.url).replace(/\/preferences\/(.)/, (_, c) => `/preferences/${c === "e" ? "f" : "e"}`);
    const r2 = await p.page.goto(tampered);
    expect(r2!.status()).toBe(400);
    expect(await p.page.textContent("body")).toContain("invalid");
    expect(await p.page.getByRole("checkbox").count()).toBe(0);
  }, 60_000);
});
