// Outbound signatures checked by independent implementations: @octokit/webhooks-methods for SPEC's
// `X-Service-Signature: sha256=<hex>`, the standardwebhooks package for webhook-id/-timestamp/-signature.
import { describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { verify as octokitVerify } from "@octokit/webhooks-methods";
import { Webhook } from "standardwebhooks";
import { eventBody, signedHeaders } from "../../domain/webhooks/signed-request";
import { generateSigningSecret } from "../../domain/webhooks/endpoints";
import { serviceSignature, standardKeyOf, verifyStandardWebhook, verifyWebhookSignature } from "../../schemas/webhook-signature";

const body = eventBody({ id: "0190c0de-0000-7000-8000-000000000001", type: "notification.delivered", created_at: "2026-01-01T00:00:00.000Z", data: { notification: { id: "n1", status: "delivered", channel: "email" }, note: "ação ✓" } });

describe("X-Service-Signature", () => {
  test("a generated secret has the Standard Webhooks form whsec_<base64 of 32 bytes>", () => {
    const s = generateSigningSecret();
    expect(s).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(s.slice(6), "base64").length).toBe(32);
    expect(generateSigningSecret()).not.toBe(s);
  });

  test("sha256=<lowercase hex HMAC of the raw body> keyed by the whole secret string, as octokit verifies it", async () => {
    const secret = generateSigningSecret();
    const h = signedHeaders(secret, "evt", body);
    expect(h["x-service-signature"]).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(await octokitVerify(secret, body, h["x-service-signature"]!)).toBe(true);
    expect(await octokitVerify(secret, body + " ", h["x-service-signature"]!)).toBe(false);
    expect(await octokitVerify(`${secret}x`, body, h["x-service-signature"]!)).toBe(false);
    expect(verifyWebhookSignature(body, h["x-service-signature"], secret)).toBe(true);
    expect(verifyWebhookSignature(body.replace("delivered", "failed"), h["x-service-signature"], secret)).toBe(false);
    expect(verifyWebhookSignature(body, null, secret)).toBe(false);
    expect(verifyWebhookSignature(body, "sha256=00", secret)).toBe(false);
  });
});

describe("Standard Webhooks headers", () => {
  test("webhook-signature is keyed by the decoded whsec_ bytes: the standardwebhooks library verifies it with the string it was given", () => {
    const secret = generateSigningSecret();
    const h = signedHeaders(secret, "0190c0de-0000-7000-8000-000000000001", body);
    expect(h["webhook-id"]).toBe("0190c0de-0000-7000-8000-000000000001");
    expect(Math.abs(Number(h["webhook-timestamp"]) - Date.now() / 1000)).toBeLessThan(5);
    expect(h["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    const payload = new Webhook(secret).verify(body, h) as any;
    expect(payload.type).toBe("notification.delivered");
    expect(verifyStandardWebhook(body, h as any, secret)).toBe(true);
    // the SPEC header is keyed by the whole string, this one by the bytes: they differ
    expect(standardKeyOf(secret).equals(Buffer.from(secret))).toBe(false);
  });

  test("a tampered body, another secret or an old timestamp is rejected (replay protection)", () => {
    const secret = generateSigningSecret();
    const old = Math.floor(Date.now() / 1000) - 3600;
    const h = signedHeaders(secret, "e1", body, old);
    expect(() => new Webhook(secret).verify(body, h)).toThrow(); // too old for the library
    expect(verifyStandardWebhook(body, h as any, secret)).toBe(false);
    expect(verifyStandardWebhook(body, h as any, secret, { nowSeconds: old + 10 })).toBe(true);
    const fresh = signedHeaders(secret, "e1", body);
    expect(() => new Webhook(generateSigningSecret()).verify(body, fresh)).toThrow();
    expect(() => new Webhook(secret).verify(body.replace("n1", "n2"), fresh)).toThrow();
    expect(verifyStandardWebhook(body.replace("n1", "n2"), fresh as any, secret)).toBe(false);
  });

  test("a secret given at creation that is not in whsec_ form keys both signatures with its own bytes", async () => {
    const secret = "my-own-signing-secret-1234";
    const h = signedHeaders(secret, "e2", body);
    expect(await octokitVerify(secret, body, h["x-service-signature"]!)).toBe(true);
    expect(h["x-service-signature"]).toBe(serviceSignature(secret, body));
    // the library reads a non-whsec secret as raw bytes when told so
    expect((new Webhook(secret, { format: "raw" }).verify(body, h) as any).id).toBe("0190c0de-0000-7000-8000-000000000001");
    // a whsec_ string whose payload is too short is not a Standard Webhooks key: raw bytes too
    const short = `whsec_${randomBytes(8).toString("base64")}`;
    expect(standardKeyOf(short).equals(Buffer.from(short))).toBe(true);
  });
});
