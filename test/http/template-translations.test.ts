// Template translations (issue 28): PUT/GET/list/DELETE /v1/templates/:id/translations/:locale, the
// locale a send renders (subscriber, then request, then template language; pt_BR -> pt -> base),
// the locale recorded on the notification, and preview/validate per locale.
import { beforeAll, describe, expect, test } from "bun:test";
import { acceptNotification } from "../../domain/notifications/accept";
import { chooseLocale, fallbackChain, normalizeLocale } from "../../domain/templates/locale";
import { stepAddress } from "../../domain/workflows/recipients";
import { sql } from "../../store/db";
import { call, createTenant } from "../support/fixtures";

let T: Awaited<ReturnType<typeof createTenant>>;
let other: Awaited<ReturnType<typeof createTenant>>;
const uniq = () => crypto.randomUUID().slice(0, 8);

const put = (tpl: string, locale: string, body: unknown, key = T.sandboxKey) =>
  call("PUT", `/v1/templates/${tpl}/translations/${locale}`, { key, body });

async function template(body: Record<string, unknown> = {}) {
  const slug = `tr-${uniq()}`;
  const r = await call("POST", "/v1/templates", {
    key: T.sandboxKey,
    body: {
      slug,
      name: "Code",
      channel: "email",
      content: "Your code is {{ code }}",
      variants: { subject: "Code for {{ name }}", html_body: "<p>{{ code }}</p>" },
      language: "en",
      ...body,
    },
  });
  expect(r.status).toBe(201);
  return r.body.data as { id: string; slug: string };
}

beforeAll(async () => {
  T = await createTenant();
  other = await createTenant();
});

describe("locale rules (pure)", () => {
  test("pt_BR and pt-BR are one locale; the chain drops the region, then the script", () => {
    expect(normalizeLocale("pt-br")).toBe("pt_BR");
    expect(normalizeLocale("pt_BR")).toBe("pt_BR");
    expect(normalizeLocale("EN")).toBe("en");
    expect(normalizeLocale("zh-hant-tw")).toBe("zh_Hant_TW");
    expect(normalizeLocale("es-419")).toBe("es_419");
    for (const bad of ["", "p", "portuguese", "pt_BR_x", "pt__BR", "12", "pt-B"]) expect(normalizeLocale(bad)).toBeNull();
    expect(fallbackChain("zh_Hant_TW")).toEqual(["zh_Hant_TW", "zh_Hant", "zh"]);
    expect(fallbackChain("pt-BR")).toEqual(["pt_BR", "pt"]);
  });

  test("the base wins when the chain reaches the template's language before a translation", () => {
    const base = { content: "base", variants: { subject: "s" }, language: "pt_BR" };
    const trs = { pt: { content: "pt", variants: {} } };
    expect(chooseLocale(base, trs, ["pt-BR"]).content).toBe("base");
    expect(chooseLocale(base, trs, ["pt_PT"])).toMatchObject({ content: "pt", locale: "pt", variants: { subject: "s" } });
    expect(chooseLocale(base, trs, [null, "en"])).toMatchObject({ content: "base", locale: "pt_BR", translated: false });
    expect(chooseLocale(base, trs, [null, undefined])).toMatchObject({ locale: "pt_BR" });
  });
});

describe("PUT/GET/DELETE /v1/templates/:id/translations/:locale", () => {
  test("201 creates, 200 replaces; pt-BR is stored as pt_BR; GET by either spelling; list; delete", async () => {
    const t = await template();
    const a = await put(t.id, "pt-BR", { content: "Seu código é {{ code }}", variants: { subject: "Código de {{ name }}" } });
    expect(a.status).toBe(201);
    expect(a.body.data).toMatchObject({
      template_id: t.id,
      locale: "pt_BR",
      content: "Seu código é {{ code }}",
      variants: { subject: "Código de {{ name }}" },
      variables: ["code", "name"],
      warnings: [],
    });
    expect(a.body.data.created_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    const b = await put(t.slug, "pt_BR", { content: "Código: {{ code }}" });
    expect(b.status).toBe(200);
    expect(b.body.data).toMatchObject({ locale: "pt_BR", content: "Código: {{ code }}", variants: {} });
    expect((await put(t.slug, "en-US", { content: "Code: {{ code }}" })).status).toBe(201);

    const one = await call("GET", `/v1/templates/${t.slug}/translations/pt-BR`, { key: T.sandboxKey });
    expect(one.status).toBe(200);
    expect(one.body.data.content).toBe("Código: {{ code }}");
    const list = await call("GET", `/v1/templates/${t.id}/translations`, { key: T.sandboxKey });
    expect(list.status).toBe(200);
    expect(list.body.data.map((x: any) => x.locale)).toEqual(["en_US", "pt_BR"]);

    const del = await call("DELETE", `/v1/templates/${t.id}/translations/pt_BR`, { key: T.sandboxKey });
    expect(del.status).toBe(204);
    const gone = await call("GET", `/v1/templates/${t.id}/translations/pt_BR`, { key: T.sandboxKey });
    expect(gone.status).toBe(404);
    expect(gone.body.error.code).toBe("translation_not_found");
    expect((await call("DELETE", `/v1/templates/${t.id}/translations/pt_BR`, { key: T.sandboxKey })).status).toBe(404);
    const [audit] = await sql`select count(*)::int as n from audit_logs
      where tenant_id = ${T.tenant.id} and resource_id = ${t.id} and action like 'template.translation_%'`;
    expect(audit!.n).toBe(4);
  });

  test("422: a locale that is not one, blank content, bad variant names; nothing stored", async () => {
    const t = await template();
    for (const bad of ["portuguese", "pt_BR_x", "12"]) {
      const r = await put(t.id, bad, { content: "x" });
      expect(r.status).toBe(422);
      expect(r.body.error.code).toBe("validation_failed");
      expect(r.body.error.details.locale).toBeDefined();
    }
    const r = await put(t.id, "en", { content: "  ", variants: { "Bad Key": "x" } });
    expect(r.status).toBe(422);
    expect(Object.keys(r.body.error.details).sort()).toEqual(["content", "variants.Bad Key"]);
    const missing = await call("PUT", `/v1/templates/${t.id}/translations/en`, { key: T.sandboxKey, body: { variants: {} } });
    expect(missing.status).toBe(422);
    expect((await call("GET", `/v1/templates/${t.id}/translations/xx_yy_zz`, { key: T.sandboxKey })).status).toBe(422);
    const list = await call("GET", `/v1/templates/${t.id}/translations`, { key: T.sandboxKey });
    expect(list.body.data).toEqual([]);
  });

  test("an active template's translation must parse; a draft's may not yet", async () => {
    const active = await template({ status: "active" });
    const r = await put(active.id, "pt", { content: "Código {{ code ", variants: { subject: "ok" } });
    expect(r.status).toBe(422);
    expect(r.body.error.details.content).toBeDefined();
    const draft = await template();
    expect((await put(draft.id, "pt", { content: "Código {{ code " })).status).toBe(201);
  });

  test("a variable in the translation and not in the base is a warning", async () => {
    const t = await template();
    const r = await put(t.id, "pt", { content: "Olá {{ first_name }}, código {{ code }}" });
    expect(r.status).toBe(201);
    expect(r.body.data.warnings).toEqual(["Variable in translation pt but not in the base: first_name"]);
    const v = await call("POST", `/v1/templates/${t.id}/validate`, { key: T.sandboxKey });
    expect(v.status).toBe(200);
    expect(v.body.data.warnings).toContain("Variable in translation pt but not in the base: first_name");
    expect(v.body.data.locale).toBe("en");
  });

  test("404 for an unknown template and for another tenant's", async () => {
    const t = await template();
    expect((await put("nope-" + uniq(), "en", { content: "x" })).status).toBe(404);
    const r = await put(t.id, "en", { content: "x" }, other.sandboxKey);
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe("template_not_found");
    expect((await call("GET", `/v1/templates/${t.id}/translations`, { key: other.sandboxKey })).status).toBe(404);
  });
});

describe("preview and validate take a locale", () => {
  test("preview renders the locale's text with the fallback, and says which locale it used", async () => {
    const t = await template();
    await put(t.id, "pt", { content: "Seu código é {{ code }}", variants: { subject: "Código de {{ name }}" } });
    const vars = { code: "123", name: "Ana" };
    const pv = async (locale?: string) =>
      call("POST", `/v1/templates/${t.id}/preview`, { key: T.sandboxKey, body: locale ? { variables: vars, locale } : { variables: vars } });
    const pt = await pv("pt_PT");
    expect(pt.status).toBe(200);
    expect(pt.body.data.locale).toBe("pt");
    expect(pt.body.data.rendered).toMatchObject({ body: "Seu código é 123", subject: "Código de Ana", html_body: "<p>123</p>" });
    const fr = await pv("fr");
    expect(fr.body.data).toMatchObject({ locale: "en", rendered: { body: "Your code is 123", subject: "Code for Ana" } });
    const none = await pv();
    expect(none.body.data.rendered.body).toBe("Your code is 123");
    const bad = await pv("not a locale");
    expect(bad.status).toBe(422);
    expect(bad.body.error.details.locale).toBeDefined();
  });

  test("validate with a locale checks that locale's text", async () => {
    const t = await template();
    await put(t.id, "pt", { content: "Código {{ code " });
    const v = await call("POST", `/v1/templates/${t.id}/validate`, { key: T.sandboxKey, body: { locale: "pt_BR" } });
    expect(v.status).toBe(200);
    expect(v.body.data).toMatchObject({ valid: false, locale: "pt" });
    expect(v.body.data.errors[0]).toMatch(/^content: /);
    const en = await call("POST", `/v1/templates/${t.id}/validate`, { key: T.sandboxKey, body: { locale: "en" } });
    expect(en.body.data).toMatchObject({ valid: true, locale: "en" });
    const all = await call("POST", `/v1/templates/${t.id}/validate`, { key: T.sandboxKey });
    expect(all.body.data.valid).toBe(false);
    expect(all.body.data.errors[0]).toMatch(/^pt content: /);
  });

  test("inline preview and validate accept a locale too: checked like any locale, echoed in its stored spelling", async () => {
    const body = { content: "Oi {{ name }}", channel: "sms", variables: { name: "Ana" } };
    const p = await call("POST", "/v1/templates/preview", { key: T.sandboxKey, body: { ...body, locale: "pt-BR" } });
    expect(p.status).toBe(200);
    expect(p.body.data).toMatchObject({ rendered: { body: "Oi Ana" }, locale: "pt_BR" });
    const v = await call("POST", "/v1/templates/validate", { key: T.sandboxKey, body: { content: "Oi {{ name }}", channel: "sms", locale: "en" } });
    expect(v.status).toBe(200);
    expect(v.body.data).toMatchObject({ valid: true, locale: "en" });
    for (const path of ["/v1/templates/preview", "/v1/templates/validate"]) {
      const bad = await call("POST", path, { key: T.sandboxKey, body: { content: "x", channel: "sms", locale: "pt_br_x" } });
      expect(bad.status).toBe(422);
      expect(bad.body.error.details.locale).toBeDefined();
    }
  });
});

describe("sends render in the recipient's locale and record it", () => {
  let tpl: { id: string; slug: string };
  beforeAll(async () => {
    tpl = await template();
    await put(tpl.id, "pt_BR", { content: "Seu código é {{ code }}", variants: { subject: "Código (BR)" } });
    await put(tpl.id, "pt", { content: "O seu código é {{ code }}", variants: { subject: "Código (PT)" } });
  });

  async function subscriber(locale: string | null) {
    const email = `s-${uniq()}@example.com`;
    const r = await call("POST", "/v1/subscribers", { key: T.sandboxKey, body: { external_id: `ext-${uniq()}`, email, locale } });
    expect(r.status).toBe(201);
    return email;
  }

  async function sendTo(to: string, extra: Record<string, unknown> = {}) {
    const r = await call("POST", "/v1/notifications", {
      key: T.sandboxKey,
      body: { channel: "email", to, template: tpl.slug, data: { code: "42" }, ...extra },
    });
    expect(r.status).toBe(202);
    const [row] = await sql`select locale, content from notifications where id = ${r.body.data.id}`;
    const detail = await call("GET", `/v1/notifications/${r.body.data.id}`, { key: T.sandboxKey });
    expect(detail.body.data.locale).toBe(row!.locale);
    return row as { locale: string; content: { subject: string; text: string; html: string } };
  }

  test("a pt-BR subscriber gets pt_BR, pt_PT falls back to pt, an unknown locale to the base", async () => {
    const br = await sendTo(await subscriber("pt-BR"));
    expect(br).toMatchObject({ locale: "pt_BR", content: { subject: "Código (BR)", text: "Seu código é 42", html: "<p>42</p>" } });
    const pt = await sendTo(await subscriber("pt_PT"));
    expect(pt).toMatchObject({ locale: "pt", content: { subject: "Código (PT)", text: "O seu código é 42" } });
    const fr = await sendTo(await subscriber("fr"));
    expect(fr).toMatchObject({ locale: "en", content: { subject: "Code for ", text: "Your code is 42" } });
  });

  test("without a subscriber locale the request's locale counts; the subscriber's wins over it", async () => {
    const none = await sendTo(await subscriber(null), { locale: "pt-BR" });
    expect(none.locale).toBe("pt_BR");
    const literal = await sendTo(`nobody-${uniq()}@example.com`, { locale: "pt_PT" });
    expect(literal.locale).toBe("pt");
    const plain = await sendTo(`nobody-${uniq()}@example.com`);
    expect(plain.locale).toBe("en");
    const wins = await sendTo(await subscriber("fr"), { locale: "pt_BR" });
    expect(wins.locale).toBe("en");
  });

  test("a bad request locale is 422 and stores nothing", async () => {
    const to = `nobody-${uniq()}@example.com`;
    const r = await call("POST", "/v1/notifications", {
      key: T.sandboxKey,
      body: { channel: "email", to, template: tpl.slug, data: {}, locale: "brazilian" },
    });
    expect(r.status).toBe(422);
    expect(r.body.error.details.locale).toBeDefined();
    const [n] = await sql`select count(*)::int as n from notifications where recipient = ${to}`;
    expect(n!.n).toBe(0);
  });

  test("raw content records no locale", async () => {
    const r = await call("POST", "/v1/notifications", {
      key: T.sandboxKey,
      body: { channel: "email", to: `raw-${uniq()}@example.com`, data: { subject: "s", content: "c" }, locale: "pt_BR" },
    });
    const [row] = await sql`select locale from notifications where id = ${r.body.data.id}`;
    expect(row!.locale).toBeNull();
  });

  test("workflow steps: the run's subscriber's locale picks the text (stepAddress carries it to accept)", async () => {
    const ext = `wf-${uniq()}`;
    const s = await call("POST", "/v1/subscribers", { key: T.sandboxKey, body: { external_id: ext, email: `${ext}@example.com`, locale: "pt_PT" } });
    const address = await stepAddress(
      { tenant_id: T.tenant.id, environment: "sandbox", recipient: ext, subscriber_id: s.body.data.id },
      "email",
    );
    expect(address.ok).toBe(true);
    if (!address.ok) return;
    expect(address.subscriber?.locale).toBe("pt_PT");
    const n = await acceptNotification({
      tenantId: T.tenant.id,
      environment: "sandbox",
      channel: "email",
      recipient: address.recipient,
      template: tpl.slug,
      data: { code: "7" },
      subscriber: address.subscriber,
      idempotencyKey: `wfrun:${crypto.randomUUID()}:step:0`,
    });
    const [row] = await sql`select locale, content from notifications where id = ${n.id}`;
    expect(row).toMatchObject({ locale: "pt", content: { text: "O seu código é 7" } });
  });
});
