// The hosted preference center over HTTP (issue 28): the signed expiring link, the page in the
// subscriber's language with required categories locked, the form save (audited, evented), refused
// tampered and expired links, branding, and {{ preferences_url }} in a template.
import { beforeAll, describe, expect, test } from "bun:test";
import { createPreferenceToken, verifyPreferenceToken } from "../../domain/preferences/link-token";
import { sql } from "../../store/db";
import { call, createTenant } from "../support/fixtures";

let T: Awaited<ReturnType<typeof createTenant>>;
const uniq = () => crypto.randomUUID().slice(0, 8);

async function subscriber(locale: string | null) {
  const r = await call("POST", "/v1/subscribers", {
    key: T.sandboxKey,
    body: { external_id: `pc-${uniq()}`, email: `pc-${uniq()}@example.com`, name: "Ana", locale },
  });
  expect(r.status).toBe(201);
  return r.body.data as { id: string; external_id: string };
}

const pathOf = (url: string) => new URL(url).pathname;

async function link(subId: string, body?: unknown) {
  const r = await call("POST", `/v1/subscribers/${subId}/preference-link`, { key: T.sandboxKey, body });
  expect(r.status).toBe(201);
  return r.body.data as { url: string; expires_at: string };
}

function form(fields: Record<string, string>) {
  return {
    rawBody: new URLSearchParams(fields).toString(),
    headers: { "content-type": "application/x-www-form-urlencoded" },
  };
}

beforeAll(async () => {
  T = await createTenant(`Loja ${uniq()}`);
  await call("POST", "/v1/preference-categories", { key: T.sandboxKey, body: { key: "security", name: "Segurança", required: true } });
  await call("POST", "/v1/preference-categories", {
    key: T.sandboxKey,
    body: { key: "offers", name: "Ofertas", description: "Promoções <b>semanais</b>", default_enabled_channels: ["email"] },
  });
});

describe("POST /v1/subscribers/:id/preference-link", () => {
  test("201 {url, expires_at}: 7 days by default, expires_in in seconds; by external_id too; 404 and 422", async () => {
    const s = await subscriber("pt-BR");
    const before = Date.now();
    const a = await link(s.id);
    expect(a.url).toMatch(/\/preferences\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    const days = (Date.parse(a.expires_at) - before) / 86_400_000;
    expect(days).toBeGreaterThan(6.99);
    expect(days).toBeLessThan(7.01);
    const b = await link(s.external_id, { expires_in: 3600 });
    expect(Math.abs(Date.parse(b.expires_at) - Date.now() - 3_600_000)).toBeLessThan(5_000);
    const missing = await call("POST", `/v1/subscribers/nobody-${uniq()}/preference-link`, { key: T.sandboxKey });
    expect(missing.status).toBe(404);
    const bad = await call("POST", `/v1/subscribers/${s.id}/preference-link`, { key: T.sandboxKey, body: { expires_in: 5 } });
    expect(bad.status).toBe(422);
    expect(bad.body.error.details.expires_in).toBeDefined();
  });
});

describe("GET/POST /preferences/:token", () => {
  test("the page in pt_BR: tenant name, categories x channels, required locked, escaped text, no script", async () => {
    const s = await subscriber("pt_BR");
    const r = await call("GET", pathOf((await link(s.id)).url));
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toContain("text/html");
    expect(r.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(r.text).toContain('lang="pt-BR"');
    expect(r.text).toContain("Preferências de notificação");
    expect(r.text).toContain(T.tenant.name);
    expect(r.text).toContain("Promoções &#60;b&#62;semanais&#60;/b&#62;");
    expect(r.text).toContain('name="p:offers:email" checked');
    expect(r.text).toContain('name="p:offers:sms" >');
    expect(r.text).not.toContain('name="p:security:email"'); // locked: no field to post
    expect(r.text).toContain("Obrigatória: sempre enviada");
    expect(r.text).not.toContain("<script");
  });

  test("en for others; the brand color set on the tenant", async () => {
    const put = await call("PUT", "/v1/preference-center/settings", { key: T.sandboxKey, body: { brand_color: "#0F766E" } });
    expect(put.status).toBe(200);
    expect(put.body.data.brand_color).toBe("#0f766e");
    expect((await call("PUT", "/v1/preference-center/settings", { key: T.sandboxKey, body: { brand_color: "teal" } })).status).toBe(422);
    const s = await subscriber("en-US");
    const r = await call("GET", pathOf((await link(s.id)).url));
    expect(r.text).toContain('lang="en"');
    expect(r.text).toContain("Notification preferences");
    expect(r.text).toContain("#0f766e");
  });

  test("the form saves the switches that changed, audited with a subscriber.preferences_updated event; the API agrees", async () => {
    const s = await subscriber("pt_BR");
    const path = pathOf((await link(s.id)).url);
    // offers: email off (was on by default), sms on (was off)
    const r = await call("POST", path, form({ "p:offers:sms": "on", "p:security:email": "", _: "1" }));
    expect(r.status).toBe(303);
    expect(r.headers.get("location")).toBe(`${path}?saved=1`);
    const prefs = await call("GET", `/v1/subscribers/${s.id}/preferences`, { key: T.sandboxKey });
    expect(prefs.body.data).toEqual([
      { category: "offers", channel: "email", enabled: false },
      { category: "offers", channel: "sms", enabled: true },
    ]);
    const [audit] = await sql`select actor_type, metadata from audit_logs
      where tenant_id = ${T.tenant.id} and resource_id = ${s.id} and action = 'subscriber.preferences_updated'`;
    expect(audit!.metadata).toMatchObject({ source: "preference_center" });
    const [ev] = await sql`select data from events where tenant_id = ${T.tenant.id} and type = 'subscriber.preferences_updated'
      and data->'subscriber'->>'id' = ${s.id}`;
    expect(ev!.data).toMatchObject({ subscriber: { id: s.id, external_id: s.external_id }, source: "preference_center" });
    const again = await call("GET", `${path}?saved=1`);
    expect(again.text).toContain("Suas preferências foram salvas.");
    expect(again.text).toContain('name="p:offers:sms" checked');
    // the same form again changes nothing: no second event
    await call("POST", path, form({ "p:offers:sms": "on", _: "1" }));
    const [n] = await sql`select count(*)::int as n from events where tenant_id = ${T.tenant.id}
      and type = 'subscriber.preferences_updated' and data->'subscriber'->>'id' = ${s.id}`;
    expect(n!.n).toBe(1);
  });

  test("a tampered link is 400, an expired one 410 (a page; 400 invalid_token for a client asking for JSON), and neither changes anything", async () => {
    const s = await subscriber(null);
    const path = pathOf((await link(s.id)).url);
    const [payload, sig] = path.slice("/preferences/".length).split(".") as [string, string];
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString());
    const forged = Buffer.from(JSON.stringify({ ...claims, x: claims.x + 3600 })).toString("base64url");
    const html = { headers: { accept: "text/html" } };
    const t1 = await call("GET", `/preferences/${forged}.${sig}`, html);
    expect(t1.status).toBe(400);
    expect(t1.text).toContain("invalid");
    const t2 = await call("GET", `/preferences/${forged}.${sig}`, { headers: { accept: "application/json" } });
    expect(t2.status).toBe(400);
    expect(t2.body.error.code).toBe("invalid_token");
    const f = form({ _: "1" });
    expect((await call("POST", `/preferences/${forged}.${sig}`, { ...f, headers: { ...f.headers, accept: "text/html" } })).status).toBe(400);
    // curl's Accept (*/*), or none: the page, as a browser gets it
    for (const accept of ["*/*", undefined]) {
      const c = await call("GET", "/preferences/garbage", accept ? { headers: { accept } } : {});
      expect(c.status).toBe(400);
      expect(c.headers.get("content-type")).toContain("text/html");
      expect(c.text).toContain("This link is invalid.");
    }
    // the page speaks the browser's language when we have it (the link names no subscriber to ask)
    const pt = await call("GET", "/preferences/garbage", { headers: { accept: "text/html", "accept-language": "pt-BR,pt;q=0.9,en;q=0.8" } });
    expect(pt.status).toBe(400);
    expect(pt.text).toContain("Este link é inválido.");
    expect(pt.text).toContain('<html lang="pt-BR">');
    const de = await call("GET", "/preferences/garbage", { headers: { accept: "text/html", "accept-language": "de-DE,de;q=0.9,pt;q=0.5,en;q=0.7" } });
    expect(de.text).toContain("This link is invalid.");
    const expired = createPreferenceToken({ tenantId: T.tenant.id, environment: "sandbox", subscriberId: s.id, expiresAt: Math.floor(Date.now() / 1000) - 1 });
    expect(verifyPreferenceToken(expired)).toEqual({ ok: false, reason: "expired" });
    const g = await call("GET", `/preferences/${expired}`, html);
    expect(g.status).toBe(410);
    expect(g.text).toContain("expired");
    const gpt = await call("GET", `/preferences/${expired}`, { headers: { accept: "text/html", "accept-language": "pt" } });
    expect(gpt.status).toBe(410);
    expect(gpt.text).toContain("Este link expirou. Peça um novo.");
    const fj = form({ _: "1" });
    const j = await call("POST", `/preferences/${expired}`, { ...fj, headers: { ...fj.headers, accept: "application/json" } });
    expect(j.status).toBe(400);
    expect(j.body.error).toMatchObject({ code: "invalid_token", message: "The preference link has expired" });
    const prefs = await call("GET", `/v1/subscribers/${s.id}/preferences`, { key: T.sandboxKey });
    expect(prefs.body.data).toEqual([]);
  });
});

describe("{{ preferences_url }} in templates", () => {
  test("renders the subscriber's working link; no subscriber, no link", async () => {
    const slug = `pref-${uniq()}`;
    await call("POST", "/v1/templates", {
      key: T.sandboxKey,
      body: { slug, name: "Footer", channel: "email", content: "Manage: {{ preferences_url }}", variants: { subject: "Hi" } },
    });
    const s = await call("POST", "/v1/subscribers", { key: T.sandboxKey, body: { external_id: `pu-${uniq()}`, email: `pu-${uniq()}@example.com` } });
    const n = await call("POST", "/v1/notifications", { key: T.sandboxKey, body: { channel: "email", to: s.body.data.email, template: slug, data: {} } });
    expect(n.status).toBe(202);
    const [row] = await sql`select content, data from notifications where id = ${n.body.data.id}`;
    const url = /Manage: (\S+)/.exec(row!.content.text)![1]!;
    expect(row!.data).toEqual({}); // the link is not stored as data
    const page = await call("GET", pathOf(url));
    expect(page.status).toBe(200);
    const literal = await call("POST", "/v1/notifications", { key: T.sandboxKey, body: { channel: "email", to: `x-${uniq()}@example.com`, template: slug, data: {} } });
    const [r2] = await sql`select content from notifications where id = ${literal.body.data.id}`;
    expect(r2!.content.text).toBe("Manage: ");
  });

  test("a preview shows a link of the real shape and no missing-variable warning; a given value wins", async () => {
    const slug = `prevpref-${uniq()}`;
    const created = await call("POST", "/v1/templates", {
      key: T.sandboxKey,
      body: { slug, name: "Footer", channel: "email", content: "Manage: {{ preferences_url }}", variants: { subject: "Hi" } },
    });
    const p = await call("POST", `/v1/templates/${created.body.data.id}/preview`, { key: T.sandboxKey, body: { variables: {} } });
    expect(p.status).toBe(200);
    expect(p.body.data.rendered.body).toMatch(/^Manage: http\S+\/preferences\/preview$/);
    expect(p.body.data.validation.warnings).not.toContain("Missing variable: preferences_url");
    const given = await call("POST", "/v1/templates/preview", {
      key: T.sandboxKey,
      body: { channel: "email", content: "Manage: {{ preferences_url }}", variants: { subject: "Hi" }, variables: { preferences_url: "https://x.example/p" } },
    });
    expect(given.body.data.rendered.body).toBe("Manage: https://x.example/p");
  });
});
