// Preference categories as data (issue 28): CRUD of /v1/preference-categories, a required category
// cannot be turned off, and the send-time rule (tenant defaults when a subscriber chose nothing,
// required ones always sent, unknown categories as before), workflow steps naming a category.
import { beforeAll, describe, expect, test } from "bun:test";
import { suppressionFor } from "../../domain/delivery/suppression";
import { effectivePreferences } from "../../domain/preferences/categories";
import { sql } from "../../store/db";
import { call, createTenant } from "../support/fixtures";

let T: Awaited<ReturnType<typeof createTenant>>;
let other: Awaited<ReturnType<typeof createTenant>>;
const uniq = () => crypto.randomUUID().slice(0, 8);
const post = (body: unknown, key = T.sandboxKey) => call("POST", "/v1/preference-categories", { key, body });

beforeAll(async () => {
  T = await createTenant();
  other = await createTenant();
});

describe("/v1/preference-categories", () => {
  test("201 with defaults (every channel, not required); list, get, partial PUT, delete", async () => {
    const r = await post({ key: "news", name: "News" });
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({
      key: "news",
      name: "News",
      description: null,
      default_enabled_channels: ["email", "whatsapp", "sms", "in_app", "push"],
      required: false,
    });
    expect(r.body.data.id).toMatch(/^[0-9a-f-]{36}$/);
    const s = await post({ key: "security", name: "Security", description: "Sign-ins", required: true, default_enabled_channels: ["email", "email"] });
    expect(s.body.data).toMatchObject({ required: true, default_enabled_channels: ["email"], description: "Sign-ins" });

    const list = await call("GET", "/v1/preference-categories", { key: T.sandboxKey });
    expect(list.body.data.map((c: any) => c.key)).toEqual(["news", "security"]);
    expect((await call("GET", "/v1/preference-categories", { key: other.sandboxKey })).body.data).toEqual([]);
    expect((await call("GET", "/v1/preference-categories", { key: T.secretKey })).body.data).toEqual([]); // production is another environment

    const u = await call("PUT", "/v1/preference-categories/news", { key: T.sandboxKey, body: { default_enabled_channels: ["in_app"] } });
    expect(u.status).toBe(200);
    expect(u.body.data).toMatchObject({ key: "news", name: "News", default_enabled_channels: ["in_app"] });
    const g = await call("GET", "/v1/preference-categories/news", { key: T.sandboxKey });
    expect(g.body.data.default_enabled_channels).toEqual(["in_app"]);

    expect((await call("DELETE", "/v1/preference-categories/news", { key: T.sandboxKey })).status).toBe(204);
    const gone = await call("GET", "/v1/preference-categories/news", { key: T.sandboxKey });
    expect(gone.status).toBe(404);
    expect(gone.body.error.code).toBe("preference_category_not_found");
    expect((await call("DELETE", "/v1/preference-categories/news", { key: T.sandboxKey })).status).toBe(404);
    const [a] = await sql`select count(*)::int as n from audit_logs where tenant_id = ${T.tenant.id} and action like 'preference_category.%'`;
    expect(a!.n).toBe(4);
  });

  test("409 for a key taken; 422 for a bad key, a reserved key, an unknown channel, a blank name, a key change", async () => {
    const key = `k-${uniq()}`;
    expect((await post({ key, name: "K" })).status).toBe(201);
    const dup = await post({ key, name: "K" });
    expect(dup.status).toBe(409);
    expect(dup.body.error.details.key).toBeDefined();
    const bad = await post({ key: "Bad Key", name: " ", default_enabled_channels: ["email", "fax"] });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.error.details).sort()).toEqual(["default_enabled_channels[1]", "key", "name"]);
    expect((await post({ key: "all", name: "All" })).status).toBe(422);
    expect((await post({ name: "no key" })).status).toBe(422);
    const change = await call("PUT", `/v1/preference-categories/${key}`, { key: T.sandboxKey, body: { key: "other-key" } });
    expect(change.status).toBe(422);
    expect(change.body.error.details.key).toBeDefined();
    expect((await call("PUT", "/v1/preference-categories/nope", { key: T.sandboxKey, body: { name: "x" } })).status).toBe(404);
  });

  test("the path takes the id POST answered as well as the key; not another tenant's id", async () => {
    const key = `byid-${uniq()}`;
    const id = (await post({ key, name: "By id" })).body.data.id as string;
    const g = await call("GET", `/v1/preference-categories/${id}`, { key: T.sandboxKey });
    expect(g.status).toBe(200);
    expect(g.body.data).toMatchObject({ id, key });
    expect((await call("GET", `/v1/preference-categories/${id}`, { key: other.sandboxKey })).status).toBe(404);
    const u = await call("PUT", `/v1/preference-categories/${id}`, { key: T.sandboxKey, body: { name: "Renamed" } });
    expect(u.status).toBe(200);
    expect(u.body.data).toMatchObject({ id, key, name: "Renamed" });
    expect((await call("DELETE", `/v1/preference-categories/${id}`, { key: other.sandboxKey })).status).toBe(404);
    expect((await call("DELETE", `/v1/preference-categories/${id}`, { key: T.sandboxKey })).status).toBe(204);
    expect((await call("GET", `/v1/preference-categories/${key}`, { key: T.sandboxKey })).status).toBe(404);
  });
});

describe("preferences against categories", () => {
  let subId: string;
  let email: string;
  beforeAll(async () => {
    await post({ key: "marketing", name: "Offers", default_enabled_channels: ["in_app"] });
    await post({ key: "alerts", name: "Alerts", required: true, default_enabled_channels: ["email"] });
    email = `p-${uniq()}@example.com`;
    const s = await call("POST", "/v1/subscribers", { key: T.sandboxKey, body: { external_id: `p-${uniq()}`, email } });
    subId = s.body.data.id;
  });
  const reason = (channel: string, category: string | null, subscriberId: string | null = subId, recipient = email) =>
    suppressionFor({ tenantId: T.tenant.id, environment: "sandbox", channel, recipient, subscriberId, category });

  test("a required category cannot be turned off (422, nothing stored); others can", async () => {
    const r = await call("PUT", `/v1/subscribers/${subId}/preferences`, {
      key: T.sandboxKey,
      body: { preferences: [{ category: "marketing", channel: "sms", enabled: false }, { category: "alerts", channel: "email", enabled: false }] },
    });
    expect(r.status).toBe(422);
    expect(r.body.error.details["preferences[1].enabled"]).toBeDefined();
    const stored = await call("GET", `/v1/subscribers/${subId}/preferences`, { key: T.sandboxKey });
    expect(stored.body.data).toEqual([]);
  });

  test("tenant defaults apply when the subscriber chose nothing; a choice wins; required is always sent", async () => {
    expect(await reason("email", "marketing")).toBe("preference_disabled"); // default off for email
    expect(await reason("in_app", "marketing", subId, subId)).toBeNull(); // default on
    expect(await reason("email", "unknown-category")).toBeNull(); // not a category: as before
    expect(await reason("email", "marketing", null, `nobody-${uniq()}@example.com`)).toBeNull(); // no subscriber, no defaults

    const put = await call("PUT", `/v1/subscribers/${subId}/preferences`, {
      key: T.sandboxKey,
      body: { preferences: [{ category: "marketing", channel: "email", enabled: true }, { category: "all", channel: "email", enabled: false }] },
    });
    expect(put.status).toBe(200);
    expect(await reason("email", "marketing")).toBe("preference_disabled"); // "all" off still wins over a category on
    expect(await reason("email", "alerts")).toBeNull(); // required ignores "all"
    expect(await reason("email", "unknown-category")).toBe("preference_disabled");

    await call("PUT", `/v1/subscribers/${subId}/preferences`, {
      key: T.sandboxKey,
      body: { preferences: [{ category: "all", channel: "email", enabled: true }] },
    });
    expect(await reason("email", "marketing")).toBeNull(); // turned on by the subscriber
  });

  test("the effective matrix: required locked, defaults, choices, undefined categories as other", async () => {
    await call("PUT", `/v1/subscribers/${subId}/preferences`, {
      key: T.sandboxKey,
      body: { preferences: [{ category: "legacy", channel: "sms", enabled: false }] },
    });
    const m = await effectivePreferences({ tenantId: T.tenant.id, environment: "sandbox" }, subId);
    const at = (key: string, channel: string) => m.find((c) => c.key === key)!.channels.find((c) => c.channel === channel)!;
    expect(at("alerts", "email")).toEqual({ channel: "email", enabled: true, locked: true, source: "required" });
    expect(at("marketing", "in_app")).toMatchObject({ enabled: true, source: "default" });
    expect(at("marketing", "sms")).toMatchObject({ enabled: false, source: "default" });
    expect(at("marketing", "email")).toMatchObject({ enabled: true, source: "subscriber" });
    expect(at("other", "sms")).toMatchObject({ enabled: false });
  });
});

describe("workflow steps name a category", () => {
  test("send and fallback steps keep `category`; a non-string is 422", async () => {
    const slug = `wf-${uniq()}`;
    const ok = await call("POST", "/v1/workflows", {
      key: T.sandboxKey,
      body: {
        slug,
        name: "W",
        steps: [
          { type: "send", channel: "email", template: "t", category: "marketing" },
          { type: "fallback", channels: ["sms"], template: "t", category: "marketing" },
        ],
      },
    });
    expect(ok.status).toBe(201);
    expect(ok.body.data.steps[0].category).toBe("marketing");
    expect(ok.body.data.steps[1].category).toBe("marketing");
    const bad = await call("POST", "/v1/workflows", {
      key: T.sandboxKey,
      body: { slug: `wf-${uniq()}`, name: "W", steps: [{ type: "send", channel: "email", template: "t", category: 5 }] },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.error.details["steps[0].category"]).toBeDefined();
  });
});
