// API key management in both SPEC shapes: prefixes, hashes, raw key once, revocation on the next
// request, rotation with a grace period (DESIGN.md 5), the audit entries, and last_used_at coalescing.
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { sql } from "../../store/db";
import { flushLastUsed } from "../../store/api-keys";
import { ADMIN_TOKEN, call, createKey, createTenant } from "../support/fixtures";

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

async function auditOf(tenantId: string, action: string) {
  const r = await call("GET", `/api/internal/audit-logs?tenant_id=${tenantId}&action=${action}`, { headers: admin });
  expect(r.status).toBe(200);
  return r.body.audit_logs as any[];
}

function expectError(r: { status: number; body: any }, status: number, code: string) {
  expect(r.status).toBe(status);
  expect(r.body.error.code).toBe(code);
  expect(typeof r.body.error.message).toBe("string");
}

describe("reference shape /v1/api-keys (SPEC API keys)", () => {
  test("POST -> 201 with id, key_type, label, environment, prefix, raw_key shown once; stored as SHA-256", async () => {
    const a = await createTenant();
    const r = await call("POST", "/v1/api-keys", { key: a.secretKey, body: { key_type: "secret", label: "backend", environment: "production" } });
    expect(r.status).toBe(201);
    const k = r.body.data;
    expect(k).toMatchObject({ key_type: "secret", label: "backend", environment: "production" });
    expect(k.raw_key).toMatch(/^nk_live_[0-9A-Za-z]{32,}$/);
    expect(k.prefix).toBe(k.raw_key.slice(0, 12));
    const [row] = await sql`select key_hash from api_keys where id = ${k.id}`;
    expect(row!.key_hash).toBe(createHash("sha256").update(k.raw_key).digest("hex"));
    expect(JSON.stringify(await sql`select * from api_keys where id = ${k.id}`)).not.toContain(k.raw_key);
    // the new key works
    expect((await call("GET", "/v1/api-keys", { key: k.raw_key })).status).toBe(200);
  });

  test("prefixes by type and environment: nk_live_, nk_test_, pk_live_, pk_test_ ('public' is an alias of publishable)", async () => {
    const a = await createTenant();
    const cases = [
      [{ key_type: "secret", environment: "production" }, "nk_live_", "secret"],
      [{ key_type: "secret", environment: "sandbox" }, "nk_test_", "secret"],
      [{ key_type: "publishable", environment: "production" }, "pk_live_", "publishable"],
      [{ key_type: "public", environment: "sandbox" }, "pk_test_", "publishable"],
    ] as const;
    for (const [body, prefix, type] of cases) {
      const r = await call("POST", "/v1/api-keys", { key: a.secretKey, body: { ...body, label: "x" } });
      expect(r.status).toBe(201);
      expect(r.body.data.raw_key.startsWith(prefix)).toBe(true);
      expect(r.body.data.key_type).toBe(type);
      expect(r.body.data.environment).toBe(body.environment);
    }
  });

  test("environment defaults to the caller's; a sandbox key cannot create production keys (403 insufficient_permissions)", async () => {
    const a = await createTenant();
    const r = await call("POST", "/v1/api-keys", { key: a.sandboxKey, body: { key_type: "secret" } });
    expect(r.status).toBe(201);
    expect(r.body.data.environment).toBe("sandbox");
    expectError(await call("POST", "/v1/api-keys", { key: a.sandboxKey, body: { key_type: "secret", environment: "production" } }), 403, "insufficient_permissions");
  });

  test("invalid key_type / environment / permissions -> 422 validation_failed naming the field", async () => {
    const a = await createTenant();
    const r = await call("POST", "/v1/api-keys", { key: a.secretKey, body: { key_type: "root", environment: "staging", permissions: ["admin"] } });
    expectError(r, 422, "validation_failed");
    expect(Object.keys(r.body.error.details).sort()).toEqual(["environment", "key_type", "permissions[0]"]);
    expectError(await call("POST", "/v1/api-keys", { key: a.secretKey, body: { key_type: 5 } }), 422, "validation_failed");
  });

  test("key_type defaults to secret", async () => {
    const a = await createTenant();
    const r = await call("POST", "/v1/api-keys", { key: a.secretKey, body: { label: "default type" } });
    expect(r.status).toBe(201);
    expect(r.body.data.key_type).toBe("secret");
    expect(r.body.data.raw_key).toMatch(/^nk_live_/);
  });

  test("GET lists every key the caller manages, each with its environment, without raw keys (SPEC: keys are never returned again)", async () => {
    const a = await createTenant();
    const created = await call("POST", "/v1/api-keys", { key: a.secretKey, body: { key_type: "secret", label: "l" } });
    const madeSandbox = await call("POST", "/v1/api-keys", { key: a.secretKey, body: { environment: "sandbox", label: "s" } });
    const r = await call("GET", "/v1/api-keys", { key: a.secretKey });
    expect(r.status).toBe(200);
    const envOf = Object.fromEntries(r.body.data.map((k: any) => [k.id, k.environment]));
    // a production key issues sandbox keys, so it lists (and revokes, rotates) them too
    expect(envOf).toMatchObject({
      [created.body.data.id]: "production",
      [a.secretKeyId]: "production",
      [a.sandboxKeyId]: "sandbox",
      [madeSandbox.body.data.id]: "sandbox",
    });
    // a sandbox key manages the sandbox keys only
    const fromSandbox = await call("GET", "/v1/api-keys", { key: a.sandboxKey });
    expect(fromSandbox.body.data.map((k: any) => k.environment)).toEqual(["sandbox", "sandbox"]);
    expect(r.text).not.toContain(created.body.data.raw_key);
    expect(r.text).not.toContain(a.secretKey);
    for (const k of r.body.data) expect(k.raw_key).toBeUndefined();
  });

  test("DELETE revokes immediately: 204, the very next request with that key -> 401 invalid_api_key; audit api_key.revoked {key_prefix, revoked_reason}", async () => {
    const a = await createTenant();
    const k = (await call("POST", "/v1/api-keys", { key: a.secretKey, body: { key_type: "secret" } })).body.data;
    expect((await call("GET", "/v1/api-keys", { key: k.raw_key })).status).toBe(200); // cached now
    const d = await call("DELETE", `/v1/api-keys/${k.id}?reason=leaked`, { key: a.secretKey });
    expect(d.status).toBe(204);
    expectError(await call("GET", "/v1/api-keys", { key: k.raw_key }), 401, "invalid_api_key");
    expectError(await call("DELETE", `/v1/api-keys/${k.id}`, { key: a.secretKey }), 404, "not_found");
    const [entry] = await auditOf(a.tenant.id, "api_key.revoked");
    expect(entry).toMatchObject({ actor_type: "api_key", actor_id: a.secretKeyId, resource_type: "api_key", resource_id: k.id });
    expect(entry.metadata).toEqual({ key_prefix: k.prefix, revoked_reason: "leaked" });
  });

  test("a key may revoke itself; its next request is refused", async () => {
    const a = await createTenant();
    const k = await createKey(a.tenant.id);
    expect((await call("DELETE", `/v1/api-keys/${k.id}`, { key: k.raw })).status).toBe(204);
    expectError(await call("GET", "/v1/api-keys", { key: k.raw }), 401, "invalid_api_key");
  });

  test("DELETE of another tenant's or the other environment's key -> 404, and it keeps working", async () => {
    const a = await createTenant();
    const b = await createTenant();
    expectError(await call("DELETE", `/v1/api-keys/${a.secretKeyId}`, { key: b.secretKey }), 404, "not_found");
    expectError(await call("DELETE", `/v1/api-keys/${a.secretKeyId}`, { key: a.sandboxKey }), 404, "not_found");
    expectError(await call("DELETE", `/v1/api-keys/not-a-uuid`, { key: a.secretKey }), 404, "not_found");
    expect((await call("GET", "/v1/api-keys", { key: a.secretKey })).status).toBe(200);
  });

  test("api_key.created audit entry {environment, key_type, scopes} written with the key", async () => {
    const a = await createTenant();
    const k = (await call("POST", "/v1/api-keys", { key: a.secretKey, body: { key_type: "public", environment: "sandbox", permissions: ["read"] } })).body.data;
    const entries = await auditOf(a.tenant.id, "api_key.created");
    const entry = entries.find((e) => e.resource_id === k.id);
    expect(entry).toBeDefined();
    expect(entry.metadata).toEqual({ environment: "sandbox", key_type: "publishable", scopes: ["read"] });
    expect(entry.actor_type).toBe("api_key");
    expect(entry.actor_id).toBe(a.secretKeyId);
  });
});

describe("POST /v1/api-keys/:id/rotate (DESIGN.md 5: grace period)", () => {
  test("default grace 24 h: new key shown once, old key keeps working until expires_at; audit api_key.rotated", async () => {
    const a = await createTenant();
    const old = (await call("POST", "/v1/api-keys", { key: a.secretKey, body: { key_type: "secret", label: "rot" } })).body.data;
    const r = await call("POST", `/v1/api-keys/${old.id}/rotate`, { key: a.secretKey, body: {} });
    expect(r.status).toBe(201);
    const fresh = r.body.data;
    expect(fresh.raw_key).toMatch(/^nk_live_/);
    expect(fresh.id).not.toBe(old.id);
    expect(fresh.label).toBe("rot");
    const expiresIn = Date.parse(r.body.data.rotated_from.expires_at) - Date.now();
    expect(expiresIn).toBeGreaterThan(23.9 * 3600_000);
    expect(expiresIn).toBeLessThan(24.1 * 3600_000);
    expect((await call("GET", "/v1/api-keys", { key: old.raw_key })).status).toBe(200);
    expect((await call("GET", "/v1/api-keys", { key: fresh.raw_key })).status).toBe(200);
    const [entry] = await auditOf(a.tenant.id, "api_key.rotated");
    expect(entry.metadata).toMatchObject({ old_key_prefix: old.prefix, new_key_prefix: fresh.prefix, grace_period_hours: 24 });
    expect(entry.resource_id).toBe(old.id);
  });

  test("grace_period_hours 0 ends the old key at once (401 on its next request)", async () => {
    const a = await createTenant();
    const old = (await call("POST", "/v1/api-keys", { key: a.secretKey, body: { key_type: "secret" } })).body.data;
    expect((await call("GET", "/v1/api-keys", { key: old.raw_key })).status).toBe(200);
    const r = await call("POST", `/v1/api-keys/${old.id}/rotate`, { key: a.secretKey, body: { grace_period_hours: 0 } });
    expect(r.status).toBe(201);
    expectError(await call("GET", "/v1/api-keys", { key: old.raw_key }), 401, "invalid_api_key");
    expect((await call("GET", "/v1/api-keys", { key: r.body.data.raw_key })).status).toBe(200);
    const [entry] = await auditOf(a.tenant.id, "api_key.rotated");
    expect(entry.metadata.grace_period_hours).toBe(0);
  });

  test("an expired key -> 401 invalid_api_key (expires_at in the past)", async () => {
    const a = await createTenant();
    const k = await createKey(a.tenant.id);
    await sql`update api_keys set expires_at = now() - interval '1 second' where id = ${k.id}`;
    expectError(await call("GET", "/v1/api-keys", { key: k.raw }), 401, "invalid_api_key");
  });

  test("grace_period_hours outside 0..720 -> 422; unknown or revoked key -> 404", async () => {
    const a = await createTenant();
    const r = await call("POST", `/v1/api-keys/${a.sandboxKeyId}/rotate`, { key: a.sandboxKey, body: { grace_period_hours: 721 } });
    expectError(r, 422, "validation_failed");
    expect(Object.keys(r.body.error.details)).toContain("grace_period_hours");
    expectError(await call("POST", `/v1/api-keys/${a.sandboxKeyId}/rotate`, { key: a.sandboxKey, body: { grace_period_hours: -1 } }), 422, "validation_failed");
    expectError(await call("POST", `/v1/api-keys/${crypto.randomUUID()}/rotate`, { key: a.secretKey, body: {} }), 404, "not_found");
    // a sandbox key can not reach production keys; a production key may rotate a sandbox key
    expectError(await call("POST", `/v1/api-keys/${a.secretKeyId}/rotate`, { key: a.sandboxKey, body: {} }), 404, "not_found");
    expectError(await call("DELETE", `/v1/api-keys/${a.secretKeyId}`, { key: a.sandboxKey }), 404, "not_found");
    const rotated = await call("POST", `/v1/api-keys/${a.sandboxKeyId}/rotate`, { key: a.secretKey, body: { grace_period_hours: 0 } });
    expect(rotated.status).toBe(201);
    expect(rotated.body.data.environment).toBe("sandbox");
    expect(rotated.body.data.raw_key.startsWith("nk_test_")).toBe(true);
  });
});

describe("guide shape /api-keys (SPEC API keys)", () => {
  test("POST -> 201 with id, name, key (once), permissions, allowed_ips, created_at, last_used_at", async () => {
    const a = await createTenant();
    const r = await call("POST", "/api-keys", {
      key: a.secretKey,
      body: { name: "ci", permissions: ["read"], allowed_ips: ["10.0.0.0/8", "2001:db8::/32", "192.168.1.7"] },
    });
    expect(r.status).toBe(201);
    expect(Object.keys(r.body.data).sort()).toEqual(["allowed_ips", "created_at", "id", "key", "last_used_at", "name", "permissions"]);
    expect(r.body.data).toMatchObject({ name: "ci", permissions: ["read"], allowed_ips: ["10.0.0.0/8", "2001:db8::/32", "192.168.1.7"], last_used_at: null });
    expect(r.body.data.key).toMatch(/^nk_live_/);
  });

  test("allowed_ips entries validated with ipaddr.js: 422 per failing entry", async () => {
    const a = await createTenant();
    const r = await call("POST", "/api-keys", {
      key: a.secretKey,
      body: { name: "x", allowed_ips: ["1.2.3.4", "999.1.1.1", "10.0.0.0/33", "::1", "fe80::/129", "hello", "1.2.3"] },
    });
    expectError(r, 422, "validation_failed");
    expect(Object.keys(r.body.error.details).sort()).toEqual(["allowed_ips[1]", "allowed_ips[2]", "allowed_ips[4]", "allowed_ips[5]", "allowed_ips[6]"]);
  });

  test("invalid permissions -> 422; blank name -> 422", async () => {
    const a = await createTenant();
    expectError(await call("POST", "/api-keys", { key: a.secretKey, body: { name: "x", permissions: ["read", "admin"] } }), 422, "validation_failed");
    expectError(await call("POST", "/api-keys", { key: a.secretKey, body: { name: "x", permissions: [] } }), 422, "validation_failed");
    expectError(await call("POST", "/api-keys", { key: a.secretKey, body: { name: "  " } }), 422, "validation_failed");
  });

  test("GET -> data list and meta {total, page}; no key values", async () => {
    const a = await createTenant();
    const made = [];
    for (let i = 0; i < 3; i++) made.push((await call("POST", "/api-keys", { key: a.secretKey, body: { name: `k${i}` } })).body.data);
    const r = await call("GET", "/api-keys?page=1&per_page=2", { key: a.secretKey });
    expect(r.status).toBe(200);
    expect(r.body.meta).toMatchObject({ total: 4, page: 1 }); // 3 + the default key
    expect(r.body.data).toHaveLength(2);
    const p2 = await call("GET", "/api-keys?page=2&per_page=2", { key: a.secretKey });
    expect(p2.body.meta).toMatchObject({ total: 4, page: 2 });
    expect(p2.body.data).toHaveLength(2);
    for (const k of made) {
      expect(r.text + p2.text).not.toContain(k.key);
      expect(r.text + p2.text).toContain(k.id);
    }
    for (const k of [...r.body.data, ...p2.body.data]) expect(k.key).toBeUndefined();
    expectError(await call("GET", "/api-keys?page=0", { key: a.secretKey }), 422, "validation_failed");
  });

  test("DELETE revokes: all requests using the key then fail (401)", async () => {
    const a = await createTenant();
    const k = (await call("POST", "/api-keys", { key: a.secretKey, body: { name: "gone" } })).body.data;
    expect((await call("GET", "/api-keys", { key: k.key })).status).toBe(200);
    expect((await call("DELETE", `/api-keys/${k.id}`, { key: a.secretKey })).status).toBe(204);
    expectError(await call("GET", "/api-keys", { key: k.key }), 401, "invalid_api_key");
    const list = await call("GET", "/api-keys", { key: a.secretKey });
    expect(list.text).not.toContain(k.id);
  });
});

describe("last_used_at without a write per request (coalesced to one UPDATE per key per minute)", () => {
  test("set after the first use, unchanged by further uses within the minute", async () => {
    const a = await createTenant();
    const k = await createKey(a.tenant.id);
    const [before] = await sql`select last_used_at from api_keys where id = ${k.id}`;
    expect(before!.last_used_at).toBeNull();
    expect((await call("GET", "/v1/api-keys", { key: k.raw })).status).toBe(200);
    await flushLastUsed();
    const [first] = await sql`select last_used_at from api_keys where id = ${k.id}`;
    expect(first!.last_used_at).toBeInstanceOf(Date);
    for (let i = 0; i < 5; i++) await call("GET", "/v1/api-keys", { key: k.raw });
    await flushLastUsed();
    const [after] = await sql`select last_used_at from api_keys where id = ${k.id}`;
    expect(after!.last_used_at.getTime()).toBe(first!.last_used_at.getTime());
    const listed = (await call("GET", "/api-keys", { key: a.secretKey })).body.data.find((x: any) => x.id === k.id);
    expect(listed.last_used_at).toBe(first!.last_used_at.toISOString());
  });
});
