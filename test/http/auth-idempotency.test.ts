// Idempotency-Key (SPEC Common rules, DESIGN.md 4): replay byte-identical with Idempotent-Replayed,
// reuse with another body -> 422, in flight -> 409, failures store nothing, scope, 24 h retention.
import { describe, expect, test } from "bun:test";
import { Elysia, t } from "elysia";
import { edgePlugins } from "../../http/plugins/edge";
import { idempotencyPlugin, IDEMPOTENT_POST_RE } from "../../http/plugins/idempotency";
import { accessPlugin } from "../../http/plugins/access";
import { ApiError } from "../support/app-error-status";
import { redis } from "../../store/redis";
import { scopeKey } from "../../store/idempotency";
import { call, createTenant } from "../support/fixtures";

function expectError(r: { status: number; body: any }, status: number, code: string) {
  expect(r.status).toBe(status);
  expect(r.body.error.code).toBe(code);
}

const post = (key: string, idem: string, body: unknown, path = "/v1/api-keys") =>
  call("POST", path, { key, body, headers: { "idempotency-key": idem } });

describe("SPEC Common rules: Idempotency-Key on POST /v1/api-keys (real route)", () => {
  test("a repeated request returns the original response without reprocessing: same status, byte-identical body, Idempotent-Replayed: true", async () => {
    const a = await createTenant();
    const idem = crypto.randomUUID();
    const first = await post(a.secretKey, idem, { key_type: "secret", label: "once" });
    expect(first.status).toBe(201);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const again = await post(a.secretKey, idem, { key_type: "secret", label: "once" });
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.headers.get("content-type")).toBe(first.headers.get("content-type"));
    expect(again.headers.get("x-ratelimit-limit")).toBe("6000");
    const list = await call("GET", "/v1/api-keys", { key: a.secretKey });
    expect(list.body.data.filter((k: any) => k.label === "once")).toHaveLength(1);
  });

  test("same key, different body -> 422 idempotency_key_reused", async () => {
    const a = await createTenant();
    const idem = crypto.randomUUID();
    expect((await post(a.secretKey, idem, { key_type: "secret", label: "a" })).status).toBe(201);
    expectError(await post(a.secretKey, idem, { key_type: "secret", label: "b" }), 422, "idempotency_key_reused");
  });

  test("a request that failed validation stores nothing: the same key then works with a fixed body", async () => {
    const a = await createTenant();
    const idem = crypto.randomUUID();
    expectError(await post(a.secretKey, idem, { key_type: "nope" }), 422, "validation_failed");
    expectError(await post(a.secretKey, idem, { label: 5 }), 422, "validation_failed");
    const ok = await post(a.secretKey, idem, { key_type: "secret", label: "fixed" });
    expect(ok.status).toBe(201);
    expect(ok.headers.get("idempotent-replayed")).toBeNull();
  });

  test("scope is (tenant, environment, method, path): the same key elsewhere is a new request", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const idem = "shared-key-" + crypto.randomUUID();
    const body = { key_type: "secret", label: "s" };
    const r1 = await post(a.secretKey, idem, body);
    const r2 = await post(b.secretKey, idem, body);
    const r3 = await post(a.sandboxKey, idem, { key_type: "secret", label: "s" });
    for (const r of [r1, r2, r3]) {
      expect(r.status).toBe(201);
      expect(r.headers.get("idempotent-replayed")).toBeNull();
    }
    expect(new Set([r1.body.data.id, r2.body.data.id, r3.body.data.id]).size).toBe(3);
  });

  test("SPEC: only POST of the listed endpoints (POST /api-keys is not one: two keys are made)", async () => {
    const a = await createTenant();
    const idem = crypto.randomUUID();
    const r1 = await post(a.secretKey, idem, { name: "g" }, "/api-keys");
    const r2 = await post(a.secretKey, idem, { name: "g" }, "/api-keys");
    expect(r1.status).toBe(201);
    expect(r2.status).toBe(201);
    expect(r2.body.data.id).not.toBe(r1.body.data.id);
    expect(r2.headers.get("idempotent-replayed")).toBeNull();
  });

  test("SPEC Limits: retained 24 hours", async () => {
    const a = await createTenant();
    const idem = crypto.randomUUID();
    expect((await post(a.secretKey, idem, { key_type: "secret" })).status).toBe(201);
    const key = scopeKey({ tenantId: a.tenant.id, environment: "production", method: "POST", path: "/v1/api-keys", key: idem });
    // the record is written just after the response is sent
    for (let i = 0; i < 100 && !(await redis.get(key))?.includes('"s":"d"'); i++) await Bun.sleep(10);
    const ttl = await redis.pttl(key);
    expect(ttl).toBeGreaterThan(23.9 * 3600_000);
    expect(ttl).toBeLessThanOrEqual(24 * 3600_000);
  });

  test("an empty or over-long Idempotency-Key -> 422 validation_failed", async () => {
    const a = await createTenant();
    expectError(await post(a.secretKey, "x".repeat(256), { key_type: "secret" }), 422, "validation_failed");
  });

  test("the SPEC list of paths", () => {
    for (const p of ["/v1/notifications", "/v1/channels", "/v1/templates", "/v1/workflows", "/v1/workflows/welcome/trigger", "/v1/subscribers", "/v1/webhooks", "/v1/api-keys", "/v1/domains"]) {
      expect(IDEMPOTENT_POST_RE.test(p)).toBe(true);
    }
    for (const p of ["/api-keys", "/v1/api-keys/x/rotate", "/v1/subscribers/bulk", "/v1/inbox-embed/allowed-origins", "/v1/workflows/a/b/trigger"]) {
      expect(IDEMPOTENT_POST_RE.test(p)).toBe(false);
    }
  });
});

// A route other engineers might write: no idempotency code in it at all.
let runs = 0;
let gate: { promise: Promise<void>; open: () => void } | null = null;
function newGate() {
  let open!: () => void;
  const promise = new Promise<void>((r) => (open = r));
  gate = { promise, open };
  return gate;
}
const other = new Elysia()
  .use(idempotencyPlugin) // the order of http/app.ts
  .use(edgePlugins)
  .use(
    new Elysia({ name: "test.other" })
      .use(accessPlugin)
      .post("/v1/notifications", async ({ body, set }) => {
        runs++;
        if (gate) await gate.promise;
        if (body.mode === "boom") throw new Error("handler failed");
        if (body.mode === "conflict") throw new ApiError(409, "conflict", "busy");
        set.status = 202;
        return { data: { run: runs, to: body.to, at: new Date().toISOString() } };
      }, { access: "secret-write", body: t.Object({ to: t.String(), mode: t.Optional(t.String()) }) }),
  );

async function otherPost(key: string, idem: string, body: unknown) {
  const res = await other.handle(
    new Request("http://localhost/v1/notifications", {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "idempotency-key": idem },
      body: JSON.stringify(body),
    }),
  );
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: JSON.parse(text) };
}

describe("DESIGN.md 4: idempotency works for routes that do nothing for it (global plugin)", () => {
  test("replay does not run the handler again; original 202 is replayed", async () => {
    const a = await createTenant();
    const idem = crypto.randomUUID();
    const before = runs;
    const r1 = await otherPost(a.secretKey, idem, { to: "x" });
    const r2 = await otherPost(a.secretKey, idem, { to: "x" });
    expect(r1.status).toBe(202);
    expect(r2.status).toBe(202);
    expect(r2.text).toBe(r1.text);
    expect(r2.headers.get("idempotent-replayed")).toBe("true");
    expect(runs - before).toBe(1);
  });

  test("same key while the first request is still running -> 409 idempotency_key_in_use (different body -> 422)", async () => {
    const a = await createTenant();
    const idem = crypto.randomUUID();
    const g = newGate();
    const before = runs;
    const first = otherPost(a.secretKey, idem, { to: "slow" });
    for (let i = 0; i < 500 && runs === before; i++) await Bun.sleep(5); // the first is inside its handler
    expectError(await otherPost(a.secretKey, idem, { to: "slow" }), 409, "idempotency_key_in_use");
    expectError(await otherPost(a.secretKey, idem, { to: "other" }), 422, "idempotency_key_reused");
    g.open();
    gate = null;
    expect((await first).status).toBe(202);
    const replay = await otherPost(a.secretKey, idem, { to: "slow" });
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
  });

  test("5xx stores nothing: the retry runs the handler again", async () => {
    const a = await createTenant();
    const idem = crypto.randomUUID();
    const before = runs;
    expect((await otherPost(a.secretKey, idem, { to: "x", mode: "boom" })).status).toBe(500);
    expect((await otherPost(a.secretKey, idem, { to: "x", mode: "boom" })).status).toBe(500);
    expect(runs - before).toBe(2);
  });

  test("4xx from the handler stores nothing and releases the key", async () => {
    const a = await createTenant();
    const idem = crypto.randomUUID();
    expect((await otherPost(a.secretKey, idem, { to: "x", mode: "conflict" })).status).toBe(409);
    const r = await otherPost(a.secretKey, idem, { to: "x", mode: "conflict" });
    expectError(r, 409, "conflict"); // ran again, not idempotency_key_in_use
  });

  test("without the header nothing is stored: two runs", async () => {
    const a = await createTenant();
    const before = runs;
    for (let i = 0; i < 2; i++) {
      const res = await other.handle(
        new Request("http://localhost/v1/notifications", {
          method: "POST",
          headers: { authorization: `Bearer ${a.secretKey}`, "content-type": "application/json" },
          body: JSON.stringify({ to: "x" }),
        }),
      );
      expect(res.status).toBe(202);
    }
    expect(runs - before).toBe(2);
  });
});

describe("the global plugin on the other engineers' real POST routes of SPEC's list", () => {
  test("POST /v1/templates, /v1/subscribers, /v1/notifications: replayed byte-identically, created once", async () => {
    const a = await createTenant();
    const u = crypto.randomUUID().slice(0, 8);
    // each with another valid body (an undeclared field would be refused as validation_failed first)
    const cases: [string, unknown, unknown][] = [
      ["/v1/templates", { slug: `idem-${u}`, name: "Idem", channel: "email", content: "Hi {{ name }}" }, { name: "Idem 2" }],
      ["/v1/subscribers", { external_id: `idem-${u}`, email: `idem-${u}@example.com` }, { name: "Idem 2" }],
      ["/v1/notifications", { channel: "in_app", to: `idem-${u}`, data: { title: "t", body: "b" } }, { data: { title: "t2", body: "b" } }],
    ];
    let exercised = 0;
    for (const [path, body, change] of cases) {
      const idem = crypto.randomUUID();
      const first = await post(a.sandboxKey, idem, body, path);
      if (first.status >= 300) continue; // the route's own rules refused this body; nothing to replay
      const again = await post(a.sandboxKey, idem, body, path);
      expect(again.status).toBe(first.status);
      expect(again.text).toBe(first.text);
      expect(again.headers.get("idempotent-replayed")).toBe("true");
      expectError(await post(a.sandboxKey, idem, { ...(body as object), ...(change as object) }, path), 422, "idempotency_key_reused");
      exercised++;
    }
    expect(exercised).toBeGreaterThan(0);
  });
});

test("the idempotency plugin leaves other error bodies alone: an unknown route still answers 404 not_found", async () => {
  const r = await call("POST", "/v1/not-a-route", { body: {}, headers: { "idempotency-key": "x" } });
  expectError(r, 404, "not_found");
});
