// The standard error body of DESIGN.md section 4 for every error kind the foundation owns,
// the request id on every response, and the tenant bootstrap route.
import { describe, expect, test } from "bun:test";
import { ADMIN_TOKEN, app, call } from "../support/fixtures";

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

function expectStandardError(body: any, code: string) {
  expect(body).toBeObject();
  expect(body.error).toBeObject();
  expect(body.error.code).toBe(code);
  expect(typeof body.error.message).toBe("string");
  expect(body.error.message.length).toBeGreaterThan(0);
}

describe("errors have the standard body {error: {code, message, details?}}", () => {
  test("unknown route -> 404 not_found", async () => {
    const r = await call("GET", "/v1/definitely-not-a-route");
    expect(r.status).toBe(404);
    expectStandardError(r.body, "not_found");
  });

  test("malformed JSON -> 400 invalid_json", async () => {
    const r = await call("POST", "/api/internal/tenants", { rawBody: '{"name": ', headers: admin });
    expect(r.status).toBe(400);
    expectStandardError(r.body, "invalid_json");
  });

  test("validation error -> 422 validation_failed with details per field", async () => {
    const r = await call("POST", "/api/internal/tenants", { body: { name: 42 }, headers: admin });
    expect(r.status).toBe(422);
    expectStandardError(r.body, "validation_failed");
    expect(Object.keys(r.body.error.details)).toContain("name");
    expect(r.body.error.details.name).toBeArray();
    expect(typeof r.body.error.details.name[0]).toBe("string");
  });

  test("missing required field -> 422 with details for that field", async () => {
    const r = await call("POST", "/api/internal/tenants", { body: {}, headers: admin });
    expect(r.status).toBe(422);
    expect(r.body.error.details.name).toBeArray();
  });

  test("body over 1 MiB -> 413 payload_too_large (with and without Content-Length)", async () => {
    const big = JSON.stringify({ name: "x".repeat(1024 * 1024 + 10) });
    const withLength = await app().handle(
      new Request("http://localhost/api/internal/tenants", {
        method: "POST",
        headers: { ...admin, "content-type": "application/json", "content-length": String(big.length) },
        body: big,
      }),
    );
    expect(withLength.status).toBe(413);
    expectStandardError(await withLength.json(), "payload_too_large");
    const streamed = await call("POST", "/api/internal/tenants", { rawBody: big, headers: admin });
    expect(streamed.status).toBe(413);
    expectStandardError(streamed.body, "payload_too_large");
  });

  test("admin route without the admin token -> 401 with the standard body", async () => {
    const r = await call("POST", "/api/internal/tenants", { body: { name: "x" }, headers: { authorization: "Bearer wrong" } });
    expect(r.status).toBe(401);
    expectStandardError(r.body, "invalid_admin_token");
  });

  test("admin route with an invalid body and no admin token -> 401 before any validation detail", async () => {
    for (const headers of [{}, { authorization: "Bearer wrong" }] as Record<string, string>[]) {
      const r = await call("POST", "/api/internal/tenants", { body: { name: 42 }, headers });
      expect(r.status).toBe(401);
      expectStandardError(r.body, "invalid_admin_token");
      expect(r.body.error.details).toBeUndefined();
    }
  });

  test("an unexpected failure -> 500 internal_error carrying the request id, never a stack", async () => {
    const { Elysia } = await import("elysia");
    const { edgePlugins } = await import("../../http/plugins/edge");
    const boom = new Elysia().use(edgePlugins).get("/boom", () => {
      throw new Error("secret internal detail at /srv/app.ts:12");
    });
    const res = await boom.handle(new Request("http://localhost/boom"));
    expect(res.status).toBe(500);
    const body: any = await res.json();
    expectStandardError(body, "internal_error");
    const rid = res.headers.get("x-request-id");
    expect(rid).toBeTruthy();
    expect(body.error.message).toContain(rid!);
    expect(JSON.stringify(body)).not.toContain("secret internal detail");
    expect(JSON.stringify(body)).not.toContain("app.ts");
  });
});

describe("U+0000, which PostgreSQL text and jsonb cannot store, is a 422 on the field, never a 500", () => {
  test("in a JSON body: 422 validation_failed naming the field", async () => {
    const r = await call("POST", "/api/internal/tenants", { rawBody: '{"name":"a\\u0000b"}', headers: admin });
    expect(r.status).toBe(422);
    expectStandardError(r.body, "validation_failed");
    expect(r.body.error.details).toEqual({ name: ["must not contain NUL (\\u0000) characters"] });
    const nested = await call("POST", "/api/internal/tenants", { rawBody: '{"name":"x","meta":{"list":["ok","\\u0000"]}}', headers: admin });
    expect(nested.status).toBe(422);
    expect(Object.keys(nested.body.error.details)).toEqual(["meta.list[1]"]);
  });

  test("a lone UTF-16 surrogate (\\ud800), which jsonb refuses, is a 422 too; a valid pair is kept", async () => {
    const r = await call("POST", "/api/internal/tenants", { rawBody: '{"name":"a\\ud800b"}', headers: admin });
    expect(r.status).toBe(422);
    expect(Object.keys(r.body.error.details)).toEqual(["name"]);
    const { createTenant } = await import("../support/fixtures");
    const t = await createTenant();
    const sub = await call("POST", "/v1/subscribers", { key: t.secretKey, rawBody: '{"external_id":"\\udfff"}' });
    expect(sub.status).toBe(422);
    const pair = await call("POST", "/api/internal/tenants", { rawBody: '{"name":"a\\ud83c\\udf89"}', headers: admin });
    expect(pair.status).toBe(201);
    expect(pair.body.data.name).toBe("a🎉");
  });

  test("an escaped backslash before u0000 is ordinary text, not NUL", async () => {
    const r = await call("POST", "/api/internal/tenants", { rawBody: '{"name":"a\\\\u0000b"}', headers: admin });
    expect(r.status).toBe(201);
    expect(r.body.data.name).toBe("a\\u0000b");
  });

  test("in a query parameter or path segment: 422 validation_failed", async () => {
    const q = await call("GET", "/api/internal/audit-logs?tenant_id=00000000-0000-7000-8000-000000000000&action=a%00b", { headers: admin });
    expect(q.status).toBe(422);
    expect(q.body.error.details).toEqual({ action: ["must not contain NUL (\\u0000) characters"] });
    const p = await call("GET", "/api/internal/audit-logs/a%00b", { headers: admin });
    expect(p.status).toBe(422);
    expectStandardError(p.body, "validation_failed");
  });

  test("a PostgreSQL refusal of such a character still maps to 422 (safety net)", async () => {
    const { Elysia } = await import("elysia");
    const { edgePlugins } = await import("../../http/plugins/edge");
    const { sql } = await import("../../store/db");
    const viaForm = new Elysia().use(edgePlugins).post("/probe", async ({ body }) => {
      await sql`select ${String((body as any).text)}::text`;
      return { ok: true };
    });
    const res2 = await viaForm.handle(
      new Request("http://localhost/probe", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "text=a%00b",
      }),
    );
    expect(res2.status).toBe(422);
    expectStandardError(await res2.json(), "validation_failed");
  });
});

describe("a body value Elysia coerces and then finds out of bounds is the client's error", () => {
  test('"-1" (a string) for an integer with minimum 0 -> 422, not 500', async () => {
    const { createTenant } = await import("../support/fixtures");
    const t = await createTenant();
    const r = await call("POST", `/v1/api-keys/${t.secretKeyId}/rotate`, { key: t.secretKey, body: { grace_period_hours: "-1" } });
    expect(r.status).toBe(422);
    expectStandardError(r.body, "validation_failed");
  });
});

describe("a string or array sent where an object is expected is refused, never rebuilt as {\"0\": ...}", () => {
  test("422 validation_failed on the field, nothing stored", async () => {
    const { createTenant } = await import("../support/fixtures");
    const t = await createTenant();
    const tpl = { channel: "email", slug: `obj-${crypto.randomUUID().slice(0, 8)}`, name: "x", content: "x" };
    for (const variants of ["nope", ["a"], 5]) {
      const r = await call("POST", "/v1/templates", { key: t.secretKey, body: { ...tpl, variants } });
      expect(r.status).toBe(422);
      expect(Object.keys(r.body.error.details)).toEqual(["variants"]);
    }
    for (const metadata of ["nope", [1, 2]]) {
      const r = await call("POST", "/v1/templates", { key: t.secretKey, body: { ...tpl, metadata } });
      expect(r.status).toBe(422);
      expect(Object.keys(r.body.error.details)).toEqual(["metadata"]);
    }
    const ch = await call("POST", "/v1/channels", { key: t.secretKey, body: { channel: "in_app", provider: "sandbox", credentials: "abc" } });
    expect(ch.status).toBe(422);
    expect(Object.keys(ch.body.error.details)).toEqual(["credentials"]);
    const root = await call("POST", "/v1/subscribers", { key: t.secretKey, rawBody: '"a string body"' });
    expect(root.status).toBe(422);
    expect(root.body.error.details).toEqual({ body: ["must be object"] });
    const list = await call("GET", "/v1/templates", { key: t.secretKey });
    expect(list.body.data).toEqual([]);
  });
});

describe("JSON nested deeper than 64 levels is a 422 (it overflowed the validator and jsonb: 500)", () => {
  test("100,000 nested arrays, and an object 20,000 deep in a free-form field -> 422; 64 levels pass", async () => {
    const arrays = await call("POST", "/api/internal/tenants", { rawBody: "[".repeat(100_000) + "]".repeat(100_000), headers: admin });
    expect(arrays.status).toBe(422);
    expectStandardError(arrays.body, "validation_failed");
    const { createTenant } = await import("../support/fixtures");
    const t = await createTenant();
    const nest = (n: number) => '{"x":'.repeat(n) + "1" + "}".repeat(n);
    const body = (n: number) => `{"channel":"sms","slug":"deep-${n}-${crypto.randomUUID().slice(0, 6)}","name":"x","content":"x","metadata":${nest(n)}}`;
    const deep = await call("POST", "/v1/templates", { key: t.secretKey, rawBody: body(20_000) });
    expect(deep.status).toBe(422);
    expect(deep.body.error.details.body[0]).toContain("64");
    const ok = await call("POST", "/v1/templates", { key: t.secretKey, rawBody: body(63) });
    expect(ok.status).toBe(201);
    const brackets = await call("POST", "/v1/templates", {
      key: t.secretKey,
      rawBody: `{"channel":"sms","slug":"br-${crypto.randomUUID().slice(0, 6)}","name":"x","content":"${"[{".repeat(200)}"}`,
    });
    expect(brackets.status).toBe(201); // brackets inside strings are text, not nesting
  });
});

describe("validation messages a client can act on", () => {
  test('a missing field says only "is required"; an enum-like union lists its values; a numeric one its bounds', async () => {
    const { createTenant } = await import("../support/fixtures");
    const t = await createTenant();
    const missing = await call("POST", "/v1/templates", { key: t.secretKey, body: {} });
    expect(missing.status).toBe(422);
    expect(missing.body.error.details.slug).toEqual(["is required"]);
    expect(missing.body.error.details.content).toEqual(["is required"]);
    const sub = await call("POST", "/v1/subscribers", { key: t.secretKey, body: { external_id: `u-${crypto.randomUUID()}` } });
    const prefs = await call("PUT", `/v1/subscribers/${sub.body.data.id}/preferences`, {
      key: t.secretKey,
      body: { preferences: [{ category: "news", channel: "fax", enabled: true }] },
    });
    expect(prefs.status).toBe(422);
    expect(prefs.body.error.details["preferences[0].channel"]).toEqual(["must be one of email, whatsapp, sms, in_app, push"]);
    const rotate = await call("POST", `/v1/api-keys/${t.secretKeyId}/rotate`, { key: t.secretKey, body: { grace_period_hours: 9999 } });
    expect(rotate.status).toBe(422);
    expect(rotate.body.error.details.grace_period_hours).toEqual(["must be an integer from 0 to 720"]);
  });
});

describe("field names taken from the client's JSON cannot break the error mapper", () => {
  test('a "__proto__" key on a route with a closed schema -> 422 JSON naming it, not a 500 page', async () => {
    const r = await call("POST", "/api/internal/tenants", { rawBody: '{"__proto__":{"x":1}}', headers: admin });
    expect(r.status).toBe(422);
    expectStandardError(r.body, "validation_failed");
    expect(Object.keys(r.body.error.details)).toContain("__proto__");
    expect(r.body.error.details.name).toBeArray();
  });
});

describe("request ids", () => {
  test("every response carries X-Request-Id, errors included", async () => {
    for (const [m, p] of [["GET", "/health"], ["GET", "/nope"], ["POST", "/api/internal/tenants"]] as const) {
      const r = await call(m, p, { headers: admin, rawBody: m === "POST" ? "{" : undefined });
      expect(r.headers.get("x-request-id")).toMatch(/^[\w.:-]+$/);
    }
  });

  test("a sane incoming X-Request-Id is kept", async () => {
    const r = await call("GET", "/health", { headers: { "x-request-id": "trace-abc-123" } });
    expect(r.headers.get("x-request-id")).toBe("trace-abc-123");
  });
});

describe("POST /api/internal/tenants", () => {
  test("creates a tenant and returns one production secret key once (data.api_key)", async () => {
    const r = await call("POST", "/api/internal/tenants", { body: { name: "Acme Foundation" }, headers: admin });
    expect(r.status).toBe(201);
    expect(r.body.data.name).toBe("Acme Foundation");
    expect(r.body.data.api_key.raw_key).toMatch(/^nk_live_[0-9A-Za-z]{40}$/);
    expect(r.body.data.api_key.environment).toBe("production");
    expect(r.body.data.api_key.key_type).toBe("secret");
    expect(r.body.data.api_key.prefix).toBe(r.body.data.api_key.raw_key.slice(0, 12));
    const { sql } = await import("../../store/db");
    const rows = await sql`select key_hash from api_keys where id = ${r.body.data.api_key.id}`;
    expect(rows[0]!.key_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(rows[0]!.key_hash).not.toContain(r.body.data.api_key.raw_key);
  });
});

describe("GET /health", () => {
  test("200 {status: ok, checks: {postgres, redis}, version} when both answer", async () => {
    const r = await call("GET", "/health");
    expect(r.status).toBe(200);
    expect(r.body.status).toBe("ok");
    expect(r.body.checks.postgres.status).toBe("ok");
    expect(r.body.checks.redis.status).toBe("ok");
    expect(typeof r.body.version).toBe("string");
  });
});

test("a malformed body is never echoed back in the 400 (it may hold secrets)", async () => {
  const r = await call("POST", "/api/internal/tenants", {
    rawBody: '{"auth_token": supersecretvalue123}',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  expect(r.status).toBe(400);
  expect(r.body.error.code).toBe("invalid_json");
  expect(r.text).not.toContain("supersecretvalue123");
});
