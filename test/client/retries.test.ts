// Client retries against a local server scripted to answer 503/429 with Retry-After, stall or
// drop: which calls are retried, how long they wait, one Idempotency-Key across a call's tries.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Nms, NmsError } from "../../client";

interface Try {
  method: string;
  path: string;
  key: string | null;
  at: number;
  body: string;
}

/** Each path answers from its script in order (the last entry repeats); every try is recorded. */
type Answer = { status: number; headers?: Record<string, string>; body?: unknown; stallMs?: number };
const scripts = new Map<string, Answer[]>();
const tries: Try[] = [];
let server: ReturnType<typeof Bun.serve>;
let baseUrl: string;

beforeAll(() => {
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const url = new URL(req.url);
      const seen = tries.filter((t) => t.path === url.pathname).length;
      tries.push({ method: req.method, path: url.pathname, key: req.headers.get("idempotency-key"), at: Date.now(), body: await req.text() });
      const script = scripts.get(url.pathname) ?? [{ status: 404, body: { error: { code: "not_found", message: "no script" } } }];
      const a = script[Math.min(seen, script.length - 1)]!;
      if (a.stallMs) await Bun.sleep(a.stallMs);
      return new Response(a.body === undefined ? null : JSON.stringify(a.body), {
        status: a.status,
        headers: { "content-type": "application/json", "x-request-id": `req-${tries.length}`, ...a.headers },
      });
    },
  });
  baseUrl = `http://127.0.0.1:${server.port}`;
});
afterAll(() => server.stop(true));

function script(path: string, answers: Answer[]) {
  scripts.set(path, answers);
  tries.splice(0, tries.length);
}

const unavailable = (retryAfter?: string): Answer => ({
  status: 503,
  headers: retryAfter === undefined ? {} : { "retry-after": retryAfter },
  body: { error: { code: "service_unavailable", message: "try later" } },
});
const limited = (retryAfter: string): Answer => ({
  status: 429,
  headers: { "retry-after": retryAfter },
  body: { error: { code: "rate_limited", message: "slow down" } },
});
const accepted = { id: "n1", channel: "sms", recipient: "+5511912345678", status: "pending", created_at: "2026-01-01T00:00:00.000Z" };

describe("idempotent POSTs (SPEC's Idempotency-Key list)", () => {
  test("503 with Retry-After, then 429 with Retry-After, then 202: three tries, one Idempotency-Key", async () => {
    script("/v1/notifications", [unavailable("1"), limited("0"), { status: 202, body: { data: accepted } }]);
    const nms = new Nms({ baseUrl, apiKey: "nk_test_x" });
    const n = await nms.notifications.create({ channel: "sms", to: "+5511912345678" });
    expect(n).toEqual(accepted);
    expect(tries.length).toBe(3);
    const keys = new Set(tries.map((t) => t.key));
    expect(keys.size).toBe(1);
    expect([...keys][0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(tries.map((t) => t.body)).size).toBe(1);
    // Retry-After: 1 was honoured (a lower bound on the client's wait, not a speed measurement)
    expect(tries[1]!.at - tries[0]!.at).toBeGreaterThanOrEqual(950);
  });

  test("each call gets its own key; a caller's idempotencyKey is used as given", async () => {
    script("/v1/templates", [{ status: 201, body: { data: {} } }]);
    const nms = new Nms({ baseUrl, apiKey: "nk_test_x" });
    const body = { slug: "a", name: "A", channel: "sms" as const, content: "x" };
    await nms.templates.create(body);
    await nms.templates.create(body);
    await nms.templates.create(body, { idempotencyKey: "order-42" });
    expect(tries.map((t) => t.key)[2]).toBe("order-42");
    expect(new Set(tries.map((t) => t.key)).size).toBe(3);
  });

  test("a dropped connection and a stalled answer are retried with the same key", async () => {
    script("/v1/subscribers", [{ status: 200, stallMs: 1_000, body: { data: {} } }, { status: 201, body: { data: { id: "s1" } } }]);
    let calls = 0;
    const flaky: typeof fetch = Object.assign(
      async (input: RequestInfo | URL, init?: RequestInit) => {
        if (++calls === 1) throw new TypeError("socket hang up"); // as fetch reports a reset connection
        return fetch(input, init);
      },
      { preconnect: fetch.preconnect },
    );
    const seen: (string | null)[] = [];
    const recording: typeof fetch = Object.assign(
      async (input: RequestInfo | URL, init?: RequestInit) => {
        seen.push(new Headers(init?.headers).get("idempotency-key"));
        return flaky(input, init);
      },
      { preconnect: fetch.preconnect },
    );
    const nms = new Nms({ baseUrl, apiKey: "nk_test_x", fetch: recording, timeoutMs: 300 });
    const s = await nms.subscribers.create({ external_id: "u1" });
    expect(s.id).toBe("s1");
    expect(seen.length).toBe(3); // dropped, timed out, answered
    expect(new Set(seen).size).toBe(1);
    expect(tries.length).toBe(2);
    expect(tries[0]!.key).toBe(seen[0]!);
  });

  test("409 idempotency_key_in_use (an earlier try still running) is waited out", async () => {
    script("/v1/channels", [
      { status: 409, headers: { "retry-after": "0" }, body: { error: { code: "idempotency_key_in_use", message: "busy" } } },
      { status: 201, body: { data: { id: "c1" } } },
    ]);
    const nms = new Nms({ baseUrl, apiKey: "nk_test_x" });
    expect((await nms.channels.create({ channel: "sms", provider: "sandbox" })).id).toBe("c1");
    expect(tries.length).toBe(2);
    expect(tries[0]!.key).toBe(tries[1]!.key);
  });
});

describe("limits", () => {
  test("maxRetries bounds the tries; the last error is thrown with its status, code and request id", async () => {
    script("/v1/channels", [unavailable("0")]);
    const nms = new Nms({ baseUrl, apiKey: "nk_test_x", maxRetries: 3 });
    const err = await nms.channels.list().catch((e) => e);
    expect(tries.length).toBe(4);
    expect(err).toBeInstanceOf(NmsError);
    expect([err.status, err.code, err.requestId]).toEqual([503, "service_unavailable", "req-4"]);

    script("/v1/channels", [unavailable("0")]);
    await new Nms({ baseUrl, apiKey: "nk_test_x", maxRetries: 0 }).channels.list().catch(() => undefined);
    expect(tries.length).toBe(1);
    script("/v1/channels", [unavailable("0")]);
    await nms.channels.list({ maxRetries: 1 }).catch(() => undefined);
    expect(tries.length).toBe(2);
  });

  test("a Retry-After over 60 s is not waited for: the error comes at once", async () => {
    script("/v1/channels", [limited("3600")]);
    const err = await new Nms({ baseUrl, apiKey: "nk_test_x" }).channels.list().catch((e) => e);
    expect([err.status, err.code]).toEqual([429, "rate_limited"]);
    expect(tries.length).toBe(1);
  });

  test("4xx other than 408/429 is never retried", async () => {
    script("/v1/channels", [{ status: 422, body: { error: { code: "validation_failed", message: "bad", details: { x: ["no"] } } } }]);
    const err = await new Nms({ baseUrl, apiKey: "nk_test_x" }).channels.list().catch((e) => e);
    expect([err.status, err.details]).toEqual([422, { x: ["no"] }]);
    expect(tries.length).toBe(1);
  });

  test("an AbortSignal stops the call and its retries with the caller's reason", async () => {
    script("/v1/channels", [unavailable("1")]);
    const ctl = new AbortController();
    setTimeout(() => ctl.abort(new Error("user left")), 200);
    const err = await new Nms({ baseUrl, apiKey: "nk_test_x" }).channels.list({ signal: ctl.signal }).catch((e) => e);
    expect(err.message).toBe("user left");
    expect(tries.length).toBe(1);
  });
});

describe("other POSTs: not retried when the server may have done the work", () => {
  test("import, rotate and tenants.create: a 503 is thrown after one try", async () => {
    const nms = new Nms({ baseUrl, apiKey: "nk_test_x", adminToken: "adm" });
    for (const [path, callIt] of [
      ["/v1/subscribers/import", () => nms.subscribers.import([{ external_id: "a" }])],
      ["/v1/api-keys/k1/rotate", () => nms.apiKeys.rotate("k1")],
      ["/api/internal/tenants", () => nms.tenants.create({ name: "x" })],
    ] as const) {
      script(path, [unavailable("0"), { status: 200, body: { data: {} } }]);
      const err = await callIt().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(NmsError);
      expect((err as NmsError).status).toBe(503);
      expect(tries.length).toBe(1);
      expect(tries[0]!.key).toBeNull();
    }
  });

  test("... but a 429 (refused before any work) is retried", async () => {
    script("/v1/subscribers/import", [limited("0"), { status: 200, body: { data: { imported: 1, subscribers: [] } } }]);
    const r = await new Nms({ baseUrl, apiKey: "nk_test_x" }).subscribers.import([{ external_id: "a" }]);
    expect(r.imported).toBe(1);
    expect(tries.length).toBe(2);
  });

  test("side-effect-free POSTs (preview, validate, mark read) are retried like reads", async () => {
    script("/v1/templates/preview", [unavailable("0"), { status: 200, body: { data: { rendered: { body: "x" }, variables: [], validation: { valid: true, errors: [], warnings: [] } } } }]);
    const p = await new Nms({ baseUrl, apiKey: "nk_test_x" }).templates.previewInline({ channel: "sms", content: "x" });
    expect(p.rendered.body).toBe("x");
    expect(tries.length).toBe(2);
  });
});

describe("credentials per mode", () => {
  test("API key, admin token, session (X-Environment) and publishable (X-Subscriber-*) headers", async () => {
    const headersOf: Headers[] = [];
    const credentials: (RequestCredentials | undefined)[] = [];
    const capture: typeof fetch = Object.assign(
      async (_input: RequestInfo | URL, init?: RequestInit) => {
        headersOf.push(new Headers(init?.headers));
        credentials.push(init?.credentials);
        return new Response(JSON.stringify({ data: [], audit_logs: [], count: 0 }), { status: 200 });
      },
      { preconnect: fetch.preconnect },
    );
    const both = new Nms({ baseUrl, apiKey: "nk_live_key", adminToken: "adm_token", fetch: capture });
    await both.channels.list();
    await both.auditLogs.list({ tenant_id: "t" });
    await new Nms({ baseUrl, credentials: "include", environment: "sandbox", fetch: capture }).channels.list();
    await new Nms({ baseUrl, apiKey: "pk_test_k", subscriberId: "u1", subscriberHash: "abc", fetch: capture }).subscribers.inbox.unreadCount("u1");
    expect(headersOf.map((h) => h.get("authorization"))).toEqual(["Bearer nk_live_key", "Bearer adm_token", null, "Bearer pk_test_k"]);
    expect(headersOf[2]!.get("x-environment")).toBe("sandbox");
    expect(credentials).toEqual([undefined, undefined, "include", undefined]);
    expect([headersOf[3]!.get("x-subscriber-id"), headersOf[3]!.get("x-subscriber-hash")]).toEqual(["u1", "abc"]);
  });
});
