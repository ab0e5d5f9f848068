// The sendgrid provider against a local server answering as SendGrid v3 Mail Send:
// X-Message-Id as id, {errors:[...]} shapes, 429/5xx retryable with Retry-After, other 4xx permanent.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { createProvider } from "../../providers/registry";
import type { OutboundMessage } from "../../providers/types";
import * as fakeSendgrid from "../support/fake-sendgrid";

const API_KEY = "SG.test-key-value";
let sg: fakeSendgrid.FakeSendgrid;

function message(overrides: Partial<OutboundMessage> = {}): OutboundMessage {
  return {
    notificationId: "0190f5c2-7a1b-7c3d-8e4f-0000000000a1",
    tenantId: "t1",
    environment: "production",
    channel: "email",
    to: "ana@example.org",
    subject: "Welcome",
    text: "Hello Ana",
    html: "<b>Hello Ana</b>",
    ...overrides,
  };
}

function provider(opts: { apiKey?: string; timeoutMs?: number; baseUrl?: string } = {}) {
  return createProvider(
    "sendgrid",
    {
      credentials: { api_key: opts.apiKey ?? API_KEY },
      settings: { from_email: "hello@acme.test", from_name: "Acme", base_url: opts.baseUrl ?? sg.url },
    },
    { timeoutMs: opts.timeoutMs ?? 3000 },
  );
}

beforeAll(async () => {
  sg = await fakeSendgrid.start({ apiKey: API_KEY });
});
afterAll(() => sg.stop());
beforeEach(() => sg.reset());

describe("sendgrid provider (POST {base_url}/v3/mail/send, Bearer api_key)", () => {
  test("success: 202 and the X-Message-Id header is the provider message id", async () => {
    const result = await provider().send(
      message({ headers: { "List-Unsubscribe": "<https://x.test/u/1>", "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" } }),
    );
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(sg.accepted).toHaveLength(1);
    expect(result.providerMessageId).toBe(sg.accepted[0]!.messageId);
    expect(result.response.status).toBe(202);
    const req = sg.requests[0]!;
    expect(req.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(req.json).toMatchObject({
      personalizations: [{ to: [{ email: "ana@example.org" }] }],
      from: { email: "hello@acme.test", name: "Acme" },
      subject: "Welcome",
      content: [
        { type: "text/plain", value: "Hello Ana" },
        { type: "text/html", value: "<b>Hello Ana</b>" },
      ],
      headers: { "List-Unsubscribe": "<https://x.test/u/1>", "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" },
      custom_args: { notification_id: "0190f5c2-7a1b-7c3d-8e4f-0000000000a1" },
    });
    expect(JSON.stringify(result)).not.toContain(API_KEY);
  });

  test("providerTemplateId sends template_id with dynamic_template_data", async () => {
    const result = await provider().send(message({ providerTemplateId: "d-123abc", data: { name: "Ana" }, text: undefined, html: undefined }));
    expect(result.ok).toBe(true);
    expect(sg.requests[0]!.json).toMatchObject({
      template_id: "d-123abc",
      personalizations: [{ to: [{ email: "ana@example.org" }], dynamic_template_data: { name: "Ana" } }],
    });
  });

  test("429 is retryable with retryAfterMs from Retry-After", async () => {
    sg.script({ kind: "rate_limit", retryAfter: 7 });
    const result = await provider().send(message());
    expect(result).toMatchObject({ ok: false, retryable: true, retryAfterMs: 7000, error: { code: "http_429", message: "too many requests" } });
    if (!result.ok) expect(result.response).toMatchObject({ status: 429, body: { errors: [{ message: "too many requests" }] } });
  });

  test("429 without Retry-After falls back to SendGrid's X-RateLimit-Reset", async () => {
    sg.script({ kind: "rate_limit" });
    const result = await provider().send(message());
    expect(result).toMatchObject({ ok: false, retryable: true });
    if (!result.ok) {
      expect(result.retryAfterMs).toBeGreaterThan(50_000);
      expect(result.retryAfterMs).toBeLessThanOrEqual(61_000);
    }
  });

  test("5xx is retryable; retried once it succeeds (2 attempts)", async () => {
    sg.script({ kind: "server_error", status: 503 });
    const p = provider();
    const first = await p.send(message());
    expect(first).toMatchObject({ ok: false, retryable: true, error: { code: "http_503" } });
    const second = await p.send(message());
    expect(second.ok).toBe(true);
    expect(sg.requests).toHaveLength(2);
  });

  test("400 with SendGrid's {errors:[{message,field}]} is permanent, message names the field", async () => {
    sg.script({ kind: "error", status: 400, code: "personalizations.0.to.0.email", message: "Does not contain a valid address." });
    const result = await provider().send(message());
    expect(result).toMatchObject({
      ok: false,
      retryable: false,
      error: { code: "http_400", message: "personalizations.0.to.0.email: Does not contain a valid address." },
    });
    if (!result.ok) expect(result.retryAfterMs).toBeUndefined();
  });

  test("a wrong api key gets SendGrid's 401: permanent, and the key is never echoed", async () => {
    const result = await provider({ apiKey: "SG.wrong-key" }).send(message());
    expect(result).toMatchObject({
      ok: false,
      retryable: false,
      error: { code: "http_401", message: "The provided authorization grant is invalid, expired, or revoked" },
    });
    expect(JSON.stringify(result)).not.toContain("SG.wrong-key");
  });

  test("no answer before the deadline: retryable timeout", async () => {
    sg.script({ kind: "hang" });
    const started = Date.now();
    const result = await provider({ timeoutMs: 300 }).send(message());
    expect(Date.now() - started).toBeLessThan(2000);
    expect(result).toMatchObject({ ok: false, retryable: true, error: { code: "timeout" } });
  });

  test("nothing listening: retryable network error", async () => {
    const result = await provider({ baseUrl: "http://127.0.0.1:1" }).send(message());
    expect(result).toMatchObject({ ok: false, retryable: true, error: { code: "network_error" } });
  });

  test("a caller's abort signal is reported as aborted (retryable), not as a timeout", async () => {
    sg.script({ kind: "hang" });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const result = await provider({ timeoutMs: 5000 }).send(message(), controller.signal);
    expect(result).toMatchObject({ ok: false, retryable: true, error: { code: "aborted" } });
  });
});
