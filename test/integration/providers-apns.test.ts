// The apns provider against a local HTTP/2 TLS server answering as Apple does: the ES256 provider token
// checked, 410 Unregistered -> recipient unregistered, 429/503 retryable, 400 BadDeviceToken the caller's fault.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { decodeProtectedHeader } from "jose";
import { generateKeyPairSync } from "node:crypto";
import { apnsCode, closeApnsSessions } from "../../providers/push/apns";
import { createProvider, getProviderDefinition } from "../../providers/registry";
import type { OutboundMessage } from "../../providers/types";
import * as fakeApns from "../support/fake-apns";

let apns: fakeApns.FakeApns;

function message(overrides: Partial<OutboundMessage> = {}): OutboundMessage {
  return {
    notificationId: "0190f5c2-7a1b-7c3d-8e4f-000000000201",
    tenantId: "t1",
    environment: "production",
    channel: "push",
    to: apns.deviceToken(),
    title: "Your order shipped",
    body: "It arrives tomorrow",
    data: { order_id: "A-1" },
    ...overrides,
  };
}

function provider(o: { privateKey?: string; keyId?: string; topic?: string; timeoutMs?: number; settings?: Record<string, unknown> } = {}) {
  return createProvider(
    "apns",
    {
      credentials: { team_id: apns.teamId, key_id: o.keyId ?? apns.keyId, private_key: o.privateKey ?? apns.privateKey },
      settings: { topic: o.topic ?? apns.topic, base_url: apns.url, ...o.settings },
    },
    { timeoutMs: o.timeoutMs ?? 3000, tls: apns.tls },
  );
}

beforeAll(async () => {
  apns = await fakeApns.start();
});
afterAll(async () => {
  await closeApnsSessions();
  await apns.stop();
});
beforeEach(() => apns.reset());

describe("apns provider (HTTP/2 POST /3/device/<token>, ES256 provider token)", () => {
  test("success: Apple verified the ES256 token (kid, iss), the headers and payload; apns-id is the message id", async () => {
    const msg = message();
    const result = await provider().send(msg);
    expect(result).toMatchObject({ ok: true, providerMessageId: msg.notificationId });
    expect(apns.delivered).toHaveLength(1);
    const req = apns.delivered[0]!;
    expect(req.deviceToken).toBe(msg.to);
    expect(req.claims).toMatchObject({ iss: apns.teamId, kid: apns.keyId });
    expect(decodeProtectedHeader(req.headers.authorization!.slice("bearer ".length))).toEqual({ alg: "ES256", kid: apns.keyId });
    expect(req.headers).toMatchObject({ "apns-topic": "com.acme.app", "apns-push-type": "alert", "apns-priority": "10", "apns-id": msg.notificationId });
    expect(req.payload).toEqual({ order_id: "A-1", aps: { alert: { title: "Your order shipped", body: "It arrives tomorrow" }, sound: "default" } });
  });

  test("the provider token is reused across sends and adapter instances (Apple throttles new tokens)", async () => {
    await provider().send(message());
    await provider().send(message());
    expect(apns.delivered).toHaveLength(2);
    expect(apns.delivered[0]!.headers.authorization).toBe(apns.delivered[1]!.headers.authorization);
  });

  test("410 Unregistered: permanent, and the recipient is unregistered (suppressed)", async () => {
    const token = apns.deviceToken();
    apns.unregister(token);
    const result = await provider().send(message({ to: token }));
    expect(result).toMatchObject({ ok: false, retryable: false, recipientUnregistered: true, error: { code: "apns_unregistered" } });
  });

  test("400 BadDeviceToken is the caller's fault; a token that is not hex never reaches Apple", async () => {
    apns.script({ kind: "error", status: 400, reason: "BadDeviceToken" });
    const result = await provider().send(message());
    expect(result).toMatchObject({ ok: false, retryable: false, callerFault: true, error: { code: "apns_bad_device_token" } });
    const calls = apns.requests.length;
    expect(await provider().send(message({ to: "not-a-token" }))).toMatchObject({ ok: false, retryable: false, callerFault: true, error: { code: "apns_bad_device_token" } });
    expect(apns.requests.length).toBe(calls);
  });

  test("429 TooManyRequests and 503 ServiceUnavailable are retryable; Retry-After is read", async () => {
    apns.script({ kind: "error", status: 429, reason: "TooManyRequests", retryAfter: 6 }, { kind: "error", status: 503, reason: "ServiceUnavailable" });
    const p = provider();
    expect(await p.send(message())).toMatchObject({ ok: false, retryable: true, retryAfterMs: 6000, error: { code: "apns_too_many_requests" } });
    expect(await p.send(message())).toMatchObject({ ok: false, retryable: true, error: { code: "apns_service_unavailable" } });
    expect((await p.send(message())).ok).toBe(true);
  });

  test("a token signed by another key: 403 InvalidProviderToken, permanent and counted against the provider", async () => {
    const other = generateKeyPairSync("ec", { namedCurve: "prime256v1" }).privateKey.export({ type: "pkcs8", format: "pem" }).toString();
    const result = await provider({ privateKey: other }).send(message());
    expect(result).toMatchObject({ ok: false, retryable: false, error: { code: "apns_invalid_provider_token" } });
    if (!result.ok) expect(result.callerFault).toBeUndefined();
  });

  test("another app's topic: 400 DeviceTokenNotForTopic (the caller's token does not belong to this app)", async () => {
    expect(await provider({ topic: "com.other.app" }).send(message())).toMatchObject({ ok: false, retryable: false, callerFault: true, error: { code: "apns_device_token_not_for_topic" } });
  });

  test("no answer before the deadline: retryable timeout; nothing listening: network_error", async () => {
    apns.script({ kind: "hang" });
    expect(await provider({ timeoutMs: 300 }).send(message())).toMatchObject({ ok: false, retryable: true, error: { code: "timeout" } });
    expect(await provider({ settings: { base_url: "https://127.0.0.1:1" } }).send(message())).toMatchObject({ ok: false, retryable: true, error: { code: "network_error" } });
  });

  test("a background push carries content-available and priority 5", async () => {
    expect((await provider({ settings: { push_type: "background" } }).send(message())).ok).toBe(true);
    expect(apns.delivered[0]!.headers).toMatchObject({ "apns-push-type": "background", "apns-priority": "5" });
    expect(apns.delivered[0]!.payload).toEqual({ order_id: "A-1", aps: { "content-available": 1 } });
  });
});

describe("apns codes and validate", () => {
  test("reasons become snake_case codes", () => {
    expect(apnsCode("BadDeviceToken")).toBe("apns_bad_device_token");
    expect(apnsCode("TooManyProviderTokenUpdates")).toBe("apns_too_many_provider_token_updates");
  });
  test("each bad field is named", () => {
    expect(getProviderDefinition("apns")!.validate({ team_id: "team", key_id: "KEY1234567", private_key: "nope" }, { topic: "acme", environment: "staging", push_type: "silent", base_url: "http://x.test" })).toEqual({
      "credentials.team_id": ["must be the 10-character Team ID (upper-case letters and digits)"],
      "credentials.private_key": ["must be the .p8 authentication key from Apple (-----BEGIN PRIVATE KEY-----)"],
      "settings.topic": ["must be the app's bundle id, such as com.acme.app"],
      "settings.environment": ["must be production or development"],
      "settings.push_type": ["must be alert, background or voip"],
      "settings.base_url": ["must be https: APNs speaks HTTP/2 over TLS only"],
    });
  });
});
