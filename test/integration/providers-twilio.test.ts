// The twilio provider (sms and whatsapp) against a local server answering as Twilio's Messages
// API: form-encoded To/From/Body, basic auth, sid as id, {code,message,more_info,status} errors.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { createProvider } from "../../providers/registry";
import type { OutboundMessage } from "../../providers/types";
import * as fakeTwilio from "../support/fake-twilio";

const SID = "AC" + "0123456789abcdef".repeat(2);
const TOKEN = "twilio-auth-token-xyz";
let tw: fakeTwilio.FakeTwilio;

function message(overrides: Partial<OutboundMessage> = {}): OutboundMessage {
  return {
    notificationId: "0190f5c2-7a1b-7c3d-8e4f-0000000000b1",
    tenantId: "t1",
    environment: "production",
    channel: "sms",
    to: "+5511988887777",
    content: "Your code is 123456",
    ...overrides,
  };
}

function provider(opts: { token?: string; timeoutMs?: number; from?: string } = {}) {
  return createProvider(
    "twilio",
    { credentials: { account_sid: SID, auth_token: opts.token ?? TOKEN }, settings: { from: opts.from ?? "+14155550100", base_url: tw.url } },
    { timeoutMs: opts.timeoutMs ?? 3000 },
  );
}

beforeAll(async () => {
  tw = await fakeTwilio.start({ accountSid: SID, authToken: TOKEN });
});
afterAll(() => tw.stop());
beforeEach(() => tw.reset());

describe("twilio provider (POST {base_url}/2010-04-01/Accounts/{sid}/Messages.json)", () => {
  test("sms success: form-encoded To/From/Body with basic auth; the sid is the message id", async () => {
    const result = await provider().send(message());
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.providerMessageId).toMatch(/^SM[0-9a-f]{32}$/);
    expect(result.providerMessageId).toBe(tw.messages[0]!.sid);
    const req = tw.requests[0]!;
    expect(req.path).toBe(`/2010-04-01/Accounts/${SID}/Messages.json`);
    expect(req.headers["content-type"]).toContain("application/x-www-form-urlencoded");
    expect(req.headers.authorization).toBe(`Basic ${Buffer.from(`${SID}:${TOKEN}`).toString("base64")}`);
    expect(req.form).toEqual({ To: "+5511988887777", From: "+14155550100", Body: "Your code is 123456" });
    expect(result.response).toMatchObject({ status: 201, body: { sid: result.providerMessageId, status: "queued" } });
    // Twilio echoes account_sid (a credential) in its resource: the registry redacts it
    expect(result.response).toMatchObject({ body: { account_sid: "[redacted]", uri: expect.stringContaining("/Accounts/[redacted]/") } });
    expect(JSON.stringify(result)).not.toContain(TOKEN);
    expect(JSON.stringify(result)).not.toContain(SID);
  });

  test("whatsapp channel prefixes To and From with whatsapp:", async () => {
    const result = await provider().send(message({ channel: "whatsapp" }));
    expect(result.ok).toBe(true);
    expect(tw.requests[0]!.form).toMatchObject({ To: "whatsapp:+5511988887777", From: "whatsapp:+14155550100" });
  });

  test("a Messaging Service SID in settings.from is sent as MessagingServiceSid", async () => {
    const mg = "MG" + "a".repeat(32);
    const result = await provider({ from: mg }).send(message());
    expect(result.ok).toBe(true);
    expect(tw.requests[0]!.form).toMatchObject({ MessagingServiceSid: mg });
    expect(tw.requests[0]!.form!.From).toBeUndefined();
  });

  test("429 (code 20429) is retryable with Retry-After", async () => {
    tw.script({ kind: "rate_limit", retryAfter: 3 });
    const result = await provider().send(message());
    expect(result).toMatchObject({ ok: false, retryable: true, retryAfterMs: 3000, error: { code: "twilio_20429", message: "Too Many Requests" } });
    if (!result.ok) expect(result.response).toMatchObject({ status: 429, body: { code: 20429, more_info: "https://www.twilio.com/docs/errors/20429" } });
  });

  test("5xx is retryable; the retry succeeds (2 attempts)", async () => {
    tw.script({ kind: "server_error", status: 503 });
    const p = provider();
    expect(await p.send(message())).toMatchObject({ ok: false, retryable: true, error: { code: "twilio_20503" } });
    expect((await p.send(message())).ok).toBe(true);
    expect(tw.requests).toHaveLength(2);
  });

  test("400 code 21211 (invalid To) is permanent, from the real validation path", async () => {
    const result = await provider().send(message({ to: "12345" }));
    expect(result).toMatchObject({
      ok: false,
      retryable: false,
      error: { code: "twilio_21211", message: "The 'To' number 12345 is not a valid phone number." },
    });
  });

  test("scripted 400 (code 21610, unsubscribed recipient) is permanent", async () => {
    tw.script({ kind: "error", status: 400, code: 21610, message: "Attempt to send to unsubscribed recipient" });
    const result = await provider().send(message());
    expect(result).toMatchObject({ ok: false, retryable: false, error: { code: "twilio_21610" } });
  });

  test("wrong auth token: 401 code 20003, permanent", async () => {
    const result = await provider({ token: "nope" }).send(message());
    expect(result).toMatchObject({ ok: false, retryable: false, error: { code: "twilio_20003", message: "Authenticate" } });
  });

  test("deadline passes without an answer: retryable timeout", async () => {
    tw.script({ kind: "hang" });
    const result = await provider({ timeoutMs: 300 }).send(message());
    expect(result).toMatchObject({ ok: false, retryable: true, error: { code: "timeout" } });
  });

  test("empty content is refused before any call", async () => {
    const result = await provider().send(message({ content: undefined }));
    expect(result).toMatchObject({ ok: false, retryable: false, error: { code: "empty_content" } });
    expect(tw.requests).toHaveLength(0);
  });
});
