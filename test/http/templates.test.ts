// HTTP tests of /v1/templates (SPEC Endpoints "Templates", DESIGN.md 6 status rules) through
// app.handle against the real test database; each test file makes its own tenants.
import { beforeAll, describe, expect, test } from "bun:test";
import { ApiError } from "../support/app-error-status";
import { sql } from "../../store/db";
import { assertTemplateUsable, findTemplateForSend } from "../../store/templates";
import { call, createKey, createTenant } from "../support/fixtures";

let key: string; // production secret key
let sandboxKey: string;
let tenantId: string;
let otherKey: string; // another tenant

const uniq = () => crypto.randomUUID().slice(0, 8);

beforeAll(async () => {
  const t = await createTenant();
  key = t.secretKey;
  sandboxKey = t.sandboxKey;
  tenantId = t.tenant.id;
  otherKey = (await createTenant()).secretKey;
});

async function create(body: Record<string, unknown>, k = key) {
  return call("POST", "/v1/templates", { key: k, body: { name: "Template", channel: "sms", content: "Hi", ...body } });
}

describe("POST /v1/templates", () => {
  test("201 returns id, slug, name, channel, content, variables, status (SPEC) and the other fields with defaults", async () => {
    const slug = `welcome-${uniq()}`;
    const r = await create({
      slug,
      name: "Welcome",
      channel: "email",
      content: "Olá {{ user.name }}, seu código é {{ code }}",
      variants: { subject: "Bem-vindo {{ user.first_name }}", html_body: "<p>{{ user.name }}</p>" },
    });
    expect(r.status).toBe(201);
    const d = r.body.data;
    expect(d.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(d).toMatchObject({
      slug,
      name: "Welcome",
      channel: "email",
      content: "Olá {{ user.name }}, seu código é {{ code }}",
      status: "draft",
      language: "pt_BR",
      metadata: {},
      provider_template_id: null,
      variants: { subject: "Bem-vindo {{ user.first_name }}", html_body: "<p>{{ user.name }}</p>" },
    });
    // SPEC: extracted automatically when omitted; nested paths included
    expect(d.variables).toEqual(["user.name", "code", "user.first_name"]);
    expect(d.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(d.updated_at).toBe(d.created_at);
  });

  test("declared variables, language, status, metadata and provider_template_id are kept as given", async () => {
    const r = await create({
      slug: `given-${uniq()}`,
      content: "{{ a }}",
      variables: ["a", "b"],
      language: "en-US",
      status: "active",
      metadata: { team: "growth", n: 1 },
      provider_template_id: "d-123",
    });
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({
      variables: ["a", "b"],
      language: "en-US",
      status: "active",
      metadata: { team: "growth", n: 1 },
      provider_template_id: "d-123",
    });
  });

  test("422 validation_failed names every bad field (slug rule, channel and status enums, blank name/content)", async () => {
    const r = await create({ slug: "Bad Slug!", name: " ", channel: "fax", content: "", status: "published" });
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe("validation_failed");
    expect(Object.keys(r.body.error.details).sort()).toEqual(["channel", "content", "name", "slug", "status"]);
  });

  test("422 for a slug longer than 100 characters; 100 is fine", async () => {
    expect((await create({ slug: "a".repeat(101) })).status).toBe(422);
    expect((await create({ slug: `${uniq()}${"a".repeat(92)}` })).status).toBe(201);
  });

  test("422 when required fields are missing", async () => {
    const r = await call("POST", "/v1/templates", { key, body: { slug: `x-${uniq()}` } });
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe("validation_failed");
    expect(r.body.error.details).toBeDefined();
  });

  test("a slug is unique per tenant and environment: a second one is 409 conflict with details.slug ['is already taken']", async () => {
    const slug = `dup-${uniq()}`;
    expect((await create({ slug })).status).toBe(201);
    const again = await create({ slug });
    expect(again.status).toBe(409);
    expect(again.body.error).toEqual({ code: "conflict", message: "A template with this slug already exists", details: { slug: ["is already taken"] } });
    // other environment and other tenant are separate namespaces
    expect((await create({ slug }, sandboxKey)).status).toBe(201);
    expect((await create({ slug }, otherKey)).status).toBe(201);
  });

  test("a draft may hold a Liquid syntax error; an active template may not (422 details.content)", async () => {
    expect((await create({ slug: `draft-${uniq()}`, content: "Hi {{ name " })).status).toBe(201);
    const r = await create({ slug: `act-${uniq()}`, content: "Hi {{ name ", status: "active" });
    expect(r.status).toBe(422);
    expect(r.body.error.details.content.length).toBe(1);
    const v = await create({ slug: `actv-${uniq()}`, channel: "email", status: "active", variants: { subject: "{% if %}" } });
    expect(v.status).toBe(422);
    expect(Object.keys(v.body.error.details)).toEqual(["variants.subject"]);
  });

  test("401 without a key; 403 for a read-only key; the audit log records the creation", async () => {
    expect((await call("POST", "/v1/templates", { body: { slug: "x", name: "x", channel: "sms", content: "x" } })).status).toBe(401);
    const ro = await createKey(tenantId, { permissions: ["read"] });
    const denied = await create({ slug: `ro-${uniq()}` }, ro.raw);
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe("insufficient_permissions");
    const ok = await create({ slug: `audited-${uniq()}` });
    const rows = await sql`select action, resource_type, actor_type from audit_logs where resource_id = ${ok.body.data.id}`;
    expect(rows).toEqual([{ action: "template.created", resource_type: "template", actor_type: "api_key" }] as any);
  });
});

describe("GET /v1/templates", () => {
  let t: Awaited<ReturnType<typeof createTenant>>;
  beforeAll(async () => {
    t = await createTenant();
    await create({ slug: "e-draft", channel: "email" }, t.secretKey);
    await create({ slug: "e-active", channel: "email", status: "active" }, t.secretKey);
    await create({ slug: "s-active", channel: "sms", status: "active" }, t.secretKey);
    await create({ slug: "sandbox-only", channel: "sms" }, t.sandboxKey);
  });

  test("200 list of the environment's templates, newest first", async () => {
    const r = await call("GET", "/v1/templates", { key: t.secretKey });
    expect(r.status).toBe(200);
    expect(r.body.data.map((x: any) => x.slug)).toEqual(["s-active", "e-active", "e-draft"]);
    expect(r.body.meta).toEqual({ cursor: null, has_more: false });
  });

  test("filters by channel and status, alone and together", async () => {
    const slugs = async (q: string) => (await call("GET", `/v1/templates${q}`, { key: t.secretKey })).body.data.map((x: any) => x.slug);
    expect(await slugs("?channel=email")).toEqual(["e-active", "e-draft"]);
    expect(await slugs("?status=active")).toEqual(["s-active", "e-active"]);
    expect(await slugs("?channel=email&status=draft")).toEqual(["e-draft"]);
    expect(await slugs("?channel=push")).toEqual([]);
  });

  test("422 on an unknown channel or status", async () => {
    const a = await call("GET", "/v1/templates?channel=fax", { key: t.secretKey });
    expect(a.status).toBe(422);
    expect(a.body.error.details.channel).toBeDefined();
    const b = await call("GET", "/v1/templates?status=published", { key: t.secretKey });
    expect(b.status).toBe(422);
    expect(b.body.error.details.status).toBeDefined();
  });

  test("cursor paging with limit", async () => {
    const p1 = await call("GET", "/v1/templates?limit=2", { key: t.secretKey });
    expect(p1.body.data.length).toBe(2);
    expect(p1.body.meta.has_more).toBe(true);
    const p2 = await call("GET", `/v1/templates?limit=2&cursor=${p1.body.meta.cursor}`, { key: t.secretKey });
    expect(p2.body.data.map((x: any) => x.slug)).toEqual(["e-draft"]);
    expect(p2.body.meta).toEqual({ cursor: null, has_more: false });
    expect((await call("GET", "/v1/templates?limit=0", { key: t.secretKey })).status).toBe(422);
    expect((await call("GET", "/v1/templates?cursor=garbage", { key: t.secretKey })).status).toBe(422);
  });

  test("the sandbox environment sees only its own templates", async () => {
    const r = await call("GET", "/v1/templates", { key: t.sandboxKey });
    expect(r.body.data.map((x: any) => x.slug)).toEqual(["sandbox-only"]);
  });
});

describe("GET /v1/templates/:id", () => {
  test("200 by id and by slug", async () => {
    const slug = `get-${uniq()}`;
    const c = await create({ slug });
    const byId = await call("GET", `/v1/templates/${c.body.data.id}`, { key });
    expect(byId.status).toBe(200);
    expect(byId.body.data).toEqual(c.body.data);
    const bySlug = await call("GET", `/v1/templates/${slug}`, { key });
    expect(bySlug.body.data).toEqual(c.body.data);
  });

  test("404 template_not_found for an unknown id/slug, another tenant's, or the other environment's", async () => {
    const c = await create({ slug: `mine-${uniq()}` });
    for (const [k, path] of [
      [key, `/v1/templates/${crypto.randomUUID()}`],
      [key, "/v1/templates/nope-nothing"],
      [otherKey, `/v1/templates/${c.body.data.id}`],
      [otherKey, `/v1/templates/${c.body.data.slug}`],
      [sandboxKey, `/v1/templates/${c.body.data.id}`],
    ] as const) {
      const r = await call("GET", path, { key: k });
      expect(r.status).toBe(404);
      expect(r.body.error.code).toBe("template_not_found");
    }
  });
});

describe("PUT /v1/templates/:id", () => {
  test("partial update: given fields change, others keep their value; variables re-extracted from new content", async () => {
    const c = await create({ slug: `put-${uniq()}`, content: "{{ a }}", metadata: { k: 1 } });
    const r = await call("PUT", `/v1/templates/${c.body.data.id}`, { key, body: { content: "{{ b.c }} {{ d }}", name: "Renamed" } });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ name: "Renamed", content: "{{ b.c }} {{ d }}", variables: ["b.c", "d"], metadata: { k: 1 } });
    expect(r.body.data.slug).toBe(c.body.data.slug);
    expect(Date.parse(r.body.data.updated_at)).toBeGreaterThanOrEqual(Date.parse(c.body.data.updated_at));
    const g = await call("GET", `/v1/templates/${c.body.data.id}`, { key });
    expect(g.body.data).toEqual(r.body.data);
  });

  test("variables given with new content are kept; unchanged content keeps the stored variables", async () => {
    const c = await create({ slug: `putv-${uniq()}`, content: "{{ a }}", variables: ["a", "extra"] });
    const kept = await call("PUT", `/v1/templates/${c.body.data.slug}`, { key, body: { status: "active" } });
    expect(kept.body.data.variables).toEqual(["a", "extra"]);
    expect(kept.body.data.status).toBe("active");
    const given = await call("PUT", `/v1/templates/${c.body.data.slug}`, { key, body: { content: "{{ z }}", variables: ["z", "y"] } });
    expect(given.body.data.variables).toEqual(["z", "y"]);
  });

  test("status moves draft -> active -> draft; activating content with a syntax error is 422", async () => {
    const c = await create({ slug: `st-${uniq()}`, content: "{{ broken " });
    const bad = await call("PUT", `/v1/templates/${c.body.data.id}`, { key, body: { status: "active" } });
    expect(bad.status).toBe(422);
    expect(bad.body.error.details.content).toBeDefined();
    const fixed = await call("PUT", `/v1/templates/${c.body.data.id}`, { key, body: { status: "active", content: "{{ ok }}" } });
    expect(fixed.body.data.status).toBe("active");
    const back = await call("PUT", `/v1/templates/${c.body.data.id}`, { key, body: { status: "draft" } });
    expect(back.body.data.status).toBe("draft");
  });

  test("409 for a slug taken by another template, 422 on bad fields; 404 for unknown or foreign templates", async () => {
    const a = await create({ slug: `pa-${uniq()}` });
    const b = await create({ slug: `pb-${uniq()}` });
    const taken = await call("PUT", `/v1/templates/${b.body.data.id}`, { key, body: { slug: a.body.data.slug } });
    expect(taken.status).toBe(409);
    expect(taken.body.error.details).toEqual({ slug: ["is already taken"] });
    const bad = await call("PUT", `/v1/templates/${b.body.data.id}`, { key, body: { channel: "fax", status: "x" } });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.error.details).sort()).toEqual(["channel", "status"]);
    expect((await call("PUT", `/v1/templates/${crypto.randomUUID()}`, { key, body: { name: "x" } })).status).toBe(404);
    const foreign = await call("PUT", `/v1/templates/${a.body.data.id}`, { key: otherKey, body: { name: "hijack" } });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe("template_not_found");
    expect((await call("GET", `/v1/templates/${a.body.data.id}`, { key })).body.data.name).toBe("Template");
  });
});

describe("DELETE /v1/templates/:id", () => {
  test("204, then 404; the slug is free again", async () => {
    const slug = `del-${uniq()}`;
    const c = await create({ slug });
    const d = await call("DELETE", `/v1/templates/${c.body.data.id}`, { key });
    expect(d.status).toBe(204);
    expect(d.text).toBe("");
    expect((await call("GET", `/v1/templates/${c.body.data.id}`, { key })).status).toBe(404);
    expect((await call("DELETE", `/v1/templates/${c.body.data.id}`, { key })).status).toBe(404);
    const again = await create({ slug });
    expect(again.status).toBe(201);
    expect(again.body.data.id).not.toBe(c.body.data.id);
  });

  test("another tenant cannot delete it (404) and it stays", async () => {
    const c = await create({ slug: `keep-${uniq()}` });
    expect((await call("DELETE", `/v1/templates/${c.body.data.id}`, { key: otherKey })).status).toBe(404);
    expect((await call("GET", `/v1/templates/${c.body.data.id}`, { key })).status).toBe(200);
  });
});

describe("preview", () => {
  test("POST /v1/templates/:id/preview renders body, subject and html_body; HTML escaped in html_body only", async () => {
    const c = await create({
      slug: `pv-${uniq()}`,
      channel: "email",
      content: "Hi {{ user.name }}",
      variants: { subject: "For {{ user.name }}", html_body: "<p>{{ user.name }}</p>" },
    });
    const r = await call("POST", `/v1/templates/${c.body.data.id}/preview`, { key, body: { variables: { user: { name: "<Ana & Bia>" } } } });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({
      rendered: { body: "Hi <Ana & Bia>", subject: "For <Ana & Bia>", html_body: "<p>&lt;Ana &amp; Bia&gt;</p>" },
      variables: ["user.name"],
      validation: { valid: true, errors: [], warnings: [] },
    });
  });

  test("missing variables render empty with a warning (DESIGN.md 6); no body at all is allowed", async () => {
    const c = await create({ slug: `pvm-${uniq()}`, content: "Code {{ code }}." });
    const r = await call("POST", `/v1/templates/${c.body.data.slug}/preview`, { key });
    expect(r.status).toBe(200);
    expect(r.body.data.rendered).toEqual({ body: "Code ." });
    expect(r.body.data.validation).toEqual({ valid: true, errors: [], warnings: ["Missing variable: code"] });
  });

  test("a stored draft with a syntax error previews as valid: false", async () => {
    const c = await create({ slug: `pvs-${uniq()}`, content: "{% if x %}never closed" });
    const r = await call("POST", `/v1/templates/${c.body.data.id}/preview`, { key, body: { variables: {} } });
    expect(r.status).toBe(200);
    expect(r.body.data.validation.valid).toBe(false);
    expect(r.body.data.validation.errors.length).toBe(1);
  });

  test("404 for an unknown template", async () => {
    const r = await call("POST", `/v1/templates/${crypto.randomUUID()}/preview`, { key, body: {} });
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe("template_not_found");
  });

  test("POST /v1/templates/preview renders inline content; the static path wins over a template slugged 'preview'", async () => {
    const t = await createTenant();
    await create({ slug: "preview", content: "stored" }, t.secretKey);
    const r = await call("POST", "/v1/templates/preview", {
      key: t.secretKey,
      body: { content: "Hi {{ name }}", channel: "push", variables: { name: "Ana" }, variants: { title: "T {{ name }}" } },
    });
    expect(r.status).toBe(200);
    expect(r.body.data.rendered).toEqual({ body: "Hi Ana", title: "T Ana" });
    expect(r.body.data.variables).toEqual(["name"]);
    // GET still reaches the stored template by that slug
    expect((await call("GET", "/v1/templates/preview", { key: t.secretKey })).body.data.content).toBe("stored");
  });

  test("inline preview: 422 on a bad channel or missing content", async () => {
    const a = await call("POST", "/v1/templates/preview", { key, body: { content: "x", channel: "fax" } });
    expect(a.status).toBe(422);
    expect(a.body.error.details.channel).toBeDefined();
    expect((await call("POST", "/v1/templates/preview", { key, body: { channel: "sms" } })).status).toBe(422);
  });
});

describe("validate", () => {
  test("POST /v1/templates/:id/validate: email without a subject variant warns (SPEC); variables listed", async () => {
    const c = await create({ slug: `val-${uniq()}`, channel: "email", content: "Hi {{ user.name }}" });
    const r = await call("POST", `/v1/templates/${c.body.data.id}/validate`, { key });
    expect(r.status).toBe(200);
    expect(r.body.data.valid).toBe(true);
    expect(r.body.data.errors).toEqual([]);
    expect(r.body.data.warnings).toEqual(["Email templates should define a subject variant"]);
    expect(r.body.data.variables).toEqual(["user.name"]);
  });

  test("variables used but not declared are warned about", async () => {
    const c = await create({ slug: `valu-${uniq()}`, content: "{{ a }} {{ b }}", variables: ["a"] });
    const r = await call("POST", `/v1/templates/${c.body.data.slug}/validate`, { key });
    expect(r.body.data.warnings).toEqual(["Variable used but not declared: b"]);
  });

  test("404 for an unknown template", async () => {
    expect((await call("POST", "/v1/templates/none-here/validate", { key })).status).toBe(404);
  });

  test("POST /v1/templates/validate: syntax error -> valid: false; a good email with subject has no warnings", async () => {
    const bad = await call("POST", "/v1/templates/validate", { key, body: { content: "{{ x ", channel: "sms" } });
    expect(bad.status).toBe(200);
    expect(bad.body.data.valid).toBe(false);
    expect(bad.body.data.errors.length).toBe(1);
    const good = await call("POST", "/v1/templates/validate", {
      key,
      body: { content: "{{ x }}", channel: "email", variants: { subject: "S {{ y }}" } },
    });
    expect(good.body.data).toEqual({ valid: true, errors: [], warnings: [], variables: ["x", "y"] });
  });

  test("inline validate: 422 on a bad channel", async () => {
    const r = await call("POST", "/v1/templates/validate", { key, body: { content: "x", channel: "telegram" } });
    expect(r.status).toBe(422);
  });
});

describe("findTemplateForSend / assertTemplateUsable (channel sender)", () => {
  test("finds by slug or id in the scope; unknown -> 404 template_not_found", async () => {
    const c = await create({ slug: `send-${uniq()}` });
    expect((await findTemplateForSend(tenantId, "production", c.body.data.slug)).id).toBe(c.body.data.id);
    expect((await findTemplateForSend(tenantId, "production", c.body.data.id)).slug).toBe(c.body.data.slug);
    const err = await findTemplateForSend(tenantId, "sandbox", c.body.data.slug).catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect([err.status, err.code]).toEqual([404, "template_not_found"]);
  });

  test("DESIGN.md 6: any status is usable in sandbox; production needs active (422 template_not_active)", () => {
    expect(() => assertTemplateUsable({ slug: "x", status: "draft" }, "sandbox")).not.toThrow();
    expect(() => assertTemplateUsable({ slug: "x", status: "active" }, "production")).not.toThrow();
    try {
      assertTemplateUsable({ slug: "x", status: "draft" }, "production");
      throw new Error("should throw");
    } catch (e) {
      expect(e).toBeInstanceOf(ApiError);
      expect([(e as ApiError).status, (e as ApiError).code]).toEqual([422, "template_not_active"]);
    }
  });
});

describe("concurrency and idempotency", () => {
  test("two concurrent creates of one slug: one 201, the others 409 slug taken (the unique index decides)", async () => {
    const slug = `race-${uniq()}`;
    const results = await Promise.all([create({ slug }), create({ slug }), create({ slug })]);
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409]);
    for (const r of results.filter((r) => r.status === 409)) expect(r.body.error.details).toEqual({ slug: ["is already taken"] });
  });

  test("SPEC Common rules: a repeated POST with the same Idempotency-Key replays the first response", async () => {
    const slug = `idem-${uniq()}`;
    const headers = { "idempotency-key": `k-${uniq()}` };
    const body = { slug, name: "Idem", channel: "sms", content: "Hi" };
    const first = await call("POST", "/v1/templates", { key, body, headers });
    const second = await call("POST", "/v1/templates", { key, body, headers });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.text).toBe(first.text);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    const [{ n }] = (await sql`select count(*)::int as n from templates where tenant_id = ${tenantId} and slug = ${slug}`) as any;
    expect(n).toBe(1);
  });
});
