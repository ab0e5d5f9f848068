// Authorization enforced centrally by the access rules (SPEC Authentication 1-6, DESIGN.md 4): 401
// invalid_api_key, read-only keys, allowed_ips, publishable keys, environment scope, rate-limit headers.
import { describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { edgePlugins } from "../../http/plugins/edge";
import { compileAllowedIps } from "../../http/plugins/auth";
import { accessPlugin } from "../../http/plugins/access";
import { sql } from "../../store/db";
import * as ipaddr from "ipaddr.js";
import { call, createKey, createTenant } from "../support/fixtures";

// Every method on one path, so the central rule is tested without depending on any resource's routes.
const probe = new Elysia()
  .use(edgePlugins)
  .use(
    new Elysia({ name: "test.probe" })
      .use(accessPlugin)
      .get("/v1/probe", ({ auth }) => ({ data: { tenant: auth.tenantId, environment: auth.environment } }), { access: "secret-read" })
      .post("/v1/probe", () => ({ data: "post" }), { access: "secret-write" })
      .put("/v1/probe", () => ({ data: "put" }), { access: "secret-write" })
      .patch("/v1/probe", () => ({ data: "patch" }), { access: "secret-write" })
      .delete("/v1/probe", () => ({ data: "delete" }), { access: "secret-write" }),
  );

async function hit(method: string, key?: string, headers: Record<string, string> = {}) {
  const h: Record<string, string> = { ...headers };
  if (key !== undefined) h.authorization = `Bearer ${key}`;
  const res = await probe.handle(new Request("http://localhost/v1/probe", { method, headers: h }));
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

function expectError(r: { status: number; body: any }, status: number, code: string) {
  expect(r.status).toBe(status);
  expect(r.body).toEqual({ error: { code, message: expect.any(String) } });
}

describe("SPEC Authentication 6: a missing, malformed, invalid or revoked key gives 401 invalid_api_key", () => {
  test("missing Authorization", async () => expectError(await hit("GET"), 401, "invalid_api_key"));
  test("not a Bearer scheme", async () => expectError(await hit("GET", undefined, { authorization: "Basic abc" }), 401, "invalid_api_key"));
  test("malformed key (wrong prefix / too short)", async () => {
    expectError(await hit("GET", "sk_live_abcdefghijklmnopqrstuvwxyz0123456789"), 401, "invalid_api_key");
    expectError(await hit("GET", "nk_live_short"), 401, "invalid_api_key");
  });
  test("unknown well-formed key", async () => expectError(await hit("GET", "nk_live_" + "A".repeat(40)), 401, "invalid_api_key"));
  test("revoked key", async () => {
    const a = await createTenant();
    const k = await createKey(a.tenant.id);
    expect((await hit("GET", k.raw)).status).toBe(200);
    expect((await call("DELETE", `/v1/api-keys/${k.id}`, { key: a.secretKey })).status).toBe(204);
    expectError(await hit("GET", k.raw), 401, "invalid_api_key");
  });
  test("the real app answers the same on a /v1 route", async () => {
    const r = await call("GET", "/v1/api-keys", { key: "nk_test_" + "B".repeat(40) });
    expectError(r, 401, "invalid_api_key");
  });
});

describe("SPEC Authentication 5: a key with only `read` cannot write -> 403 insufficient_permissions", () => {
  test("read-only key: GET allowed; POST, PUT, PATCH, DELETE refused centrally", async () => {
    const a = await createTenant();
    const ro = await createKey(a.tenant.id, { permissions: ["read"] });
    expect((await hit("GET", ro.raw)).status).toBe(200);
    for (const m of ["POST", "PUT", "PATCH", "DELETE"]) expectError(await hit(m, ro.raw), 403, "insufficient_permissions");
    const rw = await createKey(a.tenant.id);
    for (const m of ["POST", "PUT", "PATCH", "DELETE"]) expect((await hit(m, rw.raw)).status).toBe(200);
  });
  test("on real routes too: POST /v1/api-keys and PUT /v1/inbox-embed/settings", async () => {
    const a = await createTenant();
    const ro = await createKey(a.tenant.id, { permissions: ["read"] });
    expectError(await call("POST", "/v1/api-keys", { key: ro.raw, body: { key_type: "secret" } }), 403, "insufficient_permissions");
    expectError(await call("PUT", "/v1/inbox-embed/settings", { key: ro.raw, body: { developer_mode: true } }), 403, "insufficient_permissions");
    expectError(await call("DELETE", `/v1/api-keys/${a.secretKeyId}`, { key: ro.raw }), 403, "insufficient_permissions");
    expect((await call("GET", "/v1/api-keys", { key: ro.raw })).status).toBe(200);
  });
});

describe("SPEC Authentication 5: a key with allowed_ips is refused from addresses outside that list (403)", () => {
  test("IPv4 address, IPv4 CIDR, IPv6 CIDR", async () => {
    const a = await createTenant();
    const k = await createKey(a.tenant.id, { allowedIps: ["203.0.113.7", "10.1.0.0/16", "2001:db8::/32"] });
    const from = (ip: string) => hit("GET", k.raw, { "x-test-client-ip": ip });
    expect((await from("203.0.113.7")).status).toBe(200);
    expect((await from("10.1.200.3")).status).toBe(200);
    expect((await from("2001:db8:1::5")).status).toBe(200);
    expect((await from("::ffff:203.0.113.7")).status).toBe(200); // IPv4-mapped socket address
    expectError(await from("203.0.113.8"), 403, "insufficient_permissions");
    expectError(await from("10.2.0.1"), 403, "insufficient_permissions");
    expectError(await from("2001:db9::1"), 403, "insufficient_permissions");
    expectError(await hit("GET", k.raw), 403, "insufficient_permissions"); // unknown address
  });
  test("a refused address does not spend the key's rate budget", async () => {
    const { redis } = await import("../../store/redis");
    const { runtimeKeys } = await import("../../runtime/keys");
    const { rateLimitNames } = await import("../../store/redis-keys");
    const { config } = await import("../../config");
    // The GCRA state lives until the bucket is full again: one emission interval after a lone
    // request, 10 ms at the test default (6,000 a minute), too short to read it back on a busy
    // machine. At 6 a minute it lives 10 s; the limit is read per request (requestsPerMinute).
    const saved = config.rateLimitPerMinute;
    config.rateLimitPerMinute = 6;
    try {
      const a = await createTenant();
      const k = await createKey(a.tenant.id, { allowedIps: ["203.0.113.7"] });
      expect((await hit("GET", k.raw, { "x-test-client-ip": "203.0.113.7" })).status).toBe(200);
      // the GCRA state (theoretical arrival time) must not move for refused requests
      const stateKey = runtimeKeys(config.redisPrefix).rateLimit(rateLimitNames.apiKey(k.id));
      const before = await redis.get(stateKey);
      expect(before).not.toBeNull();
      for (let i = 0; i < 3; i++) {
        const refused = await hit("GET", k.raw, { "x-test-client-ip": "198.51.100.1" });
        expect(refused.status).toBe(403);
        expect(refused.headers.get("x-ratelimit-remaining")).toBeNull();
      }
      expect(await redis.get(stateKey)).toBe(before);
      const allowed = await hit("GET", k.raw, { "x-test-client-ip": "203.0.113.7" });
      expect(allowed.status).toBe(200);
      expect(allowed.headers.get("x-ratelimit-remaining")).toBe("4"); // 6 less the two allowed requests
      expect(await redis.get(stateKey)).not.toBe(before);
    } finally {
      config.rateLimitPerMinute = saved;
    }
  });
  test("X-Forwarded-For is not believed without TRUST_PROXY", async () => {
    const a = await createTenant();
    const k = await createKey(a.tenant.id, { allowedIps: ["198.51.100.1"] });
    const r = await hit("GET", k.raw, { "x-test-client-ip": "192.0.2.1", "x-forwarded-for": "198.51.100.1" });
    expectError(r, 403, "insufficient_permissions");
  });
  test("a key without allowed_ips is usable from anywhere", async () => {
    const a = await createTenant();
    expect((await hit("GET", a.secretKey, { "x-test-client-ip": "8.8.8.8" })).status).toBe(200);
  });
  test("matcher: v4 entry matches v4-mapped v6; v6 entry never matches an unrelated v4", () => {
    const m = compileAllowedIps(["192.0.2.0/24", "2001:db8::1"]);
    const ok = (s: string) => m.some((f) => f(ipaddr.parse(s)));
    expect(ok("192.0.2.44")).toBe(true);
    expect(ok("::ffff:192.0.2.44")).toBe(true);
    expect(ok("2001:db8:0:0:0:0:0:1")).toBe(true);
    expect(ok("192.0.3.1")).toBe(false);
    expect(ok("2001:db8::2")).toBe(false);
  });
});

describe("publishable keys reach only the inbox routes (DESIGN.md 5)", () => {
  test("a publishable key on a secret route -> 403 insufficient_permissions", async () => {
    const a = await createTenant();
    const pk = await createKey(a.tenant.id, { keyType: "publishable" });
    expectError(await hit("GET", pk.raw), 403, "insufficient_permissions");
    expectError(await call("GET", "/v1/api-keys", { key: pk.raw }), 403, "insufficient_permissions");
    expectError(await call("GET", "/v1/inbox-embed/allowed-origins", { key: pk.raw, headers: { origin: "https://x.example" } }), 403, "insufficient_permissions");
  });
});

describe("DESIGN.md 4: the key's environment scopes everything", () => {
  test("auth context carries the key's tenant and environment", async () => {
    const a = await createTenant();
    expect((await hit("GET", a.secretKey)).body.data).toEqual({ tenant: a.tenant.id, environment: "production" });
    expect((await hit("GET", a.sandboxKey)).body.data).toEqual({ tenant: a.tenant.id, environment: "sandbox" });
  });
  test("a sandbox key never sees production keys; a production key, which issues sandbox keys, sees both", async () => {
    const a = await createTenant();
    const prod = await call("GET", "/v1/api-keys", { key: a.secretKey });
    const sand = await call("GET", "/v1/api-keys", { key: a.sandboxKey });
    expect(prod.text).toContain(a.secretKeyId);
    expect(prod.text).toContain(a.sandboxKeyId);
    expect(sand.text).toContain(a.sandboxKeyId);
    expect(sand.text).not.toContain(a.secretKeyId);
  });
});

describe("DESIGN.md 4: X-RateLimit-* on every authenticated response", () => {
  test("on success and on errors raised after authentication; not on 401", async () => {
    const a = await createTenant();
    const ro = await createKey(a.tenant.id, { permissions: ["read"] });
    const ok = await hit("GET", ro.raw);
    const denied = await hit("POST", ro.raw);
    const notFound = await call("DELETE", `/v1/api-keys/${crypto.randomUUID()}`, { key: a.secretKey });
    for (const r of [ok, denied, notFound]) {
      expect(r.headers.get("x-ratelimit-limit")).toBe("6000");
      expect(Number(r.headers.get("x-ratelimit-remaining"))).toBeGreaterThanOrEqual(0);
      const reset = Number(r.headers.get("x-ratelimit-reset"));
      expect(reset).toBeGreaterThan(Date.now() / 1000 - 1); // epoch seconds, not ms
      expect(reset).toBeLessThan(Date.now() / 1000 + 120);
    }
    const unauth = await hit("GET", "nk_live_" + "C".repeat(40));
    expect(unauth.headers.get("x-ratelimit-limit")).toBeNull();
  });
});

describe("dashboard sessions (SPEC Authentication 4)", () => {
  test("without a Bearer header the session is consulted; no session -> 401 invalid_api_key", async () => {
    expectError(await hit("GET", undefined, { cookie: "nms_session=nope" }), 401, "invalid_api_key");
  });
});

test("keys are stored hashed: no raw key in api_keys", async () => {
  const a = await createTenant();
  const rows = await sql`select * from api_keys where tenant_id = ${a.tenant.id}`;
  expect(JSON.stringify(rows)).not.toContain(a.secretKey);
});

describe("SPEC Authentication 4 + DESIGN.md 4: a dashboard session works on secret-rule routes", () => {
  async function session(tenantId: string) {
    const { createSession } = await import("../../store/sessions");
    const { insertUser } = await import("../../store/users");
    const { SESSION_COOKIE } = await import("../../http/session");
    const { config } = await import("../../config");
    const { user, s } = await sql.begin(async (tx: any) => {
      const user = await insertUser(tx, { tenantId, email: `owner-${crypto.randomUUID().slice(0, 8)}@example.com`, role: "owner" });
      const s = await createSession(tx, { userId: user.id, tenantId, ip: null, userAgent: null });
      return { user, s };
    });
    return { user, headers: { cookie: `${SESSION_COOKIE}=${s.token}`, origin: new URL(config.appUrl).origin } };
  }

  test("environment from X-Environment (default production); actions audited with actor_type user", async () => {
    const a = await createTenant();
    const { user, headers } = await session(a.tenant.id);
    const prod = await call("GET", "/v1/api-keys", { headers });
    expect(prod.status).toBe(200);
    expect(prod.text).toContain(a.secretKeyId);
    expect(prod.headers.get("x-ratelimit-limit")).toBe("6000");
    const sand = await call("GET", "/v1/api-keys", { headers: { ...headers, "x-environment": "sandbox" } });
    expect(sand.text).toContain(a.sandboxKeyId);
    expect(sand.text).not.toContain(a.secretKeyId);
    const created = await call("POST", "/v1/api-keys", { headers, body: { key_type: "secret", label: "from dashboard" } });
    expect(created.status).toBe(201);
    const [entry] = await sql`select actor_type, actor_id from audit_logs where resource_id = ${created.body.data.id}`;
    expect(entry).toEqual({ actor_type: "user", actor_id: user.id });
  });
});
