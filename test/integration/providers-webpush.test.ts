// The webpush provider against a local RFC 8030 push service that verifies the VAPID JWT and
// decrypts the aes128gcm payload with a real P-256 subscription: 404/410 permanent, 429/5xx retryable.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import webpush from "web-push";
import { createProvider } from "../../providers/registry";
import type { OutboundMessage } from "../../providers/types";
import * as fakeWebpush from "../support/fake-webpush";

const vapid = webpush.generateVAPIDKeys();
let push: fakeWebpush.FakeWebpush;
let subscription: fakeWebpush.PushSubscriptionJson;

function message(overrides: Partial<OutboundMessage> = {}): OutboundMessage {
  return {
    notificationId: "0190f5c2-7a1b-7c3d-8e4f-0000000000e1",
    tenantId: "t1",
    environment: "production",
    channel: "push",
    to: JSON.stringify(subscription),
    title: "New message",
    body: "Ana replied to you",
    data: { url: "/inbox/1" },
    ...overrides,
  };
}

function provider(opts: { timeoutMs?: number; allowHttp?: boolean; publicKey?: string } = {}) {
  return createProvider(
    "webpush",
    {
      credentials: { vapid_public_key: opts.publicKey ?? vapid.publicKey, vapid_private_key: vapid.privateKey },
      settings: { subject: "mailto:ops@acme.test", ttl_seconds: 3600 },
    },
    { timeoutMs: opts.timeoutMs ?? 3000, allowHttpEndpoints: opts.allowHttp ?? true },
  );
}

beforeAll(async () => {
  push = await fakeWebpush.start();
});
afterAll(() => push.stop());
beforeEach(() => {
  push.reset();
  subscription = push.createSubscription();
});

describe("webpush provider (web-push library, VAPID; recipient is a PushSubscription as JSON text)", () => {
  test("success: the push service verifies VAPID and decrypts the payload; Location is the message id", async () => {
    const result = await provider().send(message());
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(push.deliveries).toHaveLength(1);
    const d = push.deliveries[0]!;
    expect(JSON.parse(d.payload)).toEqual({
      title: "New message",
      body: "Ana replied to you",
      data: { url: "/inbox/1" },
      notification_id: "0190f5c2-7a1b-7c3d-8e4f-0000000000e1",
    });
    expect(d.vapid).toMatchObject({ aud: push.url, sub: "mailto:ops@acme.test" });
    expect(d.vapidPublicKey).toBe(vapid.publicKey);
    expect(d.ttl).toBe("3600");
    expect(result.providerMessageId).toStartWith(`${push.url}/m/`);
    expect(result.response).toMatchObject({ status: 201 });
    expect(JSON.stringify(result)).not.toContain(vapid.privateKey);
  });

  test("410 Gone (subscription expired) is permanent", async () => {
    push.expireSubscription(subscription);
    const result = await provider().send(message());
    expect(result).toMatchObject({ ok: false, retryable: false, error: { code: "subscription_expired" } });
    if (!result.ok) expect(result.response).toMatchObject({ status: 410, body: { errno: 103 } });
  });

  test("404 (unknown subscription) is permanent", async () => {
    const unknown = { ...subscription, endpoint: `${push.url}/push/never-created` };
    const result = await provider().send(message({ to: JSON.stringify(unknown) }));
    expect(result).toMatchObject({ ok: false, retryable: false, error: { code: "subscription_expired" } });
  });

  test("429 is retryable with Retry-After", async () => {
    push.script({ kind: "rate_limit", retryAfter: 9 });
    const result = await provider().send(message());
    expect(result).toMatchObject({ ok: false, retryable: true, retryAfterMs: 9000, error: { code: "http_429" } });
  });

  test("5xx is retryable; the retry succeeds (2 attempts)", async () => {
    push.script({ kind: "server_error", status: 502 });
    const p = provider();
    expect(await p.send(message())).toMatchObject({ ok: false, retryable: true, error: { code: "http_502" } });
    expect((await p.send(message())).ok).toBe(true);
    expect(push.deliveries).toHaveLength(1);
  });

  test("a VAPID key that does not match the JWT signature is refused by the push service: 401 permanent", async () => {
    const other = webpush.generateVAPIDKeys();
    const result = await provider({ publicKey: other.publicKey }).send(message());
    expect(result).toMatchObject({ ok: false, retryable: false, error: { code: "http_401" } });
  });

  test("a recipient that is not a PushSubscription JSON is permanent without a network call", async () => {
    const result = await provider().send(message({ to: "not-json" }));
    expect(result).toMatchObject({ ok: false, retryable: false, error: { code: "invalid_subscription" } });
    const noKeys = await provider().send(message({ to: JSON.stringify({ endpoint: subscription.endpoint }) }));
    expect(noKeys).toMatchObject({ ok: false, retryable: false, error: { code: "invalid_subscription" } });
    expect(push.requests).toHaveLength(0);
  });

  test("plain http endpoints are refused unless the host allows them (tenant-supplied URLs)", async () => {
    const result = await provider({ allowHttp: false }).send(message());
    expect(result).toMatchObject({ ok: false, retryable: false, error: { code: "invalid_subscription" } });
    expect(push.requests).toHaveLength(0);
  });

  test("push service never answering: retryable timeout", async () => {
    push.script({ kind: "hang" });
    const result = await provider({ timeoutMs: 300 }).send(message());
    expect(result).toMatchObject({ ok: false, retryable: true, error: { code: "timeout" } });
  });
});
