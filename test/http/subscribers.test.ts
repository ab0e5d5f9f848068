// HTTP tests of /v1/subscribers (SPEC "Subscribers", DESIGN.md 4 and 6): upsert, validation,
// consent, search, paging, isolation, PUT, erasure, preferences and the all-or-nothing import.
import { beforeAll, describe, expect, test } from "bun:test";
import { call, createKey, createTenant } from "../support/fixtures";
import { sql } from "../../store/db";
import { newId } from "../../store/ids";
import { deliverToInbox } from "../../domain/inbox/inbox";
import { isErasedRecipient } from "../../domain/subscribers/erasure";
import { suppressionFor } from "../../domain/delivery/suppression";
import { upsertPreferences } from "../../store/preferences";

let t: Awaited<ReturnType<typeof createTenant>>;
let key: string;
const uniq = () => crypto.randomUUID().slice(0, 8);

beforeAll(async () => {
  t = await createTenant();
  key = t.secretKey;
});

const post = (body: unknown, headers?: Record<string, string>) => call("POST", "/v1/subscribers", { key, body, headers });

describe("POST /v1/subscribers (upsert on external_id)", () => {
  test("creates with 201 and returns the DESIGN.md 6 record, consent {given_at, ip, method: api}", async () => {
    const ext = `u-${uniq()}`;
    const r = await post(
      {
        external_id: ext,
        email: "Ana@Example.com",
        phone: "+5511912345678",
        name: "Ana",
        locale: "pt_BR",
        timezone: "America/Sao_Paulo",
        custom_properties: { plan: "pro" },
      },
      { "x-test-client-ip": "203.0.113.7" },
    );
    expect(r.status).toBe(201);
    const d = r.body.data;
    expect(Object.keys(d).sort()).toEqual(
      ["consent", "created_at", "custom_properties", "email", "external_id", "id", "locale", "name", "phone", "timezone", "updated_at"].sort(),
    );
    expect(d.external_id).toBe(ext);
    expect(d.email).toBe("ana@example.com");
    expect(d.phone).toBe("+5511912345678");
    expect(d.custom_properties).toEqual({ plan: "pro" });
    expect(d.consent.ip).toBe("203.0.113.7");
    expect(d.consent.method).toBe("api");
    expect(Date.parse(d.consent.given_at)).toBeGreaterThan(Date.now() - 60_000);
    expect(d.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  test("a second POST with the same external_id updates (200), keeps absent fields and the original consent", async () => {
    const ext = `u-${uniq()}`;
    const first = await post({ external_id: ext, email: "keep@example.com" }, { "x-test-client-ip": "198.51.100.1" });
    const second = await post({ external_id: ext, name: "New Name" }, { "x-test-client-ip": "198.51.100.2" });
    expect(second.status).toBe(200);
    expect(second.body.data.id).toBe(first.body.data.id);
    expect(second.body.data.email).toBe("keep@example.com");
    expect(second.body.data.name).toBe("New Name");
    expect(second.body.data.consent).toEqual(first.body.data.consent);
  });

  test("422 validation_failed with details per field: email, E.164 phone, locale, IANA timezone, custom_properties", async () => {
    const r = await post({
      external_id: `u-${uniq()}`,
      email: "not-an-email",
      phone: "11 91234-5678",
      locale: "123",
      timezone: "Mars/Olympus",
      custom_properties: [1, 2],
    });
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe("validation_failed");
    expect(Object.keys(r.body.error.details).sort()).toEqual(["custom_properties", "email", "locale", "phone", "timezone"]);
  });

  test("external_id is required, unknown fields are refused", async () => {
    const r = await post({ email: "x@example.com", emial: "typo" });
    expect(r.status).toBe(422);
    expect(r.body.error.details.external_id).toEqual(["is required"]);
    expect(r.body.error.details.emial).toBeDefined();
  });

  test("unknown fields named like Object.prototype members (constructor, __proto__) -> 422, not 500", async () => {
    const ext = `u-${uniq()}`;
    for (const raw of ['{"external_id":"EXT","constructor":{"prototype":{}}}', '{"external_id":"EXT","__proto__":{"x":1}}']) {
      const r = await call("POST", "/v1/subscribers", { key, rawBody: raw.replace("EXT", ext) });
      expect(r.status).toBe(422);
      expect(r.body.error.code).toBe("validation_failed");
      const field = raw.includes("constructor") ? "constructor" : "__proto__";
      expect(Object.keys(r.body.error.details)).toEqual([field]);
      expect(r.body.error.details[field]).toEqual(["is not a subscriber field"]);
    }
    const created = await post({ external_id: ext });
    const put = await call("PUT", `/v1/subscribers/${created.body.data.id}`, { key, rawBody: '{"constructor":1,"toString":2}' });
    expect(put.status).toBe(422);
    expect(Object.keys(put.body.error.details).sort()).toEqual(["constructor", "toString"]);
  });

  test("a UTC offset is not an IANA time zone; a lower-case zone name is stored canonically", async () => {
    expect((await post({ external_id: `u-${uniq()}`, timezone: "+03:00" })).status).toBe(422);
    const ok = await post({ external_id: `u-${uniq()}`, timezone: "europe/lisbon", locale: "en-US" });
    expect(ok.status).toBe(201);
    expect(ok.body.data.timezone).toBe("Europe/Lisbon");
  });

  test("blocked disposable email domains are refused (422, details.email)", async () => {
    const r = await post({ external_id: `u-${uniq()}`, email: "someone@mailinator.com" });
    expect(r.status).toBe(422);
    expect(r.body.error.details.email[0]).toMatch(/blocked/);
  });

  test("read-only keys can not write (403)", async () => {
    const ro = await createKey(t.tenant.id, { permissions: ["read"] });
    const r = await call("POST", "/v1/subscribers", { key: ro.raw, body: { external_id: "x" } });
    expect(r.status).toBe(403);
  });

  test("no key: 401", async () => {
    expect((await call("GET", "/v1/subscribers")).status).toBe(401);
  });
});

describe("GET /v1/subscribers (list, search, meta {total, limit, offset})", () => {
  let tenant: Awaited<ReturnType<typeof createTenant>>;
  beforeAll(async () => {
    tenant = await createTenant();
    const r = await call("POST", "/v1/subscribers/import", {
      key: tenant.secretKey,
      body: {
        subscribers: [
          { external_id: "alpha-001", email: "first@one.example", name: "Zed Quux" },
          { external_id: "bravo-002", email: "Second.Person@Two.example", name: "Maria Souza" },
          { external_id: "charlie-003", email: "third@three.example", name: "João Silva" },
          ...Array.from({ length: 22 }, (_, i) => ({ external_id: `filler-${i}` })),
        ],
      },
    });
    expect(r.status).toBe(200);
  });

  test("default limit 20, total counts every subscriber, offset pages", async () => {
    const r = await call("GET", "/v1/subscribers", { key: tenant.secretKey });
    expect(r.status).toBe(200);
    expect(r.body.data.length).toBe(20);
    expect(r.body.meta).toEqual({ total: 25, limit: 20, offset: 0 });
    const p2 = await call("GET", "/v1/subscribers?limit=20&offset=20", { key: tenant.secretKey });
    expect(p2.body.data.length).toBe(5);
    const ids = new Set([...r.body.data, ...p2.body.data].map((s: any) => s.id));
    expect(ids.size).toBe(25);
  });

  test("limit above 100 or below 1, and a negative offset, are 422", async () => {
    for (const q of ["limit=101", "limit=0", "offset=-1", "limit=abc"]) {
      const r = await call("GET", `/v1/subscribers?${q}`, { key: tenant.secretKey });
      expect(r.status).toBe(422);
      expect(r.body.error.code).toBe("validation_failed");
    }
    expect((await call("GET", "/v1/subscribers?limit=100", { key: tenant.secretKey })).status).toBe(200);
  });

  test("search finds by email, by name and by external_id, case-insensitively", async () => {
    const find = async (s: string) =>
      (await call("GET", `/v1/subscribers?search=${encodeURIComponent(s)}`, { key: tenant.secretKey })).body;
    const byEmail = await find("SECOND.person@two");
    expect(byEmail.data.map((s: any) => s.external_id)).toEqual(["bravo-002"]);
    expect(byEmail.meta.total).toBe(1);
    expect((await find("joão sil")).data.map((s: any) => s.external_id)).toEqual(["charlie-003"]);
    expect((await find("ALPHA-0")).data.map((s: any) => s.external_id)).toEqual(["alpha-001"]);
    expect((await find("nothing-like-this")).data).toEqual([]);
  });

  test("search treats % and _ literally", async () => {
    const r = await call("GET", "/v1/subscribers?search=%25", { key: tenant.secretKey });
    expect(r.body.meta.total).toBe(0);
  });

  test("search is indexed: a pg_trgm GIN index per field, usable for ILIKE '%term%'", async () => {
    for (const field of ["email", "name", "external_id"]) {
      const [idx] = await sql`select indexdef from pg_indexes where tablename = 'subscribers' and indexname = ${"subscribers_search_" + field}`;
      expect(idx!.indexdef).toMatch(new RegExp(`USING gin \\(${field} gin_trgm_ops\\)`));
    }
    const plan = await sql.begin(async (tx) => {
      await tx`set local enable_seqscan = off`;
      return tx`explain select id from subscribers where name ilike '%two.exa%' or external_id ilike '%two.exa%'`;
    });
    const text = plan.map((r: any) => r["QUERY PLAN"]).join("\n");
    expect(text).toContain("subscribers_search_name");
    expect(text).toContain("subscribers_search_external_id");
  });

  test("another tenant and the other environment see none of them", async () => {
    const other = await createTenant();
    expect((await call("GET", "/v1/subscribers", { key: other.secretKey })).body.meta.total).toBe(0);
    expect((await call("GET", "/v1/subscribers", { key: tenant.sandboxKey })).body.meta.total).toBe(0);
    expect((await call("GET", "/v1/subscribers/alpha-001", { key: other.secretKey })).status).toBe(404);
    expect((await call("GET", "/v1/subscribers/alpha-001", { key: tenant.sandboxKey })).status).toBe(404);
  });
});

describe("GET and PUT /v1/subscribers/:id", () => {
  test("GET accepts the id or the external_id; unknown is 404 subscriber_not_found", async () => {
    const ext = `u-${uniq()}`;
    const { body } = await post({ external_id: ext });
    const byId = await call("GET", `/v1/subscribers/${body.data.id}`, { key });
    const byExt = await call("GET", `/v1/subscribers/${ext}`, { key });
    expect(byId.status).toBe(200);
    expect(byExt.body.data.id).toBe(body.data.id);
    const missing = await call("GET", `/v1/subscribers/${newId()}`, { key });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe("subscriber_not_found");
  });

  test("PUT replaces given fields, null clears, validation applies, external_id can not change", async () => {
    const ext = `u-${uniq()}`;
    await post({ external_id: ext, email: "put@example.com", name: "Before", custom_properties: { a: 1 } });
    const r = await call("PUT", `/v1/subscribers/${ext}`, { key, body: { name: "After", email: null, custom_properties: { b: 2 } } });
    expect(r.status).toBe(200);
    expect(r.body.data.name).toBe("After");
    expect(r.body.data.email).toBeNull();
    expect(r.body.data.custom_properties).toEqual({ b: 2 });
    const bad = await call("PUT", `/v1/subscribers/${ext}`, { key, body: { phone: "+1", external_id: "other" } });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.error.details).sort()).toEqual(["external_id", "phone"]);
    expect((await call("PUT", `/v1/subscribers/nobody-${uniq()}`, { key, body: { name: "x" } })).status).toBe(404);
  });
});

describe("DELETE /v1/subscribers/:id (erasure, LGPD)", () => {
  test("soft-deletes, nullifies PII, redacts notifications and inbox, audits subscriber.erased, suppresses later sends; 204", async () => {
    const ext = `erase-${uniq()}`;
    const created = await post({ external_id: ext, email: "gone@example.com", phone: "+5511987654321", name: "Gone", custom_properties: { cpf: "123" } });
    const id = created.body.data.id;
    const scope = { tenantId: t.tenant.id, environment: "production" };
    // stored notifications: by subscriber_id, by email address only, and one of someone else
    const n1 = newId();
    const n2 = newId();
    const n3 = newId();
    await sql`insert into notifications (id, tenant_id, environment, channel, recipient, subscriber_id, data, content) values
      (${n1}, ${t.tenant.id}, 'production', 'in_app', ${ext}, ${id}, ${sql.json({ secret: "x" })}, ${sql.json({ body: "hi Gone" })}),
      (${n2}, ${t.tenant.id}, 'production', 'email', 'GONE@example.com', null, ${sql.json({ name: "Gone" })}, null),
      (${n3}, ${t.tenant.id}, 'production', 'email', 'other@example.com', null, ${sql.json({ keep: 1 })}, null)`;
    await deliverToInbox({ ...scope, recipient: ext, notificationId: n1, title: "Hello Gone", body: "secret", data: { k: 1 } });
    await sql`insert into notification_attempts (id, notification_id, tenant_id, attempt_number, status, provider, provider_response, error)
      values (${newId()}, ${n2}, ${t.tenant.id}, 1, 'failure', 'sendgrid', ${sql.json({ to: "gone@example.com" })},
              ${sql.json({ code: "rejected", message: "gone@example.com rejected" })})`;
    const eventId = newId();
    await sql`insert into events (id, tenant_id, environment, type, data) values (${eventId}, ${t.tenant.id}, 'production',
      'notification.failed', ${sql.json({ notification: { id: n2, status: "failed", channel: "email", to: "gone@example.com" }, error: { message: "gone@example.com" } })})`;

    const del = await call("DELETE", `/v1/subscribers/${ext}`, { key, headers: { "x-test-client-ip": "192.0.2.9" } });
    expect(del.status).toBe(204);
    expect(del.text).toBe("");

    const [row] = await sql`select * from subscribers where id = ${id}`;
    expect(row!.deleted_at).not.toBeNull();
    expect([row!.email, row!.phone, row!.name]).toEqual([null, null, null]);
    expect(row!.custom_properties).toEqual({});
    expect(row!.external_id).not.toBe(ext);
    expect(row!.consent.ip).toBeUndefined();

    const notes = await sql`select id, recipient, data, content from notifications where id in (${n1}, ${n2}, ${n3}) order by id`;
    const byId = Object.fromEntries(notes.map((n: any) => [n.id, n]));
    expect(byId[n1].recipient).toBe("[erased]");
    expect(byId[n1].data).toEqual({});
    expect(byId[n1].content).toEqual({});
    expect(byId[n2].recipient).toBe("[erased]");
    expect(byId[n2].data).toEqual({});
    expect(byId[n3].recipient).toBe("other@example.com");

    const [attempt] = await sql`select provider_response, error from notification_attempts where notification_id = ${n2}`;
    expect(attempt).toEqual({ provider_response: null, error: { code: "rejected" } });
    const [event] = await sql`select data from events where id = ${eventId}`;
    expect(event!.data).toEqual({ notification: { id: n2, status: "failed", channel: "email" }, erased: true });
    const [item] = await sql`select title, body, data from inbox_items where notification_id = ${n1}`;
    expect(item).toEqual({ title: null, body: null, data: {} });
    const events = await sql`select data from events where type like 'inbox.%' and data ->> 'subscriber_id' = ${id}`;
    expect(events.length).toBeGreaterThan(0);
    for (const e of events) expect(JSON.stringify(e.data)).not.toContain("Hello Gone");

    const [audit] = await sql`select * from audit_logs where tenant_id = ${t.tenant.id} and action = 'subscriber.erased' and resource_id = ${id}`;
    expect(audit!.actor_type).toBe("api_key");
    expect(audit!.actor_id).toBe(t.secretKeyId);
    expect(JSON.stringify(audit!.metadata)).not.toContain("gone@example.com");

    // only hashes are kept
    const erasures = await sql`select * from subscriber_erasures where subscriber_id = ${id}`;
    expect(erasures.map((e: any) => e.kind).sort()).toEqual(["email", "external_id", "id", "phone"]);
    expect(JSON.stringify(erasures)).not.toContain("gone@example.com");

    // gone from the API, irreversible, and later sends are suppressed
    expect((await call("GET", `/v1/subscribers/${id}`, { key })).status).toBe(404);
    expect((await call("DELETE", `/v1/subscribers/${id}`, { key })).status).toBe(404);
    const revive = await post({ external_id: ext });
    expect(revive.status).toBe(409);
    expect(revive.body.error.code).toBe("subscriber_erased");
    for (const r of [ext, id, "Gone@Example.com", "+5511987654321"]) {
      expect(await isErasedRecipient(t.tenant.id, "production", r)).toBe(true);
    }
    expect(await isErasedRecipient(t.tenant.id, "sandbox", ext)).toBe(false);
    expect(await suppressionFor({ ...scope, channel: "email", recipient: "gone@example.com" })).toBe("erased");
    expect(await suppressionFor({ ...scope, channel: "in_app", recipient: ext })).toBe("erased");
    expect(await suppressionFor({ ...scope, channel: "email", recipient: "other@example.com" })).toBeNull();
  });
});

describe("DELETE isolation", () => {
  test("another tenant or the other environment can not erase a subscriber (404), which stays intact", async () => {
    const ext = `keep-${uniq()}`;
    await post({ external_id: ext, email: `${ext}@example.com` });
    const other = await createTenant();
    expect((await call("DELETE", `/v1/subscribers/${ext}`, { key: other.secretKey })).status).toBe(404);
    expect((await call("DELETE", `/v1/subscribers/${ext}`, { key: t.sandboxKey })).status).toBe(404);
    const still = await call("GET", `/v1/subscribers/${ext}`, { key });
    expect(still.body.data.email).toBe(`${ext}@example.com`);
    expect(await isErasedRecipient(t.tenant.id, "production", ext)).toBe(false);
  });
});

describe("preferences", () => {
  test("PUT upserts by (category, channel) and GET returns {data: [{category, channel, enabled}]}", async () => {
    const ext = `p-${uniq()}`;
    await post({ external_id: ext });
    const put1 = await call("PUT", `/v1/subscribers/${ext}/preferences`, {
      key,
      body: { preferences: [{ category: "marketing", channel: "email", enabled: false }, { category: "all", channel: "sms", enabled: true }] },
    });
    expect(put1.status).toBe(200);
    const put2 = await call("PUT", `/v1/subscribers/${ext}/preferences`, {
      key,
      body: { preferences: [{ category: "marketing", channel: "email", enabled: true }] },
    });
    expect(put2.body.data).toEqual([
      { category: "all", channel: "sms", enabled: true },
      { category: "marketing", channel: "email", enabled: true },
    ]);
    const got = await call("GET", `/v1/subscribers/${ext}/preferences`, { key });
    expect(got.body).toEqual(put2.body);
  });

  test("invalid channel or missing enabled is 422; unknown subscriber 404", async () => {
    const ext = `p-${uniq()}`;
    await post({ external_id: ext });
    const r = await call("PUT", `/v1/subscribers/${ext}/preferences`, { key, body: { preferences: [{ category: "x", channel: "fax" }] } });
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe("validation_failed");
    expect((await call("GET", `/v1/subscribers/nobody-${uniq()}/preferences`, { key })).status).toBe(404);
  });

  test("suppressionFor: disabled category or \"all\" suppresses that channel; the unsubscribe source reports unsubscribed", async () => {
    const ext = `s-${uniq()}`;
    const { body } = await post({ external_id: ext, email: `${ext}@example.com` });
    const scope = { tenantId: t.tenant.id, environment: "production" };
    const q = { ...scope, channel: "email", recipient: `${ext}@example.com` };
    expect(await suppressionFor({ ...q, category: "marketing" })).toBeNull();
    await call("PUT", `/v1/subscribers/${ext}/preferences`, { key, body: { preferences: [{ category: "marketing", channel: "email", enabled: false }] } });
    expect(await suppressionFor({ ...q, category: "marketing" })).toBe("preference_disabled");
    expect(await suppressionFor({ ...q, category: "billing" })).toBeNull();
    expect(await suppressionFor({ ...q, channel: "sms", category: "marketing" })).toBeNull();
    expect(await suppressionFor({ ...q, recipient: null, subscriberId: body.data.id, category: "marketing" })).toBe("preference_disabled");
    await sql.begin((tx) => upsertPreferences(tx as any, scope, body.data.id, [{ category: "all", channel: "email", enabled: false }], "unsubscribe"));
    expect(await suppressionFor({ ...q, category: "billing" })).toBe("unsubscribed");
    expect(await suppressionFor({ ...q })).toBe("unsubscribed");
    // switching it back on through the API lifts it
    await call("PUT", `/v1/subscribers/${ext}/preferences`, { key, body: { preferences: [{ category: "all", channel: "email", enabled: true }] } });
    expect(await suppressionFor({ ...q, category: "billing" })).toBeNull();
  });
});

describe("POST /v1/subscribers/import (all-or-nothing)", () => {
  const batch = (prefix: string, n: number) =>
    Array.from({ length: n }, (_, i) => ({ external_id: `${prefix}-${i}`, email: `${prefix}-${i}@example.com`, name: `Name ${i}` }));
  const countPrefix = async (tenantId: string, prefix: string) =>
    (await sql`select count(*)::int as n from subscribers where tenant_id = ${tenantId} and external_id like ${prefix + "-%"}`)[0]!.n;

  test("an import whose 500th entry is bad writes nothing: 422, details subscribers[499].email, error.index 499", async () => {
    const prefix = `imp-${uniq()}`;
    const list: any[] = batch(prefix, 1000);
    list[499].email = "broken@";
    const r = await call("POST", "/v1/subscribers/import", { key, body: { subscribers: list } });
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe("validation_failed");
    expect(r.body.error.index).toBe(499);
    expect(Object.keys(r.body.error.details)).toEqual(["subscribers[499].email"]);
    expect(await countPrefix(t.tenant.id, prefix)).toBe(0);
  });

  test("1,000 subscribers import in one call: 200 {imported, subscribers}, creating and updating", async () => {
    const prefix = `imp-${uniq()}`;
    await post({ external_id: `${prefix}-0`, phone: "+5511912345678" });
    const r = await call("POST", "/v1/subscribers/import", { key, body: { subscribers: batch(prefix, 1000) } });
    expect(r.status).toBe(200);
    expect(r.body.data.imported).toBe(1000);
    expect(r.body.data.subscribers.length).toBe(1000);
    expect(r.body.data.subscribers[0].phone).toBe("+5511912345678"); // the existing one was updated, not replaced
    expect(r.body.data.subscribers[999].external_id).toBe(`${prefix}-999`);
    expect(r.body.data.subscribers[5].consent.method).toBe("api");
    expect(await countPrefix(t.tenant.id, prefix)).toBe(1000);
  });

  test("more than 1,000 entries: 413 payload_too_large, nothing written", async () => {
    const prefix = `imp-${uniq()}`;
    const r = await call("POST", "/v1/subscribers/import", { key, body: { subscribers: batch(prefix, 1001).map((s) => ({ external_id: s.external_id })) } });
    expect(r.status).toBe(413);
    expect(r.body.error.code).toBe("payload_too_large");
    expect(await countPrefix(t.tenant.id, prefix)).toBe(0);
  });

  test("a repeated external_id, a missing external_id or a non-object entry fails with its index", async () => {
    const prefix = `imp-${uniq()}`;
    const dup = await call("POST", "/v1/subscribers/import", {
      key,
      body: { subscribers: [{ external_id: `${prefix}-a` }, { external_id: `${prefix}-b` }, { external_id: `${prefix}-a` }] },
    });
    expect(dup.status).toBe(422);
    expect(dup.body.error.index).toBe(2);
    expect(dup.body.error.details["subscribers[2].external_id"]).toBeDefined();
    const missing = await call("POST", "/v1/subscribers/import", { key, body: { subscribers: [{ external_id: `${prefix}-c` }, { email: "a@example.com" }] } });
    expect(missing.body.error.index).toBe(1);
    expect(missing.body.error.details).toEqual({ "subscribers[1].external_id": ["is required"] });
    const notObject = await call("POST", "/v1/subscribers/import", { key, body: { subscribers: ["x"] } });
    expect(notObject.status).toBe(422);
    expect(notObject.body.error.index).toBe(0);
    expect(await countPrefix(t.tenant.id, prefix)).toBe(0);
  });

  test("an erased subscriber's external_id in the batch fails the whole import", async () => {
    const prefix = `imp-${uniq()}`;
    await post({ external_id: `${prefix}-1` });
    await call("DELETE", `/v1/subscribers/${prefix}-1`, { key });
    const r = await call("POST", "/v1/subscribers/import", { key, body: { subscribers: [{ external_id: `${prefix}-0` }, { external_id: `${prefix}-1` }] } });
    expect(r.status).toBe(422);
    expect(r.body.error.index).toBe(1);
    expect(await countPrefix(t.tenant.id, prefix)).toBe(0);
  });

  test("a body without subscribers is 422", async () => {
    const r = await call("POST", "/v1/subscribers/import", { key, body: {} });
    expect(r.status).toBe(422);
  });
});
