// /v1/inbox-embed settings and allowed origins (SPEC "Inbox embed"), and publishable keys on the
// inbox routes: X-Subscriber-Id/Hash, the Origin check of SPEC Authentication 3, and CORS.
import { describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { edgePlugins } from "../../http/plugins/edge";
import { corsPlugin } from "../../http/plugins/cors";
import { subscriberHash } from "../../http/plugins/auth";
import { accessPlugin } from "../../http/plugins/access";
import { sql } from "../../store/db";
import { newId } from "../../store/ids";
import { call, createKey, createTenant } from "../support/fixtures";

function expectError(r: { status: number; body: any }, status: number, code: string) {
  expect(r.status).toBe(status);
  expect(r.body.error.code).toBe(code);
}

describe("SPEC Inbox embed: settings", () => {
  test("GET -> developer_mode false, allowed_origins_count 0; PUT turns developer mode on", async () => {
    const a = await createTenant();
    const g = await call("GET", "/v1/inbox-embed/settings", { key: a.secretKey });
    expect(g.status).toBe(200);
    expect(g.body.data).toMatchObject({ developer_mode: false, allowed_origins_count: 0 });
    expect(g.body.data.inbox_secret).toMatch(/^[0-9a-f]{64}$/);
    const p = await call("PUT", "/v1/inbox-embed/settings", { key: a.secretKey, body: { developer_mode: true } });
    expect(p.status).toBe(200);
    expect(p.body.data.developer_mode).toBe(true);
    expect((await call("GET", "/v1/inbox-embed/settings", { key: a.secretKey })).body.data.developer_mode).toBe(true);
  });
  test("allowed_origins_count is read only (PUT with it -> 422) and counts the origins", async () => {
    const a = await createTenant();
    await call("POST", "/v1/inbox-embed/allowed-origins", { key: a.secretKey, body: { origin: "https://a.example.com" } });
    expect((await call("GET", "/v1/inbox-embed/settings", { key: a.secretKey })).body.data.allowed_origins_count).toBe(1);
    expectError(await call("PUT", "/v1/inbox-embed/settings", { key: a.secretKey, body: { developer_mode: true, allowed_origins_count: 5 } }), 422, "validation_failed");
    expectError(await call("PUT", "/v1/inbox-embed/settings", { key: a.secretKey, body: { developer_mode: "yes" } }), 422, "validation_failed");
  });
  test("SPEC: these endpoints require a secret key (publishable -> 403)", async () => {
    const a = await createTenant();
    const pk = await createKey(a.tenant.id, { keyType: "publishable" });
    expectError(await call("GET", "/v1/inbox-embed/settings", { key: pk.raw }), 403, "insufficient_permissions");
    expectError(await call("POST", "/v1/inbox-embed/allowed-origins", { key: pk.raw, body: { origin: "https://x.example" } }), 403, "insufficient_permissions");
    expectError(await call("GET", "/v1/inbox-embed/allowed-origins", { key: pk.raw }), 403, "insufficient_permissions");
  });
});

describe("SPEC Inbox embed: allowed origins", () => {
  test("POST -> 201 {id, origin, created_at}; GET lists; DELETE -> 204", async () => {
    const a = await createTenant();
    const r = await call("POST", "/v1/inbox-embed/allowed-origins", { key: a.secretKey, body: { origin: "https://app.example.com" } });
    expect(r.status).toBe(201);
    expect(Object.keys(r.body.data).sort()).toEqual(["created_at", "id", "origin"]);
    expect(r.body.data.origin).toBe("https://app.example.com");
    const list = await call("GET", "/v1/inbox-embed/allowed-origins", { key: a.secretKey });
    expect(list.body.data.map((o: any) => o.id)).toEqual([r.body.data.id]);
    expect((await call("DELETE", `/v1/inbox-embed/allowed-origins/${r.body.data.id}`, { key: a.secretKey })).status).toBe(204);
    expect((await call("GET", "/v1/inbox-embed/allowed-origins", { key: a.secretKey })).body.data).toEqual([]);
    expectError(await call("DELETE", `/v1/inbox-embed/allowed-origins/${r.body.data.id}`, { key: a.secretKey }), 404, "not_found");
  });

  const invalid: [string, string][] = [
    ["app.example.com", "it must include scheme http:// or https://"],
    ["ftp://app.example.com", "it must include scheme http:// or https://"],
    ["https://app.example.com/", "it must have no trailing slash"],
    ["https://app.example.com/path", "it must have no path"],
    ["https://app.example.com?x=1", "it must have no path (query)"],
    ["https://*.example.com", "wildcards * are rejected"],
    ["*", "wildcards * are rejected"],
  ];
  for (const [origin, rule] of invalid) {
    test(`SPEC origin validation: ${JSON.stringify(origin)} -> 422 validation_failed (${rule})`, async () => {
      const a = await createTenant();
      const r = await call("POST", "/v1/inbox-embed/allowed-origins", { key: a.secretKey, body: { origin } });
      expectError(r, 422, "validation_failed");
      expect(r.body.error.details.origin).toBeArray();
    });
  }

  test("http:// with a port is valid; missing origin -> 422", async () => {
    const a = await createTenant();
    expect((await call("POST", "/v1/inbox-embed/allowed-origins", { key: a.secretKey, body: { origin: "http://localhost:5173" } })).status).toBe(201);
    expectError(await call("POST", "/v1/inbox-embed/allowed-origins", { key: a.secretKey, body: {} }), 422, "validation_failed");
  });

  test("duplicate origin -> 409", async () => {
    const a = await createTenant();
    expect((await call("POST", "/v1/inbox-embed/allowed-origins", { key: a.secretKey, body: { origin: "https://dup.example" } })).status).toBe(201);
    expect((await call("POST", "/v1/inbox-embed/allowed-origins", { key: a.secretKey, body: { origin: "https://dup.example" } })).status).toBe(409);
  });

  test("SPEC Limits: at most 20 allowed origins per tenant (21st -> 422 with details.origin)", async () => {
    const a = await createTenant();
    for (let i = 0; i < 20; i++) {
      const r = await call("POST", "/v1/inbox-embed/allowed-origins", { key: a.secretKey, body: { origin: `https://o${i}.example.com` } });
      expect(r.status).toBe(201);
    }
    const r = await call("POST", "/v1/inbox-embed/allowed-origins", { key: a.secretKey, body: { origin: "https://o20.example.com" } });
    expectError(r, 422, "validation_failed");
    expect(r.body.error.details.origin).toBeArray();
    // the cap is per tenant, whatever the environment
    expectError(await call("POST", "/v1/inbox-embed/allowed-origins", { key: a.sandboxKey, body: { origin: "https://s.example.com" } }), 422, "validation_failed");
  });

  test("another tenant's or environment's origin -> 404 on DELETE, invisible in GET", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const o = (await call("POST", "/v1/inbox-embed/allowed-origins", { key: a.secretKey, body: { origin: "https://mine.example" } })).body.data;
    expectError(await call("DELETE", `/v1/inbox-embed/allowed-origins/${o.id}`, { key: b.secretKey }), 404, "not_found");
    expectError(await call("DELETE", `/v1/inbox-embed/allowed-origins/${o.id}`, { key: a.sandboxKey }), 404, "not_found");
    expect((await call("GET", "/v1/inbox-embed/allowed-origins", { key: b.secretKey })).text).not.toContain(o.id);
    expect((await call("GET", "/v1/inbox-embed/allowed-origins", { key: a.sandboxKey })).text).not.toContain(o.id);
  });
});

// Inbox-shaped routes with the subscriber rules, so the rules are tested on their own.
const inbox = new Elysia()
  .use(edgePlugins)
  .use(corsPlugin)
  .use(
    new Elysia({ name: "test.inbox" })
      .use(accessPlugin)
      .get("/v1/subscribers/:id/notifications", ({ auth }) => ({ data: { subscriber: auth.subscriberExternalId ?? null, type: auth.keyType } }), {
        access: "subscriber-read",
      })
      .post("/v1/subscribers/:id/notifications/read-all", ({ auth }) => ({ data: { subscriber: auth.subscriberExternalId } }), {
        access: "subscriber-write",
      }),
  );

async function inboxCall(path: string, key: string, headers: Record<string, string>, method = "GET") {
  const res = await inbox.handle(new Request(`http://localhost${path}`, { method, headers: { authorization: `Bearer ${key}`, ...headers } }));
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

async function publishableSetup() {
  const a = await createTenant();
  const pk = await createKey(a.tenant.id, { keyType: "publishable" });
  const settings = (await call("GET", "/v1/inbox-embed/settings", { key: a.secretKey })).body.data;
  const hash = (id: string) => subscriberHash(settings.inbox_secret, id);
  return { a, pk, hash };
}

describe("DESIGN.md 5: publishable keys need X-Subscriber-Id + X-Subscriber-Hash", () => {
  test("correct HMAC -> 200 and auth.subscriberExternalId; wrong or missing -> 403 insufficient_permissions", async () => {
    const { a, pk, hash } = await publishableSetup();
    await call("POST", "/v1/inbox-embed/allowed-origins", { key: a.secretKey, body: { origin: "https://app.example.com" } });
    const origin = { origin: "https://app.example.com" };
    const ok = await inboxCall("/v1/subscribers/user-1/notifications", pk.raw, { ...origin, "x-subscriber-id": "user-1", "x-subscriber-hash": hash("user-1") });
    expect(ok.status).toBe(200);
    expect(ok.body.data).toEqual({ subscriber: "user-1", type: "publishable" });
    expectError(await inboxCall("/v1/subscribers/user-1/notifications", pk.raw, { ...origin, "x-subscriber-id": "user-1", "x-subscriber-hash": hash("user-2") }), 403, "insufficient_permissions");
    expectError(await inboxCall("/v1/subscribers/user-1/notifications", pk.raw, { ...origin, "x-subscriber-id": "user-1" }), 403, "insufficient_permissions");
    expectError(await inboxCall("/v1/subscribers/user-1/notifications", pk.raw, { ...origin, "x-subscriber-hash": hash("user-1") }), 403, "insufficient_permissions");
    expectError(await inboxCall("/v1/subscribers/user-1/notifications", pk.raw, { ...origin, "x-subscriber-id": "user-1", "x-subscriber-hash": "zz" }), 403, "insufficient_permissions");
  });
  test("a path naming another subscriber than X-Subscriber-Id -> 403", async () => {
    const { a, pk, hash } = await publishableSetup();
    await call("POST", "/v1/inbox-embed/allowed-origins", { key: a.secretKey, body: { origin: "https://app.example.com" } });
    const h = { origin: "https://app.example.com", "x-subscriber-id": "user-1", "x-subscriber-hash": hash("user-1") };
    expectError(await inboxCall("/v1/subscribers/user-2/notifications", pk.raw, h), 403, "insufficient_permissions");
    // the subscriber's own uuid is accepted for its external id
    const id = newId();
    await sql`insert into subscribers (id, tenant_id, environment, external_id) values (${id}, ${a.tenant.id}, 'production', 'user-1')`;
    expect((await inboxCall(`/v1/subscribers/${id}/notifications`, pk.raw, h)).status).toBe(200);
  });
  test("a read-only publishable key cannot POST read-all (403)", async () => {
    const { a, hash } = await publishableSetup();
    const ro = await createKey(a.tenant.id, { keyType: "publishable", permissions: ["read"] });
    await call("POST", "/v1/inbox-embed/allowed-origins", { key: a.secretKey, body: { origin: "https://app.example.com" } });
    const h = { origin: "https://app.example.com", "x-subscriber-id": "u", "x-subscriber-hash": hash("u") };
    expectError(await inboxCall("/v1/subscribers/u/notifications/read-all", ro.raw, h, "POST"), 403, "insufficient_permissions");
  });
});

describe("SPEC Authentication 3: publishable keys are validated against the Origin header", () => {
  test("(c) an allowed origin passes; (d) no match -> 403 origin_not_allowed; no Origin -> 403", async () => {
    const { a, pk, hash } = await publishableSetup();
    await call("POST", "/v1/inbox-embed/allowed-origins", { key: a.secretKey, body: { origin: "https://app.example.com" } });
    const sub = { "x-subscriber-id": "u", "x-subscriber-hash": hash("u") };
    expect((await inboxCall("/v1/subscribers/u/notifications", pk.raw, { ...sub, origin: "https://app.example.com" })).status).toBe(200);
    for (const origin of ["https://evil.example.com", "http://app.example.com", "https://app.example.com:8443"]) {
      expectError(await inboxCall("/v1/subscribers/u/notifications", pk.raw, { ...sub, origin }), 403, "origin_not_allowed");
    }
    expectError(await inboxCall("/v1/subscribers/u/notifications", pk.raw, sub), 403, "origin_not_allowed");
    // localhost is not allowed while developer mode is off
    expectError(await inboxCall("/v1/subscribers/u/notifications", pk.raw, { ...sub, origin: "http://localhost:3000" }), 403, "origin_not_allowed");
  });
  test("(b) developer mode on: localhost and 127.0.0.1 on any port pass; other hosts still need a match", async () => {
    const { a, pk, hash } = await publishableSetup();
    const sub = { "x-subscriber-id": "u", "x-subscriber-hash": hash("u") };
    expectError(await inboxCall("/v1/subscribers/u/notifications", pk.raw, { ...sub, origin: "http://127.0.0.1:8080" }), 403, "origin_not_allowed");
    await call("PUT", "/v1/inbox-embed/settings", { key: a.secretKey, body: { developer_mode: true } });
    for (const origin of ["http://localhost:5173", "http://localhost", "http://127.0.0.1:8080", "https://localhost:3443"]) {
      expect((await inboxCall("/v1/subscribers/u/notifications", pk.raw, { ...sub, origin })).status).toBe(200);
    }
    expectError(await inboxCall("/v1/subscribers/u/notifications", pk.raw, { ...sub, origin: "http://localhost.evil.com" }), 403, "origin_not_allowed");
    expectError(await inboxCall("/v1/subscribers/u/notifications", pk.raw, { ...sub, origin: "https://app.example.com" }), 403, "origin_not_allowed");
  });
  test("a newly allowed origin and a removed one take effect on the next request", async () => {
    const { a, pk, hash } = await publishableSetup();
    const h = { "x-subscriber-id": "u", "x-subscriber-hash": hash("u"), origin: "https://late.example.com" };
    expectError(await inboxCall("/v1/subscribers/u/notifications", pk.raw, h), 403, "origin_not_allowed");
    const o = await call("POST", "/v1/inbox-embed/allowed-origins", { key: a.secretKey, body: { origin: "https://late.example.com" } });
    expect((await inboxCall("/v1/subscribers/u/notifications", pk.raw, h)).status).toBe(200);
    await call("DELETE", `/v1/inbox-embed/allowed-origins/${o.body.data.id}`, { key: a.secretKey });
    expectError(await inboxCall("/v1/subscribers/u/notifications", pk.raw, h), 403, "origin_not_allowed");
  });
  test("another tenant's allowed origin does not help", async () => {
    const { pk, hash } = await publishableSetup();
    const b = await createTenant();
    await call("POST", "/v1/inbox-embed/allowed-origins", { key: b.secretKey, body: { origin: "https://b.example.com" } });
    const h = { "x-subscriber-id": "u", "x-subscriber-hash": hash("u"), origin: "https://b.example.com" };
    expectError(await inboxCall("/v1/subscribers/u/notifications", pk.raw, h), 403, "origin_not_allowed");
  });
  test("SPEC: secret keys are not origin-checked", async () => {
    const a = await createTenant();
    const r = await inboxCall("/v1/subscribers/u/notifications", a.secretKey, { origin: "https://anything.example" });
    expect(r.status).toBe(200);
    expect(r.headers.get("access-control-allow-origin")).toBeNull();
  });
});

describe("CORS on the inbox routes for allowed origins", () => {
  test("responses to an allowed origin echo it with Vary: Origin (errors after the origin check too)", async () => {
    const { a, pk, hash } = await publishableSetup();
    await call("POST", "/v1/inbox-embed/allowed-origins", { key: a.secretKey, body: { origin: "https://app.example.com" } });
    const ok = await inboxCall("/v1/subscribers/u/notifications", pk.raw, { origin: "https://app.example.com", "x-subscriber-id": "u", "x-subscriber-hash": hash("u") });
    expect(ok.headers.get("access-control-allow-origin")).toBe("https://app.example.com");
    expect(ok.headers.get("vary")).toContain("Origin");
    expect(ok.headers.get("access-control-expose-headers")).toContain("X-RateLimit-Remaining");
    const badHash = await inboxCall("/v1/subscribers/u/notifications", pk.raw, { origin: "https://app.example.com", "x-subscriber-id": "u", "x-subscriber-hash": "00" });
    expect(badHash.status).toBe(403);
    expect(badHash.headers.get("access-control-allow-origin")).toBe("https://app.example.com");
    // a refused origin may read the refusal (and nothing else), so an embed can show why
    const refused = await inboxCall("/v1/subscribers/u/notifications", pk.raw, { origin: "https://evil.example", "x-subscriber-id": "u", "x-subscriber-hash": hash("u") });
    expect(refused.status).toBe(403);
    expect(refused.headers.get("access-control-allow-origin")).toBe("https://evil.example");
    expect(refused.body).toEqual({ error: { code: "origin_not_allowed", message: expect.any(String) } });
  });

  test("OPTIONS preflight from an allowed origin -> 204 with Allow-Origin, -Headers, -Methods, Vary (real app)", async () => {
    const a = await createTenant();
    await call("POST", "/v1/inbox-embed/allowed-origins", { key: a.secretKey, body: { origin: "https://pre.example.com" } });
    for (const path of ["/v1/subscribers/u1/notifications", "/v1/subscribers/u1/notifications/n1/read", "/v1/subscribers/u1/preferences"]) {
      const r = await call("OPTIONS", path, {
        headers: { origin: "https://pre.example.com", "access-control-request-method": "POST", "access-control-request-headers": "authorization,x-subscriber-id" },
      });
      expect(r.status).toBe(204);
      expect(r.headers.get("access-control-allow-origin")).toBe("https://pre.example.com");
      const allowHeaders = r.headers.get("access-control-allow-headers")!.toLowerCase();
      for (const h of ["authorization", "x-subscriber-id", "x-subscriber-hash", "idempotency-key", "content-type"]) expect(allowHeaders).toContain(h);
      expect(r.headers.get("access-control-allow-methods")).toContain("POST");
      expect(r.headers.get("vary")).toContain("Origin");
    }
  });

  test("OPTIONS preflight from an origin no tenant allows -> 204 too (the real request is refused readably); without Origin -> 403", async () => {
    const r = await call("OPTIONS", "/v1/subscribers/u1/notifications", {
      headers: { origin: "https://nobody-allows-this.example", "access-control-request-method": "GET", "access-control-request-headers": "authorization,last-event-id" },
    });
    expect(r.status).toBe(204);
    expect(r.headers.get("access-control-allow-origin")).toBe("https://nobody-allows-this.example");
    expect(r.headers.get("access-control-allow-headers")!.toLowerCase()).toContain("last-event-id");
    expect(r.headers.get("access-control-allow-credentials")).toBeNull();
    const none = await call("OPTIONS", "/v1/subscribers/u1/notifications", { headers: { "access-control-request-method": "GET" } });
    expect(none.status).toBe(403);
    expect(none.body.error.code).toBe("origin_not_allowed");
    expect(none.headers.get("access-control-allow-origin")).toBeNull();
  });
});

describe("DESIGN.md 5: the hash is keyed by the environment's inbox secret", () => {
  test("sandbox and production secrets differ; a production hash does not open the sandbox inbox", async () => {
    const a = await createTenant();
    const prod = (await call("GET", "/v1/inbox-embed/settings", { key: a.secretKey })).body.data.inbox_secret;
    const sand = (await call("GET", "/v1/inbox-embed/settings", { key: a.sandboxKey })).body.data.inbox_secret;
    expect(prod).toBe(a.tenant.inbox_secret); // production: tenants.inbox_secret
    expect(sand).not.toBe(prod);
    await call("PUT", "/v1/inbox-embed/settings", { key: a.secretKey, body: { developer_mode: true } });
    const pkTest = await createKey(a.tenant.id, { keyType: "publishable", environment: "sandbox" });
    const h = (secret: string) => ({ origin: "http://localhost:1234", "x-subscriber-id": "u", "x-subscriber-hash": subscriberHash(secret, "u") });
    expect((await inboxCall("/v1/subscribers/u/notifications", pkTest.raw, h(sand))).status).toBe(200);
    expectError(await inboxCall("/v1/subscribers/u/notifications", pkTest.raw, h(prod)), 403, "insufficient_permissions");
  });
});
