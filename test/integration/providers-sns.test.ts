// The sns sms provider against a local server answering as Amazon SNS Publish that verifies the SigV4
// signature with the same secret: MessageId as id, Throttling retryable, an invalid number the caller's fault.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { createProvider, getProviderDefinition } from "../../providers/registry";
import type { OutboundMessage } from "../../providers/types";
import * as fakeSns from "../support/fake-sns";

let sns: fakeSns.FakeSns;

function message(overrides: Partial<OutboundMessage> = {}): OutboundMessage {
  return { notificationId: "0190f5c2-7a1b-7c3d-8e4f-000000000101", tenantId: "t1", environment: "production", channel: "sms", to: "+5511912345678", content: "code 1234", ...overrides };
}

function provider(o: { secret?: string; timeoutMs?: number; settings?: Record<string, unknown> } = {}) {
  return createProvider(
    "sns",
    { credentials: { access_key_id: sns.accessKeyId, secret_access_key: o.secret ?? sns.secretAccessKey }, settings: { region: sns.region, base_url: sns.url, sender_id: "Acme", ...o.settings } },
    { timeoutMs: o.timeoutMs ?? 3000 },
  );
}

beforeAll(async () => {
  sns = await fakeSns.start();
});
afterAll(() => sns.stop());
beforeEach(() => sns.reset());

describe("sns provider (Publish to a phone number, SigV4)", () => {
  test("success: signed for sns in the region, SMS attributes set, MessageId as provider message id", async () => {
    const result = await provider().send(message());
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.providerMessageId).toBe(sns.published[0]!.messageId);
    expect(sns.requests[0]!.headers.authorization).toContain(`/${sns.region}/sns/aws4_request`);
    expect(sns.published[0]!.form).toMatchObject({ Action: "Publish", Version: "2010-03-31", PhoneNumber: "+5511912345678", Message: "code 1234" });
    expect(sns.published[0]!.attributes).toEqual({ "AWS.SNS.SMS.SMSType": "Transactional", "AWS.SNS.SMS.SenderID": "Acme" });
  });

  test("a wrong secret: SignatureDoesNotMatch 403, permanent, counted against the provider", async () => {
    const result = await provider({ secret: "wrong/secret/0123456789abcdefghij" }).send(message());
    expect(result).toMatchObject({ ok: false, retryable: false, error: { code: "sns_SignatureDoesNotMatch" } });
    if (!result.ok) expect(result.callerFault).toBeUndefined();
    expect(sns.published).toHaveLength(0);
  });

  test("an invalid phone number: InvalidParameter naming PhoneNumber is the caller's fault", async () => {
    const result = await provider().send(message({ to: "+12" }));
    expect(result).toMatchObject({ ok: false, retryable: false, callerFault: true, error: { code: "sns_InvalidParameter", message: "Invalid parameter: PhoneNumber Reason: +12 is not valid to publish to" } });
  });

  test("an InvalidParameter about the sender id is the configuration's", async () => {
    sns.script({ kind: "error", status: 400, code: "InvalidParameter", message: "Invalid parameter: MessageAttributes Reason: SenderID is not supported in the destination country" });
    const result = await provider().send(message());
    expect(result).toMatchObject({ ok: false, retryable: false, error: { code: "sns_InvalidParameter" } });
    if (!result.ok) expect(result.callerFault).toBeUndefined();
  });

  test("Throttling (a 400) is retryable with Retry-After; InternalError retryable; then success", async () => {
    sns.script({ kind: "rate_limit", retryAfter: 3 }, { kind: "server_error" });
    const p = provider();
    expect(await p.send(message())).toMatchObject({ ok: false, retryable: true, retryAfterMs: 3000, error: { code: "sns_Throttling", message: "Rate exceeded" } });
    expect(await p.send(message())).toMatchObject({ ok: false, retryable: true, error: { code: "sns_InternalError" } });
    expect((await p.send(message())).ok).toBe(true);
  });

  test("no answer before the deadline: retryable timeout", async () => {
    sns.script({ kind: "hang" });
    expect(await provider({ timeoutMs: 300 }).send(message())).toMatchObject({ ok: false, retryable: true, error: { code: "timeout" } });
  });
});

describe("sns validate", () => {
  test("each bad field is named", () => {
    expect(getProviderDefinition("sns")!.validate({ access_key_id: "AKIAIOSFODNN7EXAMPLE", secret_access_key: "short" }, { region: "eu-west-1", sms_type: "Urgent", sender_id: "TooLongSenderId", origination_number: "12ab" })).toEqual({
      "credentials.secret_access_key": ["is too short to be an AWS secret access key"],
      "settings.sms_type": ["must be Transactional or Promotional"],
      "settings.sender_id": ["must be 1-11 letters, digits or '-', with at least one letter"],
      "settings.origination_number": ["must be an E.164 number such as +14155550100 or a short code"],
    });
  });
});
