// The mailgun provider against a local server answering as Mailgun's Messages API (basic auth api:key):
// the id without <> as message id, 429/5xx retryable with retry-seconds / Retry-After, 400 the caller's fault.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { mailgunReceipt, verifyMailgunSignature } from "../../providers/email/mailgun";
import { createProvider, getProviderDefinition } from "../../providers/registry";
import type { OutboundMessage } from "../../providers/types";
import * as fakeMailgun from "../support/fake-mailgun";

let mg: fakeMailgun.FakeMailgun;

function message(overrides: Partial<OutboundMessage> = {}): OutboundMessage {
  return {
    notificationId: "0190f5c2-7a1b-7c3d-8e4f-0000000000c1",
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

function provider(o: { apiKey?: string; domain?: string; timeoutMs?: number } = {}) {
  return createProvider(
    "mailgun",
    { credentials: { api_key: o.apiKey ?? mg.apiKey }, settings: { domain: o.domain ?? mg.domain, from_email: "hello@mg.acme.test", from_name: "Acme", base_url: mg.url } },
    { timeoutMs: o.timeoutMs ?? 3000 },
  );
}

beforeAll(async () => {
  mg = await fakeMailgun.start();
});
afterAll(() => mg.stop());
beforeEach(() => mg.reset());

describe("mailgun provider (POST {base_url}/v3/{domain}/messages, basic auth api:key)", () => {
  test("success: the form Mailgun expects, and the Message-Id without <> is the provider message id", async () => {
    const result = await provider().send(message({ headers: { "List-Unsubscribe": "<https://x.test/u/1>" } }));
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.providerMessageId).toBe(mg.accepted[0]!.messageId);
    expect(result.providerMessageId).not.toContain("<");
    const req = mg.requests[0]!;
    expect(req.headers.authorization).toBe(`Basic ${Buffer.from(`api:${mg.apiKey}`).toString("base64")}`);
    expect(req.form).toEqual({
      from: '"Acme" <hello@mg.acme.test>',
      to: "ana@example.org",
      "v:notification_id": "0190f5c2-7a1b-7c3d-8e4f-0000000000c1",
      subject: "Welcome",
      text: "Hello Ana",
      html: "<b>Hello Ana</b>",
      "h:List-Unsubscribe": "<https://x.test/u/1>",
    });
    expect(JSON.stringify(result)).not.toContain(mg.apiKey);
  });

  test("a Mailgun template is sent as template + t:variables", async () => {
    expect((await provider().send(message({ providerTemplateId: "welcome", data: { name: "Ana" }, text: undefined, html: undefined }))).ok).toBe(true);
    expect(mg.requests[0]!.form).toMatchObject({ template: "welcome", "t:variables": '{"name":"Ana"}' });
  });

  test("a wrong key gets Mailgun's plain-text 401 Forbidden: permanent, counted against the provider", async () => {
    const result = await provider({ apiKey: "key-wrong-wrong-wrong" }).send(message());
    expect(result).toMatchObject({ ok: false, retryable: false, error: { code: "http_401", message: "Forbidden" } });
    if (!result.ok) expect(result.callerFault).toBeUndefined();
    expect(JSON.stringify(result)).not.toContain("key-wrong-wrong-wrong");
  });

  test("an unknown domain is 404: permanent, not the caller's fault", async () => {
    const result = await provider({ domain: "other.acme.test" }).send(message());
    expect(result).toMatchObject({ ok: false, retryable: false, error: { code: "http_404", message: "Domain not found: other.acme.test" } });
    if (!result.ok) expect(result.callerFault).toBeUndefined();
  });

  test("an invalid recipient gets Mailgun's 400: the caller's fault", async () => {
    const result = await provider().send(message({ to: "ana@nowhere" }));
    expect(result).toMatchObject({ ok: false, retryable: false, callerFault: true, error: { code: "http_400", message: "to parameter is not a valid address. please check documentation" } });
  });

  test("429 with retry-seconds in the body is retryable after that many seconds", async () => {
    mg.script({ kind: "rate_limit", retryAfter: 60 });
    expect(await provider().send(message())).toMatchObject({ ok: false, retryable: true, retryAfterMs: 60_000, error: { code: "http_429" } });
  });

  test("5xx is retryable with Retry-After; the next call succeeds", async () => {
    mg.script({ kind: "server_error", status: 503, retryAfter: 2 });
    const p = provider();
    expect(await p.send(message())).toMatchObject({ ok: false, retryable: true, retryAfterMs: 2000, error: { code: "http_503" } });
    expect((await p.send(message())).ok).toBe(true);
  });

  test("no answer before the deadline: retryable timeout", async () => {
    mg.script({ kind: "hang" });
    expect(await provider({ timeoutMs: 300 }).send(message())).toMatchObject({ ok: false, retryable: true, error: { code: "timeout" } });
  });
});

describe("mailgun webhook signature and events", () => {
  test("HMAC-SHA256(timestamp + token) under the signing key verifies; another key or a changed token does not", () => {
    const sig = { timestamp: "1764000000", token: "t".repeat(50), signature: fakeMailgun.mailgunSignature(mg.webhookSigningKey, "1764000000", "t".repeat(50)) };
    expect(verifyMailgunSignature(mg.webhookSigningKey, sig)).toBe(true);
    expect(verifyMailgunSignature("another-key", sig)).toBe(false);
    expect(verifyMailgunSignature(mg.webhookSigningKey, { ...sig, token: "u".repeat(50) })).toBe(false);
    expect(verifyMailgunSignature(mg.webhookSigningKey, { ...sig, signature: "zz" })).toBe(false);
    expect(verifyMailgunSignature(mg.webhookSigningKey, null)).toBe(false);
  });

  test("events map to receipts: a temporary failure is ignored, a permanent bounce suppresses", () => {
    const id = "20261126.1.ABC@mg.acme.test";
    const ev = (event: string, f: Record<string, unknown> = {}) => mg.event(id, event, f);
    expect(mailgunReceipt(ev("delivered"))).toMatchObject({ messageId: id, kind: "delivered" });
    expect(mailgunReceipt(ev("failed", { severity: "temporary", reason: "generic" }))).toBeNull();
    expect(mailgunReceipt(ev("failed", { severity: "permanent", reason: "bounce", "delivery-status": { code: 550, description: "No such user" } }))).toMatchObject({
      kind: "bounced",
      bounceReason: "No such user",
      suppress: "bounced",
      error: { code: "mailgun_bounce" },
    });
    expect(mailgunReceipt(ev("opened", { ip: "198.51.100.7", "client-info": { "user-agent": "Mozilla/5.0" } }))).toMatchObject({ kind: "opened", ip: "198.51.100.7", userAgent: "Mozilla/5.0" });
    expect(mailgunReceipt(ev("complained"))).toMatchObject({ kind: "complained", suppress: "complained" });
    expect(mailgunReceipt(ev("unsubscribed"))).toBeNull();
  });
});

describe("mailgun validate", () => {
  const def = getProviderDefinition("mailgun")!;
  test("each bad field is named", () => {
    expect(def.validate({}, { domain: "not a domain", from_email: "x", region: "asia" })).toEqual({
      "credentials.api_key": ["is required"],
      "settings.domain": ["must be a domain name such as mg.acme.com"],
      "settings.from_email": ["must be an email address"],
      "settings.region": ["must be us or eu"],
    });
  });
});
