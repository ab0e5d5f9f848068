// The vonage provider against a local server answering as the Vonage Messages API: the application JWT
// (RS256) or basic auth checked, message_uuid as id, RFC 7807 errors classified, status JWTs verified.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { SignJWT } from "jose";
import { createProvider, getProviderDefinition } from "../../providers/registry";
import { verifyVonageWebhook, vonageReceipt } from "../../providers/sms/vonage";
import type { OutboundMessage } from "../../providers/types";
import * as fakeVonage from "../support/fake-vonage";

let vg: fakeVonage.FakeVonage;

function message(overrides: Partial<OutboundMessage> = {}): OutboundMessage {
  return {
    notificationId: "0190f5c2-7a1b-7c3d-8e4f-0000000000f1",
    tenantId: "t1",
    environment: "production",
    channel: "sms",
    to: "+447700900123",
    content: "Your code is 1234",
    statusCallbackUrl: "https://nms.example/webhooks/vonage/ch-1",
    ...overrides,
  };
}

function provider(o: { credentials?: Record<string, unknown>; from?: string; timeoutMs?: number } = {}) {
  return createProvider(
    "vonage",
    { credentials: o.credentials ?? { application_id: vg.applicationId, private_key: vg.privateKey }, settings: { from: o.from ?? "Acme", base_url: vg.url } },
    { timeoutMs: o.timeoutMs ?? 3000 },
  );
}

beforeAll(async () => {
  vg = await fakeVonage.start();
});
afterAll(() => vg.stop());
beforeEach(() => vg.reset());

describe("vonage provider (POST {base_url}/v1/messages)", () => {
  test("success with the application JWT: the fake verified it with the application's public key", async () => {
    const result = await provider().send(message());
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(vg.messages).toHaveLength(1);
    expect(vg.messages[0]!.auth).toBe("jwt");
    expect(result.providerMessageId).toBe(vg.messages[0]!.messageUuid);
    expect(vg.messages[0]!.body).toEqual({
      message_type: "text",
      channel: "sms",
      to: "447700900123",
      from: "Acme",
      text: "Your code is 1234",
      client_ref: "0190f5c2-7a1b-7c3d-8e4f-0000000000f1",
      webhook_url: "https://nms.example/webhooks/vonage/ch-1",
    });
    expect(JSON.stringify(result)).not.toContain("PRIVATE KEY");
  });

  test("success with basic auth api_key:api_secret; an E.164 sender loses its +", async () => {
    const result = await provider({ credentials: { api_key: vg.apiKey, api_secret: vg.apiSecret }, from: "+447700900000" }).send(message());
    expect(result.ok).toBe(true);
    expect(vg.messages[0]!.auth).toBe("basic");
    expect(vg.messages[0]!.body.from).toBe("447700900000");
  });

  test("a JWT signed with another key is 401: permanent, counted against the provider", async () => {
    const other = await fakeVonage.start();
    try {
      const result = await provider({ credentials: { application_id: vg.applicationId, private_key: other.privateKey } }).send(message());
      expect(result).toMatchObject({ ok: false, retryable: false, error: { code: "vonage_1010", message: "Unauthorized: You did not provide correct credentials." } });
      if (!result.ok) expect(result.callerFault).toBeUndefined();
    } finally {
      await other.stop();
    }
  });

  test("an invalid number is 422 Invalid params naming `to`: the caller's fault", async () => {
    const result = await provider().send(message({ to: "+12" }));
    expect(result).toMatchObject({ ok: false, retryable: false, callerFault: true, error: { code: "vonage_1150" } });
    if (!result.ok) expect(result.error.message).toContain("to: Invalid phone number");
  });

  test("402 low balance is permanent and not the caller's fault", async () => {
    vg.script({ kind: "error", status: 402, code: "1100", message: "This request could not be performed due to your account balance being low." });
    const result = await provider().send(message());
    expect(result).toMatchObject({ ok: false, retryable: false, error: { code: "vonage_1100" } });
    if (!result.ok) expect(result.callerFault).toBeUndefined();
  });

  test("429 is retryable with Retry-After; 500 retryable; then success", async () => {
    vg.script({ kind: "rate_limit", retryAfter: 2 }, { kind: "server_error" });
    const p = provider();
    expect(await p.send(message())).toMatchObject({ ok: false, retryable: true, retryAfterMs: 2000, error: { code: "vonage_1020" } });
    expect(await p.send(message())).toMatchObject({ ok: false, retryable: true, error: { code: "vonage_1000" } });
    expect((await p.send(message())).ok).toBe(true);
  });

  test("no answer before the deadline: retryable timeout", async () => {
    vg.script({ kind: "hang" });
    expect(await provider({ timeoutMs: 300 }).send(message())).toMatchObject({ ok: false, retryable: true, error: { code: "timeout" } });
  });
});

describe("vonage status webhook JWT", () => {
  const body = '{"message_uuid":"m1","status":"delivered"}';
  const jwt = async (o: { secret?: string; hash?: string; iat?: number } = {}) =>
    `Bearer ${await new SignJWT({ payload_hash: o.hash ?? createHash("sha256").update(body).digest("hex") })
      .setProtectedHeader({ alg: "HS256" })
      .setIssuedAt(o.iat ?? Math.floor(Date.now() / 1000))
      .sign(new TextEncoder().encode(o.secret ?? vg.signatureSecret))}`;
  test("verifies under the signature secret with the body's hash; not another secret, body, or an old token", async () => {
    expect(await verifyVonageWebhook(vg.signatureSecret, await jwt(), body)).toBe(true);
    expect(await verifyVonageWebhook(vg.signatureSecret, await jwt({ secret: "another-secret-of-length" }), body)).toBe(false);
    expect(await verifyVonageWebhook(vg.signatureSecret, await jwt(), body.replace("delivered", "rejected"))).toBe(false);
    expect(await verifyVonageWebhook(vg.signatureSecret, await jwt({ iat: Math.floor(Date.now() / 1000) - 600 }), body)).toBe(false);
    expect(await verifyVonageWebhook(vg.signatureSecret, null, body)).toBe(false);
  });
  test("statuses map to receipts", () => {
    expect(vonageReceipt({ message_uuid: "m1", status: "delivered" })).toMatchObject({ kind: "delivered" });
    expect(vonageReceipt({ message_uuid: "m1", status: "submitted" })).toMatchObject({ kind: "sent" });
    expect(vonageReceipt({ message_uuid: "m1", status: "undeliverable", error: { type: "https://developer.vonage.com/api-errors/messages#1320", title: "1320", detail: "Message failed" } })).toMatchObject({
      kind: "failed",
      error: { code: "vonage_1320", message: "Message failed" },
    });
  });
});

describe("vonage validate", () => {
  const v = getProviderDefinition("vonage")!.validate;
  test("needs the application pair or the api key pair; each bad field is named", () => {
    expect(v({}, { from: "Acme" })).toEqual({ "credentials.application_id": ["is required: give application_id and private_key (JWT), or api_key and api_secret (basic auth)"] });
    expect(v({ application_id: "nope", private_key: "not pem", api_key: "k" }, { from: "Acme Company Ltd" })).toEqual({
      "credentials.application_id": ["must be the application's id (a UUID)"],
      "credentials.private_key": ["must be the application's private key in PEM (-----BEGIN PRIVATE KEY-----)"],
      "credentials.api_secret": ["is required with the other one of api_key and api_secret"],
      "settings.from": ["must be an E.164 number such as +447700900000 or an alphanumeric sender id of up to 11 letters, digits and spaces"],
    });
    expect(v({ application_id: vg.applicationId, private_key: vg.privateKey }, { from: "+447700900000" })).toEqual({});
  });
});
