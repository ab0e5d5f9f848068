// The fcm provider against a local Google OAuth token endpoint (RS256 JWT-bearer grant, signature
// verified) and FCM HTTP v1 messages:send: token caching, error codes, 429/5xx retryable, timeouts.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { clearFcmTokenCache } from "../../providers/push/fcm";
import { createProvider } from "../../providers/registry";
import type { OutboundMessage } from "../../providers/types";
import * as fakeFcm from "../support/fake-fcm";

let fcm: fakeFcm.FakeFcm;
let account: fakeFcm.ServiceAccountJson;

function message(overrides: Partial<OutboundMessage> = {}): OutboundMessage {
  return {
    notificationId: "0190f5c2-7a1b-7c3d-8e4f-0000000000d1",
    tenantId: "t1",
    environment: "production",
    channel: "push",
    to: "fcm-device-token-abc",
    title: "Order shipped",
    body: "Arrives tomorrow",
    data: { order_id: "o-1", count: 2 },
    ...overrides,
  };
}

function provider(opts: { serviceAccount?: unknown; timeoutMs?: number } = {}) {
  return createProvider(
    "fcm",
    {
      credentials: { service_account: opts.serviceAccount ?? account },
      settings: { project_id: "demo-project", base_url: fcm.url, token_url: fcm.tokenUrl },
    },
    { timeoutMs: opts.timeoutMs ?? 3000 },
  );
}

beforeAll(async () => {
  fcm = await fakeFcm.start();
  account = await fcm.createServiceAccount({ projectId: "demo-project" });
});
afterAll(() => fcm.stop());
beforeEach(() => {
  fcm.reset();
  clearFcmTokenCache();
});

describe("fcm provider (HTTP v1, service-account JWT exchanged for an access token)", () => {
  test("success: JWT-bearer grant at token_url, then messages:send; `name` is the message id", async () => {
    const result = await provider().send(message());
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.providerMessageId).toMatch(/^projects\/demo-project\/messages\//);
    expect(result.providerMessageId).toBe(fcm.messages[0]!.name);
    const tokenReq = fcm.requests.find((r) => r.kind === "token")!;
    expect(tokenReq.form!.grant_type).toBe("urn:ietf:params:oauth:grant-type:jwt-bearer");
    // the fake verified the RS256 signature against the account's public key
    expect(tokenReq.extra!.claims).toMatchObject({
      iss: account.client_email,
      aud: fcm.tokenUrl,
      scope: "https://www.googleapis.com/auth/firebase.messaging",
    });
    expect(tokenReq.extra!.header).toMatchObject({ alg: "RS256", kid: account.private_key_id });
    const sendReq = fcm.requests.find((r) => r.kind === "send")!;
    expect(sendReq.path).toBe("/v1/projects/demo-project/messages:send");
    expect(sendReq.headers.authorization).toBe(`Bearer ${fcm.issuedTokens[0]}`);
    expect(sendReq.json).toEqual({
      message: {
        token: "fcm-device-token-abc",
        notification: { title: "Order shipped", body: "Arrives tomorrow" },
        data: { order_id: "o-1", count: "2" },
      },
    });
    const serialized = JSON.stringify(result);
    expect(serialized).not.toContain(fcm.issuedTokens[0]!);
    expect(serialized).not.toContain("PRIVATE KEY");
  });

  test("the access token is cached until expiry: three sends, one token exchange", async () => {
    const p = provider();
    for (let i = 0; i < 3; i++) expect((await p.send(message())).ok).toBe(true);
    // a provider built per send shares the cache too
    expect((await provider().send(message())).ok).toBe(true);
    expect(fcm.requests.filter((r) => r.kind === "token")).toHaveLength(1);
    expect(fcm.messages).toHaveLength(4);
  });

  test("concurrent sends share one token exchange", async () => {
    const p = provider();
    const results = await Promise.all([1, 2, 3, 4, 5].map(() => p.send(message())));
    expect(results.every((r) => r.ok)).toBe(true);
    expect(fcm.requests.filter((r) => r.kind === "token")).toHaveLength(1);
  });

  test("a token about to expire is renewed", async () => {
    fcm.scriptToken({ kind: "success", body: { expires_in: 30 } });
    const p = provider();
    expect((await p.send(message())).ok).toBe(true);
    expect((await p.send(message())).ok).toBe(true);
    expect(fcm.requests.filter((r) => r.kind === "token")).toHaveLength(2);
  });

  test("a revoked token (401 UNAUTHENTICATED) is dropped and the send retried once with a new one", async () => {
    const p = provider();
    expect((await p.send(message())).ok).toBe(true);
    fcm.revokeTokens();
    const result = await p.send(message());
    expect(result.ok).toBe(true);
    expect(fcm.issuedTokens).toHaveLength(2);
  });

  test("UNREGISTERED (404) is permanent", async () => {
    fcm.script({ kind: "error", status: 404, code: "UNREGISTERED" });
    const result = await provider().send(message());
    expect(result).toMatchObject({ ok: false, retryable: false, error: { code: "fcm_unregistered", message: "Requested entity was not found." } });
    if (!result.ok) expect(result.response).toMatchObject({ status: 404, body: { error: { status: "NOT_FOUND" } } });
  });

  test("INVALID_ARGUMENT (400) is permanent", async () => {
    fcm.script({ kind: "error", status: 400, code: "INVALID_ARGUMENT", message: "The registration token is not a valid FCM registration token" });
    const result = await provider().send(message());
    expect(result).toMatchObject({ ok: false, retryable: false, error: { code: "fcm_invalid_argument" } });
  });

  test("429 QUOTA_EXCEEDED is retryable with Retry-After", async () => {
    fcm.script({ kind: "rate_limit", retryAfter: 5 });
    const result = await provider().send(message());
    expect(result).toMatchObject({ ok: false, retryable: true, retryAfterMs: 5000, error: { code: "fcm_quota_exceeded" } });
  });

  test("UNAVAILABLE (503) and INTERNAL (500) are retryable; the retry succeeds", async () => {
    fcm.script({ kind: "server_error", status: 503 }, { kind: "server_error", status: 500 });
    const p = provider();
    expect(await p.send(message())).toMatchObject({ ok: false, retryable: true, error: { code: "fcm_unavailable" } });
    expect(await p.send(message())).toMatchObject({ ok: false, retryable: true, error: { code: "fcm_internal" } });
    expect((await p.send(message())).ok).toBe(true);
  });

  test("a service account the token endpoint does not trust: invalid_grant, permanent", async () => {
    const elsewhere = await fakeFcm.start();
    const stranger = await elsewhere.createServiceAccount(); // its key is registered on the other fake only
    await elsewhere.stop();
    const result = await provider({ serviceAccount: stranger }).send(message());
    expect(result).toMatchObject({ ok: false, retryable: false, error: { code: "fcm_auth_invalid_grant" } });
    expect(fcm.messages).toHaveLength(0);
  });

  test("token endpoint 5xx is retryable", async () => {
    fcm.scriptToken({ kind: "server_error", status: 503 });
    const result = await provider().send(message());
    expect(result).toMatchObject({ ok: false, retryable: true, error: { code: "fcm_auth_internal_failure" } });
  });

  test("a private key that cannot sign is a permanent configuration error", async () => {
    const result = await provider({ serviceAccount: { ...account, private_key: "-----BEGIN PRIVATE KEY-----\nnope\n-----END PRIVATE KEY-----\n" } }).send(message());
    expect(result).toMatchObject({ ok: false, retryable: false, error: { code: "fcm_invalid_service_account" } });
  });

  test("messages:send never answering: retryable timeout", async () => {
    const p = provider({ timeoutMs: 300 });
    fcm.script({ kind: "hang" });
    const result = await p.send(message());
    expect(result).toMatchObject({ ok: false, retryable: true, error: { code: "timeout" } });
  });
});
