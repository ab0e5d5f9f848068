// The ses provider against a local server answering as SES v2 SendEmail that verifies the SigV4
// signature with the same secret: MessageId as id, throttling retryable, rejections the caller's fault.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { getProviderDefinition, createProvider } from "../../providers/registry";
import type { OutboundMessage } from "../../providers/types";
import * as fakeSes from "../support/fake-ses";

let ses: fakeSes.FakeSes;

function message(overrides: Partial<OutboundMessage> = {}): OutboundMessage {
  return {
    notificationId: "0190f5c2-7a1b-7c3d-8e4f-0000000000b1",
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

function provider(o: { secret?: string; keyId?: string; region?: string; timeoutMs?: number } = {}) {
  return createProvider(
    "ses",
    {
      credentials: { access_key_id: o.keyId ?? ses.accessKeyId, secret_access_key: o.secret ?? ses.secretAccessKey },
      settings: { region: o.region ?? ses.region, from_email: "hello@acme.test", from_name: "Acme", configuration_set: "nms-events", base_url: ses.url },
    },
    { timeoutMs: o.timeoutMs ?? 3000 },
  );
}

beforeAll(async () => {
  ses = await fakeSes.start();
});
afterAll(() => ses.stop());
beforeEach(() => ses.reset());

describe("ses provider (POST {base_url}/v2/email/outbound-emails, SigV4)", () => {
  test("success: the fake verified the SigV4 signature and MessageId is the provider message id", async () => {
    const result = await provider().send(message({ headers: { "List-Unsubscribe": "<https://x.test/u/1>" } }));
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(ses.accepted).toHaveLength(1);
    expect(result.providerMessageId).toBe(ses.accepted[0]!.messageId);
    const req = ses.requests[0]!;
    expect(req.headers.authorization).toMatch(new RegExp(`^AWS4-HMAC-SHA256 Credential=${ses.accessKeyId}/\\d{8}/eu-west-1/ses/aws4_request, SignedHeaders=[a-z;-]*host[a-z;-]*, Signature=[0-9a-f]{64}$`));
    expect(req.json).toEqual({
      FromEmailAddress: '"Acme" <hello@acme.test>',
      Destination: { ToAddresses: ["ana@example.org"] },
      EmailTags: [{ Name: "notification_id", Value: "0190f5c2-7a1b-7c3d-8e4f-0000000000b1" }],
      ConfigurationSetName: "nms-events",
      Content: {
        Simple: {
          Subject: { Data: "Welcome", Charset: "UTF-8" },
          Body: { Text: { Data: "Hello Ana", Charset: "UTF-8" }, Html: { Data: "<b>Hello Ana</b>", Charset: "UTF-8" } },
          Headers: [{ Name: "List-Unsubscribe", Value: "<https://x.test/u/1>" }],
        },
      },
    });
    expect(JSON.stringify(result)).not.toContain(ses.secretAccessKey);
  });

  test("a template id sends Content.Template with the data as TemplateData", async () => {
    const result = await provider().send(message({ providerTemplateId: "welcome-v2", data: { name: "Ana" }, text: undefined, html: undefined }));
    expect(result.ok).toBe(true);
    expect((ses.requests[0]!.json as any).Content).toEqual({ Template: { TemplateName: "welcome-v2", TemplateData: '{"name":"Ana"}' } });
  });

  test("a wrong secret: the fake's SignatureDoesNotMatch 403 is permanent and not the caller's fault", async () => {
    const result = await provider({ secret: "not-the-secret-at-all-0123456789" }).send(message());
    expect(result).toMatchObject({ ok: false, retryable: false, error: { code: "ses_SignatureDoesNotMatch" } });
    if (!result.ok) expect(result.callerFault).toBeUndefined();
    expect(ses.accepted).toHaveLength(0);
  });

  test("a signature scoped to another region is refused too", async () => {
    const result = await provider({ region: "us-east-1" }).send(message());
    expect(result).toMatchObject({ ok: false, retryable: false, error: { code: "ses_SignatureDoesNotMatch" } });
  });

  test("429 TooManyRequestsException is retryable and Retry-After is read", async () => {
    ses.script({ kind: "rate_limit", retryAfter: 3 });
    const result = await provider().send(message());
    expect(result).toMatchObject({ ok: false, retryable: true, retryAfterMs: 3000, error: { code: "ses_TooManyRequestsException", message: "Maximum sending rate exceeded." } });
  });

  test("LimitExceededException (a 400 that means 'later') is retryable", async () => {
    ses.script({ kind: "error", status: 400, code: "LimitExceededException", message: "Daily message quota exceeded." });
    expect(await provider().send(message())).toMatchObject({ ok: false, retryable: true, error: { code: "ses_LimitExceededException" } });
  });

  test("503 is retryable, then the next call succeeds", async () => {
    ses.script({ kind: "server_error", status: 503 });
    const p = provider();
    expect(await p.send(message())).toMatchObject({ ok: false, retryable: true, error: { code: "ses_ServiceUnavailable" } });
    expect((await p.send(message())).ok).toBe(true);
  });

  test("MessageRejected is the caller's fault: permanent, callerFault", async () => {
    ses.script({ kind: "error", status: 400, code: "MessageRejected", message: "Email address is not verified. The following identities failed the check: ana@example.org" });
    const result = await provider().send(message());
    expect(result).toMatchObject({ ok: false, retryable: false, callerFault: true, error: { code: "ses_MessageRejected" } });
  });

  test("an illegal recipient gets SES's own BadRequestException: the caller's fault", async () => {
    const result = await provider().send(message({ to: "not an address" }));
    expect(result).toMatchObject({ ok: false, retryable: false, callerFault: true, error: { code: "ses_BadRequestException" } });
  });

  test("AccountSuspendedException is permanent and counts against the provider (not callerFault)", async () => {
    ses.script({ kind: "error", status: 400, code: "AccountSuspendedException", message: "Account is suspended." });
    const result = await provider().send(message());
    expect(result).toMatchObject({ ok: false, retryable: false, error: { code: "ses_AccountSuspendedException" } });
    if (!result.ok) expect(result.callerFault).toBeUndefined();
  });

  test("no answer before the deadline: retryable timeout", async () => {
    ses.script({ kind: "hang" });
    expect(await provider({ timeoutMs: 300 }).send(message())).toMatchObject({ ok: false, retryable: true, error: { code: "timeout" } });
  });
});

describe("ses validate (POST /v1/channels 422 details)", () => {
  const def = getProviderDefinition("ses")!;
  test("a complete configuration is valid", () => {
    expect(def.validate({ access_key_id: "AKIAIOSFODNN7EXAMPLE", secret_access_key: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY" }, { region: "eu-west-1", from_email: "a@acme.com" })).toEqual({});
  });
  test("each bad field is named", () => {
    expect(def.validate({ access_key_id: "nope", session_token: 5 }, { region: "Europe", from_email: "x", configuration_set: "has space" })).toEqual({
      "credentials.access_key_id": ["must be an AWS access key id (AKIA... or ASIA..., upper-case letters and digits)"],
      "credentials.secret_access_key": ["is required"],
      "credentials.session_token": ["must be a string"],
      "settings.region": ["must be an AWS region such as us-east-1 or eu-west-1"],
      "settings.from_email": ["must be an email address"],
      "settings.configuration_set": ["must be 1-64 letters, digits, '-' or '_'"],
    });
  });
  test("temporary credentials need their session token", () => {
    expect(def.validate({ access_key_id: "ASIAIOSFODNN7EXAMPLE", secret_access_key: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY" }, { region: "us-east-1", from_email: "a@acme.com" })).toEqual({
      "credentials.session_token": ["is required with temporary (ASIA...) credentials"],
    });
  });
});
