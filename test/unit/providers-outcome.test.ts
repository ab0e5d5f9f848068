// Pure classification and signature checks of providers/: DESIGN.md 7 "retryable (network error,
// timeout, 429, 5xx) or permanent (other 4xx)", provider error shapes, X-Hub-Signature-256.
import { describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { classifySmtpError } from "../../providers/email/smtp";
import { readSendgridError } from "../../providers/email/sendgrid";
import { sesFailure } from "../../providers/email/ses";
import { failureFromHttp, type HttpCallResponse } from "../../providers/http-call";
import {
  callerFault,
  failure,
  failureFromFetchError,
  isRetryableStatus,
  parseRateLimitReset,
  parseRetryAfter,
  redactSecrets,
  secretValues,
} from "../../providers/outcome";
import { parseServiceAccount, readFcmError, toFcmData } from "../../providers/push/fcm";
import { parseSubscription } from "../../providers/push/webpush";
import { readTwilioError } from "../../providers/sms/twilio";
import { readGraphError, verifyWhatsappSignature } from "../../providers/whatsapp/whatsapp-cloud";

function res(status: number, body: unknown = null, headers: Record<string, string> = {}): HttpCallResponse {
  return { status, body, headers: new Headers(headers) };
}

describe("HTTP status classification (DESIGN.md 7)", () => {
  test.each([429, 500, 502, 503, 504, 408])("%i is retryable", (status) => {
    expect(isRetryableStatus(status)).toBe(true);
  });
  test.each([400, 401, 403, 404, 410, 413, 422])("%i is permanent", (status) => {
    expect(isRetryableStatus(status)).toBe(false);
  });

  test("failureFromHttp: 503 retryable with Retry-After, 400 permanent without retryAfterMs", () => {
    expect(failureFromHttp(res(503, { x: 1 }, { "retry-after": "12" }), {})).toEqual({
      ok: false,
      retryable: true,
      error: { code: "http_503", message: "provider answered HTTP 503" },
      retryAfterMs: 12_000,
      response: { status: 503, body: { x: 1 } },
    });
    const permanent = failureFromHttp(res(400, null, { "retry-after": "12" }), { code: "bad", message: "nope" });
    expect(permanent).toMatchObject({ ok: false, retryable: false, error: { code: "bad", message: "nope" } });
    expect(permanent.retryAfterMs).toBeUndefined();
  });

  test("a provider code may force retryable on a 4xx", () => {
    expect(failureFromHttp(res(400), { retryable: true }).retryable).toBe(true);
    expect(failureFromHttp(res(503), { retryable: false }).retryable).toBe(false);
  });
});

describe("Retry-After", () => {
  const now = Date.parse("2026-11-22T10:00:00.000Z");
  test("delta-seconds", () => {
    expect(parseRetryAfter("30", now)).toBe(30_000);
    expect(parseRetryAfter("0", now)).toBe(0);
    expect(parseRetryAfter("1.5", now)).toBe(1500);
  });
  test("HTTP-date, past dates clamp to 0", () => {
    expect(parseRetryAfter("Sun, 22 Nov 2026 10:00:45 GMT", now)).toBe(45_000);
    expect(parseRetryAfter("Sun, 22 Nov 2026 09:00:00 GMT", now)).toBe(0);
  });
  test("missing or unreadable gives undefined", () => {
    expect(parseRetryAfter(null, now)).toBeUndefined();
    expect(parseRetryAfter("", now)).toBeUndefined();
    expect(parseRetryAfter("soon", now)).toBeUndefined();
    expect(parseRetryAfter("-5", now)).toBeUndefined();
  });
  test("SendGrid X-RateLimit-Reset is epoch seconds", () => {
    expect(parseRateLimitReset(String(now / 1000 + 20), now)).toBe(20_000);
    expect(parseRateLimitReset("abc", now)).toBeUndefined();
  });
});

describe("thrown fetch errors", () => {
  test("our deadline -> timeout, caller abort -> aborted, anything else -> network_error; all retryable", () => {
    const abort = Object.assign(new Error("aborted"), { name: "AbortError" });
    expect(failureFromFetchError(abort, true)).toMatchObject({ retryable: true, error: { code: "timeout" } });
    expect(failureFromFetchError(abort, false)).toMatchObject({ retryable: true, error: { code: "aborted" } });
    const refused = Object.assign(new Error("connect failed"), { code: "ECONNREFUSED" });
    expect(failureFromFetchError(refused, false)).toMatchObject({ retryable: true, error: { code: "network_error" } });
  });
});

describe("SMTP reply classification", () => {
  test("5xx permanent, 4xx retryable, code carried as smtp_<n>", () => {
    expect(classifySmtpError({ code: "EMESSAGE", responseCode: 550, response: "550 5.1.1 no such user" })).toMatchObject({
      retryable: false,
      error: { code: "smtp_550" },
      response: { smtp_code: 550, smtp_response: "550 5.1.1 no such user" },
    });
    expect(classifySmtpError({ code: "EMESSAGE", responseCode: 451 })).toMatchObject({ retryable: true, error: { code: "smtp_451" } });
    expect(classifySmtpError({ code: "EPROTOCOL", responseCode: 421 })).toMatchObject({ retryable: true });
  });
  test("a refused recipient's code inside rejectedErrors is used", () => {
    expect(classifySmtpError({ code: "EENVELOPE", rejectedErrors: [{ responseCode: 452 }] })).toMatchObject({ retryable: true, error: { code: "smtp_452" } });
    expect(classifySmtpError({ code: "EENVELOPE", rejectedErrors: [{ responseCode: 550 }] })).toMatchObject({ retryable: false });
  });
  test("connection errors retryable, timeouts retryable, auth/config errors permanent", () => {
    for (const code of ["ECONNECTION", "ETIMEDOUT", "ESOCKET", "EDNS", "ECONNREFUSED"]) {
      expect(classifySmtpError({ code, message: "x" })).toMatchObject({ retryable: true, error: { code: "connection_error" } });
    }
    expect(classifySmtpError({ code: "EABORT" }, true)).toMatchObject({ retryable: true, error: { code: "timeout" } });
    expect(classifySmtpError({ code: "EAUTH" })).toMatchObject({ retryable: false, error: { code: "auth_failed" } });
    expect(classifySmtpError({ code: "ECONFIG" })).toMatchObject({ retryable: false });
  });
});

describe("provider error shapes", () => {
  test("SendGrid {errors:[{message,field}]}", () => {
    expect(readSendgridError({ errors: [{ message: "bad", field: "from.email" }, { message: "also", field: null }] })).toEqual({
      message: "from.email: bad; also",
    });
    expect(readSendgridError("text")).toEqual({});
  });
  test("Twilio {code,message,more_info,status}; 20429 forces retryable", () => {
    expect(readTwilioError({ code: 21211, message: "invalid To", more_info: "u", status: 400 })).toEqual({
      code: "twilio_21211",
      message: "invalid To",
      retryable: undefined,
    });
    expect(readTwilioError({ code: 20429, message: "Too Many Requests" }).retryable).toBe(true);
  });
  test("Graph {error:{message,type,code,fbtrace_id}}; throughput codes and is_transient are retryable", () => {
    expect(readGraphError({ error: { message: "Undeliverable", code: 131026, type: "OAuthException" } })).toEqual({
      code: "whatsapp_131026",
      message: "Undeliverable",
      retryable: undefined,
    });
    expect(readGraphError({ error: { message: "x", code: 130429 } }).retryable).toBe(true);
    expect(readGraphError({ error: { message: "x", code: 100, is_transient: true } }).retryable).toBe(true);
    expect(readGraphError({ error: { message: "(#131009) bad", code: 131009, error_data: { details: "Invalid phone" } } }).message).toBe(
      "(#131009) bad: Invalid phone",
    );
  });
  test("FCM: details[].errorCode wins over status; UNREGISTERED/INVALID_ARGUMENT permanent, UNAVAILABLE/INTERNAL/QUOTA retryable", () => {
    const body = (status: string, errorCode?: string) => ({
      error: {
        code: 0,
        message: "m",
        status,
        details: errorCode ? [{ "@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", errorCode }] : [],
      },
    });
    expect(readFcmError(body("NOT_FOUND", "UNREGISTERED"))).toEqual({ code: "fcm_unregistered", message: "m", retryable: false });
    expect(readFcmError(body("INVALID_ARGUMENT", "INVALID_ARGUMENT")).retryable).toBe(false);
    expect(readFcmError(body("UNAVAILABLE", "UNAVAILABLE")).retryable).toBe(true);
    expect(readFcmError(body("INTERNAL", "INTERNAL")).retryable).toBe(true);
    expect(readFcmError(body("RESOURCE_EXHAUSTED", "QUOTA_EXCEEDED"))).toMatchObject({ code: "fcm_quota_exceeded", retryable: true });
    expect(readFcmError(body("UNAUTHENTICATED"))).toMatchObject({ code: "fcm_unauthenticated", retryable: undefined });
  });
  test("FCM data values become strings; service_account accepted as object or JSON text", () => {
    expect(toFcmData({ a: "x", b: 2, c: { d: true }, e: null })).toEqual({ a: "x", b: "2", c: '{"d":true}' });
    expect(toFcmData({})).toBeUndefined();
    expect(parseServiceAccount('{"client_email":"a@b"}')).toEqual({ client_email: "a@b" });
    expect(parseServiceAccount("not json")).toBeUndefined();
    expect(parseServiceAccount(["x"])).toBeUndefined();
  });
});

describe("verifyWhatsappSignature (X-Hub-Signature-256, constant-time compare)", () => {
  const body = '{"object":"whatsapp_business_account","entry":[]}';
  const secret = "app-secret-123";
  const good = "sha256=" + createHmac("sha256", secret).update(body).digest("hex");

  test("accepts the HMAC-SHA256 of the raw body keyed by app_secret (string or bytes)", () => {
    expect(verifyWhatsappSignature(body, good, secret)).toBe(true);
    expect(verifyWhatsappSignature(new TextEncoder().encode(body), good, secret)).toBe(true);
    expect(verifyWhatsappSignature(body, good.toUpperCase().replace("SHA256=", "sha256="), secret)).toBe(true);
  });
  test("refuses another body, another secret, a missing, malformed or truncated header", () => {
    expect(verifyWhatsappSignature(body + " ", good, secret)).toBe(false);
    expect(verifyWhatsappSignature(body, good, "other")).toBe(false);
    expect(verifyWhatsappSignature(body, undefined, secret)).toBe(false);
    expect(verifyWhatsappSignature(body, null, secret)).toBe(false);
    expect(verifyWhatsappSignature(body, "", secret)).toBe(false);
    expect(verifyWhatsappSignature(body, good.replace("sha256=", "sha1="), secret)).toBe(false);
    expect(verifyWhatsappSignature(body, good.slice(0, -2), secret)).toBe(false);
    expect(verifyWhatsappSignature(body, good, "")).toBe(false);
  });
});

describe("PushSubscription recipient parsing", () => {
  const p256dh = Buffer.alloc(65, 4).toString("base64url");
  const auth = Buffer.alloc(16, 1).toString("base64url");
  test("a full subscription parses", () => {
    const s = parseSubscription(JSON.stringify({ endpoint: "https://push.example/abc", keys: { p256dh, auth } }));
    expect(typeof s).toBe("object");
  });
  test("bad inputs give a reason", () => {
    expect(parseSubscription("x")).toBeString();
    expect(parseSubscription(JSON.stringify({ endpoint: "ftp://x/y", keys: { p256dh, auth } }))).toBeString();
    expect(parseSubscription(JSON.stringify({ endpoint: "https://x/y", keys: { p256dh: "short", auth } }))).toBeString();
    expect(parseSubscription(JSON.stringify({ endpoint: "https://x/y", keys: { p256dh } }))).toBeString();
  });
});

describe("credential redaction (credentials never in any response)", () => {
  test("secretValues: string leaves, nested and JSON-text service accounts, public identifiers kept", () => {
    const account = { type: "service_account", project_id: "demo-project", client_email: "a@demo.iam.gserviceaccount.com", private_key: "-----BEGIN PRIVATE KEY-----xyz" };
    expect(secretValues({ api_key: "SG.abcdef", short: "abc" })).toEqual(["SG.abcdef"]);
    const fromObject = secretValues({ service_account: account });
    expect(fromObject).toContain(account.private_key);
    expect(fromObject).toContain(account.client_email);
    expect(fromObject).not.toContain("service_account");
    expect(fromObject).not.toContain("demo-project");
    expect(secretValues({ service_account: JSON.stringify(account) })).toContain(account.private_key);
  });
  test("redactSecrets replaces every occurrence, deeply, longest secret first", () => {
    const sid = "AC0123456789abcdef0123456789abcdef";
    const body = { account_sid: sid, uri: `/2010-04-01/Accounts/${sid}/Messages/SM1.json`, list: [sid], n: 3 };
    expect(redactSecrets(body, [sid])).toEqual({
      account_sid: "[redacted]",
      uri: "/2010-04-01/Accounts/[redacted]/Messages/SM1.json",
      list: ["[redacted]"],
      n: 3,
    });
    expect(redactSecrets("token=abcdef-long", secretValues({ a: "abcdef", b: "abcdef-long" }))).toBe("token=[redacted]");
  });
});

describe("caller's fault (SendFailure.callerFault): permanent, not a sign of the provider's health", () => {
  test("callerFault() makes a failure permanent, drops any retry delay and marks it", () => {
    const f = failure(true, "http_400", "bad", { retryAfterMs: 5000 });
    expect(callerFault(f)).toEqual({ ok: false, retryable: false, callerFault: true, error: { code: "http_400", message: "bad" } });
    expect(failure(false, "x", "y").callerFault).toBeUndefined();
  });

  test("SES: x-amzn-ErrorType decides; MessageRejected is the caller's, AccountSuspended the provider's, Throttling later", () => {
    const ses = (status: number, type: string) => sesFailure(res(status, { message: type }, { "x-amzn-errortype": `${type}:http://internal.amazon.com/coral/com.amazonaws.sesv2/` }));
    expect(ses(400, "MessageRejected")).toMatchObject({ retryable: false, callerFault: true, error: { code: "ses_MessageRejected" } });
    expect(ses(400, "AccountSuspendedException").callerFault).toBeUndefined();
    expect(ses(400, "LimitExceededException")).toMatchObject({ retryable: true, error: { code: "ses_LimitExceededException" } });
    expect(ses(500, "InternalFailure").retryable).toBe(true);
    expect(sesFailure(res(400, { __type: "com.amazon.coral.validate#BadRequestException", message: "m" }))).toMatchObject({ callerFault: true, error: { code: "ses_BadRequestException" } });
  });
});
