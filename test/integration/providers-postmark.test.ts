// The postmark provider against a local server answering as Postmark's Email API (X-Postmark-Server-Token):
// MessageID as id, {ErrorCode, Message} errors, 406 inactive recipient the caller's fault, 429/5xx retryable.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { postmarkReceipt, verifyPostmarkBasicAuth } from "../../providers/email/postmark";
import { createProvider, getProviderDefinition } from "../../providers/registry";
import type { OutboundMessage } from "../../providers/types";
import * as fakePostmark from "../support/fake-postmark";

let pm: fakePostmark.FakePostmark;

function message(overrides: Partial<OutboundMessage> = {}): OutboundMessage {
  return {
    notificationId: "0190f5c2-7a1b-7c3d-8e4f-0000000000d1",
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

function provider(o: { token?: string; timeoutMs?: number } = {}) {
  return createProvider(
    "postmark",
    { credentials: { server_token: o.token ?? pm.serverToken }, settings: { from_email: "hello@acme.test", message_stream: "outbound", base_url: pm.url } },
    { timeoutMs: o.timeoutMs ?? 3000 },
  );
}

beforeAll(async () => {
  pm = await fakePostmark.start();
});
afterAll(() => pm.stop());
beforeEach(() => pm.reset());

describe("postmark provider (POST {base_url}/email, X-Postmark-Server-Token)", () => {
  test("success: the body Postmark expects and MessageID as the provider message id", async () => {
    const result = await provider().send(message({ headers: { "List-Unsubscribe": "<https://x.test/u/1>" } }));
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.providerMessageId).toBe(pm.accepted[0]!.messageId);
    const req = pm.requests[0]!;
    expect(req.path).toBe("/email");
    expect(req.headers["x-postmark-server-token"]).toBe(pm.serverToken);
    expect(req.json).toEqual({
      From: "hello@acme.test",
      To: "ana@example.org",
      MessageStream: "outbound",
      Metadata: { notification_id: "0190f5c2-7a1b-7c3d-8e4f-0000000000d1" },
      Headers: [{ Name: "List-Unsubscribe", Value: "<https://x.test/u/1>" }],
      Subject: "Welcome",
      TextBody: "Hello Ana",
      HtmlBody: "<b>Hello Ana</b>",
    });
    expect(JSON.stringify(result)).not.toContain(pm.serverToken);
  });

  test("a template alias goes to /email/withTemplate with TemplateModel; a numeric id as TemplateId", async () => {
    expect((await provider().send(message({ providerTemplateId: "welcome", data: { name: "Ana" }, text: undefined, html: undefined }))).ok).toBe(true);
    expect(pm.requests[0]!.path).toBe("/email/withTemplate");
    expect(pm.requests[0]!.json).toMatchObject({ TemplateAlias: "welcome", TemplateModel: { name: "Ana" } });
    expect((await provider().send(message({ providerTemplateId: "1234567", text: undefined, html: undefined }))).ok).toBe(true);
    expect(pm.requests[1]!.json).toMatchObject({ TemplateId: 1234567, TemplateModel: {} });
  });

  test("a wrong server token: Postmark's 401 ErrorCode 10, permanent and counted against the provider", async () => {
    const result = await provider({ token: "00000000-0000-0000-0000-000000000000" }).send(message());
    expect(result).toMatchObject({ ok: false, retryable: false, error: { code: "postmark_10", message: "Request does not contain a valid Server token." } });
    if (!result.ok) expect(result.callerFault).toBeUndefined();
  });

  test("an invalid To is Postmark's 422 ErrorCode 300: the caller's fault", async () => {
    const result = await provider().send(message({ to: "ana" }));
    expect(result).toMatchObject({ ok: false, retryable: false, callerFault: true, error: { code: "postmark_300", message: "Invalid 'To' address: 'ana'." } });
  });

  test("406 inactive recipient is the caller's fault; 400 sender signature not found is the configuration's", async () => {
    pm.script(
      { kind: "error", status: 422, code: 406, message: "You tried to send to recipient(s) that have been marked as inactive." },
      { kind: "error", status: 422, code: 400, message: "The 'From' address you supplied is not a Sender Signature on your account." },
    );
    expect(await provider().send(message())).toMatchObject({ ok: false, retryable: false, callerFault: true, error: { code: "postmark_406" } });
    const sender = await provider().send(message());
    expect(sender).toMatchObject({ ok: false, retryable: false, error: { code: "postmark_400" } });
    if (!sender.ok) expect(sender.callerFault).toBeUndefined();
  });

  test("429 is retryable after Retry-After; 503 retryable; then success", async () => {
    pm.script({ kind: "rate_limit", retryAfter: 4 }, { kind: "server_error", status: 503 });
    const p = provider();
    expect(await p.send(message())).toMatchObject({ ok: false, retryable: true, retryAfterMs: 4000, error: { code: "postmark_429" } });
    expect(await p.send(message())).toMatchObject({ ok: false, retryable: true, error: { code: "http_503" } });
    expect((await p.send(message())).ok).toBe(true);
  });

  test("no answer before the deadline: retryable timeout", async () => {
    pm.script({ kind: "hang" });
    expect(await provider({ timeoutMs: 300 }).send(message())).toMatchObject({ ok: false, retryable: true, error: { code: "timeout" } });
  });
});

describe("postmark webhooks: basic auth and records", () => {
  const header = (u: string, p: string) => `Basic ${Buffer.from(`${u}:${p}`).toString("base64")}`;
  test("only the exact user and password pass", () => {
    expect(verifyPostmarkBasicAuth(header("pm", "secret-password-1"), "pm", "secret-password-1")).toBe(true);
    expect(verifyPostmarkBasicAuth(header("pm", "secret-password-2"), "pm", "secret-password-1")).toBe(false);
    expect(verifyPostmarkBasicAuth(header("pmx", "secret-password-1"), "pm", "secret-password-1")).toBe(false);
    expect(verifyPostmarkBasicAuth(null, "pm", "secret-password-1")).toBe(false);
    expect(verifyPostmarkBasicAuth(header("", ""), "", "")).toBe(false);
  });
  test("records map to receipts; a soft bounce is ignored, a hard one suppresses", () => {
    const id = "883953f4-6105-42a2-a16a-77a8eac79483";
    expect(postmarkReceipt(pm.webhook(id, "Delivery"))).toMatchObject({ messageId: id, kind: "delivered" });
    expect(postmarkReceipt(pm.webhook(id, "Bounce"))).toMatchObject({ kind: "bounced", suppress: "bounced", error: { code: "postmark_hard_bounce" } });
    expect(postmarkReceipt(pm.webhook(id, "Bounce", { Type: "SoftBounce", Inactive: false }))).toBeNull();
    expect(postmarkReceipt(pm.webhook(id, "SpamComplaint"))).toMatchObject({ kind: "complained", suppress: "complained" });
    expect(postmarkReceipt(pm.webhook(id, "Click"))).toMatchObject({ kind: "clicked", url: "https://acme.test/offer", ip: "198.51.100.7" });
    expect(postmarkReceipt(pm.webhook(id, "SubscriptionChange"))).toBeNull();
  });
});

describe("postmark validate", () => {
  test("each bad field is named", () => {
    expect(getProviderDefinition("postmark")!.validate({ server_token: "nope", webhook_username: "pm" }, { from_email: "x", message_stream: "Bad Stream" })).toEqual({
      "credentials.server_token": ["must be a Postmark Server API token (a UUID such as 3f0c3e7a-...)"],
      "credentials.webhook_password": ["is required when the other webhook credential is set"],
      "settings.from_email": ["must be an email address"],
      "settings.message_stream": ["must be a Message Stream id: lower-case letters, digits and '-'"],
    });
  });
});
