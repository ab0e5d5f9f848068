// The resend provider against a local server answering as Resend's POST /emails (Bearer key,
// Idempotency-Key): id as message id, ratelimit-reset / Retry-After read, validation the caller's fault.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { resendReceipt, verifySvixSignature } from "../../providers/email/resend";
import { createProvider, getProviderDefinition } from "../../providers/registry";
import type { OutboundMessage } from "../../providers/types";
import * as fakeResend from "../support/fake-resend";

let rs: fakeResend.FakeResend;

function message(overrides: Partial<OutboundMessage> = {}): OutboundMessage {
  return {
    notificationId: "0190f5c2-7a1b-7c3d-8e4f-0000000000e1",
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

function provider(o: { apiKey?: string; timeoutMs?: number } = {}) {
  return createProvider(
    "resend",
    { credentials: { api_key: o.apiKey ?? rs.apiKey }, settings: { from_email: "hello@acme.test", from_name: "Acme", base_url: rs.url } },
    { timeoutMs: o.timeoutMs ?? 3000 },
  );
}

beforeAll(async () => {
  rs = await fakeResend.start();
});
afterAll(() => rs.stop());
beforeEach(() => rs.reset());

describe("resend provider (POST {base_url}/emails, Bearer api_key)", () => {
  test("success: the body Resend expects, id as provider message id, Idempotency-Key per notification", async () => {
    const result = await provider().send(message({ headers: { "List-Unsubscribe": "<https://x.test/u/1>" } }));
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.providerMessageId).toBe(rs.accepted[0]!.id);
    const req = rs.requests[0]!;
    expect(req.headers.authorization).toBe(`Bearer ${rs.apiKey}`);
    expect(req.headers["idempotency-key"]).toBe("nms/0190f5c2-7a1b-7c3d-8e4f-0000000000e1");
    expect(req.json).toEqual({
      from: "Acme <hello@acme.test>",
      to: ["ana@example.org"],
      tags: [{ name: "notification_id", value: "0190f5c2-7a1b-7c3d-8e4f-0000000000e1" }],
      subject: "Welcome",
      text: "Hello Ana",
      html: "<b>Hello Ana</b>",
      headers: { "List-Unsubscribe": "<https://x.test/u/1>" },
    });
    expect(JSON.stringify(result)).not.toContain(rs.apiKey);
  });

  test("a retry of the same notification (its first answer lost) gets the same id: Resend sends once", async () => {
    const p = provider();
    const first = await p.send(message());
    const again = await p.send(message());
    expect(first.ok && again.ok).toBe(true);
    if (first.ok && again.ok) expect(again.providerMessageId).toBe(first.providerMessageId);
    expect(rs.accepted).toHaveLength(1);
  });

  test("a Resend template is sent as template {id, variables}", async () => {
    expect((await provider().send(message({ providerTemplateId: "order-confirmation", data: { PRODUCT: "Mac" }, text: undefined, html: undefined }))).ok).toBe(true);
    expect((rs.requests[0]!.json as any).template).toEqual({ id: "order-confirmation", variables: { PRODUCT: "Mac" } });
  });

  test("a wrong key is 403 invalid_api_key: permanent, counted against the provider", async () => {
    const result = await provider({ apiKey: "re_wrongwrongwrong" }).send(message());
    expect(result).toMatchObject({ ok: false, retryable: false, error: { code: "resend_invalid_api_key", message: "API key is invalid" } });
    if (!result.ok) expect(result.callerFault).toBeUndefined();
  });

  test("an invalid recipient is 422 validation_error: the caller's fault", async () => {
    const result = await provider().send(message({ to: "ana" }));
    expect(result).toMatchObject({ ok: false, retryable: false, callerFault: true, error: { code: "resend_validation_error" } });
  });

  test("an unverified sending domain (403 validation_error) is the configuration's fault, not the caller's", async () => {
    rs.script({ kind: "error", status: 403, code: "validation_error", message: "The acme.test domain is not verified. Please, add and verify your domain on https://resend.com/domains" });
    const result = await provider().send(message());
    expect(result).toMatchObject({ ok: false, retryable: false, error: { code: "resend_validation_error" } });
    if (!result.ok) expect(result.callerFault).toBeUndefined();
  });

  test("429 rate_limit_exceeded: retryable after Retry-After, else after ratelimit-reset", async () => {
    rs.script({ kind: "rate_limit", retryAfter: 5 }, { kind: "rate_limit" });
    const p = provider();
    expect(await p.send(message())).toMatchObject({ ok: false, retryable: true, retryAfterMs: 5000, error: { code: "resend_rate_limit_exceeded" } });
    expect(await p.send(message())).toMatchObject({ ok: false, retryable: true, retryAfterMs: 1000 });
  });

  test("monthly_quota_exceeded is a 429 that is not retried", async () => {
    rs.script({ kind: "rate_limit", code: "monthly_quota_exceeded", message: "You have reached your monthly email sending quota." });
    expect(await provider().send(message())).toMatchObject({ ok: false, retryable: false, error: { code: "resend_monthly_quota_exceeded" } });
  });

  test("500 is retryable; no answer is a retryable timeout", async () => {
    rs.script({ kind: "server_error" }, { kind: "hang" });
    expect(await provider().send(message())).toMatchObject({ ok: false, retryable: true, error: { code: "resend_internal_server_error" } });
    expect(await provider({ timeoutMs: 300 }).send(message())).toMatchObject({ ok: false, retryable: true, error: { code: "timeout" } });
  });
});

describe("resend webhooks: Svix signature and events", () => {
  test("v1 signature under the secret verifies; another secret, a changed body or id does not; any of several signatures may match", () => {
    const body = '{"type":"email.delivered"}';
    const sig = fakeResend.svixSignature(rs.webhookSecret, "msg_1", "1764000000", body);
    const q = { id: "msg_1", timestamp: "1764000000", signature: `v1,${sig}`, rawBody: body };
    expect(verifySvixSignature(rs.webhookSecret, q)).toBe(true);
    expect(verifySvixSignature(rs.webhookSecret, { ...q, signature: `v1,AAAA v1,${sig}` })).toBe(true);
    expect(verifySvixSignature(`whsec_${Buffer.alloc(24, 7).toString("base64")}`, q)).toBe(false);
    expect(verifySvixSignature(rs.webhookSecret, { ...q, rawBody: body + " " })).toBe(false);
    expect(verifySvixSignature(rs.webhookSecret, { ...q, id: "msg_2" })).toBe(false);
    expect(verifySvixSignature(rs.webhookSecret, { ...q, signature: `v2,${sig}` })).toBe(false);
  });
  test("events map to receipts", () => {
    expect(resendReceipt(rs.event("e1", "email.delivered"), "msg_1")).toMatchObject({ messageId: "e1", kind: "delivered", eventId: "msg_1" });
    expect(resendReceipt(rs.event("e1", "email.bounced", { bounce: { type: "Permanent", message: "No such user" } }), undefined)).toMatchObject({ kind: "bounced", suppress: "bounced", bounceReason: "No such user" });
    expect(resendReceipt(rs.event("e1", "email.bounced", { bounce: { type: "Transient", message: "Mailbox full" } }), undefined)?.suppress).toBeUndefined();
    expect(resendReceipt(rs.event("e1", "email.clicked", { click: { link: "https://a.test", ipAddress: "198.51.100.7", userAgent: "UA" } }), undefined)).toMatchObject({ kind: "clicked", url: "https://a.test" });
    expect(resendReceipt(rs.event("e1", "email.delivery_delayed"), undefined)).toBeNull();
  });
});

describe("resend validate", () => {
  test("each bad field is named", () => {
    expect(getProviderDefinition("resend")!.validate({ api_key: "sk_live", webhook_secret: "secret" }, { from_email: "nope" })).toEqual({
      "credentials.api_key": ["must be a Resend API key (re_...)"],
      "credentials.webhook_secret": ["must be the webhook signing secret Resend shows (whsec_ followed by base64)"],
      "settings.from_email": ["must be an email address"],
    });
  });
});
