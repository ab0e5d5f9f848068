// verifyWebhookSignature / parseWebhookEvent against signatures made by an independent
// implementation (@octokit/webhooks-methods, same sha256=<hex> scheme) and altered inputs.
import { describe, expect, test } from "bun:test";
import { sign } from "@octokit/webhooks-methods";
import { parseWebhookEvent, verifyWebhookSignature, WebhookVerificationError, type WebhookEvent } from "../../client";

const secret = "whsec_client_test_secret";
const event: WebhookEvent = {
  id: "01a2b3c4-0000-7000-8000-000000000001",
  type: "notification.delivered",
  created_at: "2026-01-01T12:00:00.000Z",
  data: { notification: { id: "n1", status: "delivered", channel: "email" }, delivered_at: "2026-01-01T12:00:00.000Z" },
};
// raw bytes as a receiver gets them, with non-ASCII text so string and byte forms both matter
const raw = JSON.stringify({ ...event, data: { ...event.data, note: "entregue às 12h ✓" } });

describe("verifyWebhookSignature", () => {
  test("accepts octokit's signature of the raw body, as text or bytes", async () => {
    const header = await sign(secret, raw);
    expect(header).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(await verifyWebhookSignature(raw, header, secret)).toBe(true);
    const bytes = new TextEncoder().encode(raw);
    expect(await verifyWebhookSignature(bytes, header, secret)).toBe(true);
    expect(await verifyWebhookSignature(bytes.buffer, header, secret)).toBe(true);
    expect(await verifyWebhookSignature(Buffer.from(raw), header, secret)).toBe(true);
  });

  test("refuses a tampered body, another secret, a re-serialised body and malformed headers", async () => {
    const header = await sign(secret, raw);
    expect(await verifyWebhookSignature(raw.replace("delivered", "failed"), header, secret)).toBe(false);
    expect(await verifyWebhookSignature(`${raw} `, header, secret)).toBe(false);
    expect(await verifyWebhookSignature(raw, header, "whsec_other")).toBe(false);
    expect(await verifyWebhookSignature(JSON.stringify(JSON.parse(raw), null, 2), header, secret)).toBe(false);
    const hex = header.slice("sha256=".length);
    const flipped = `sha256=${hex.slice(0, -1)}${hex.endsWith("0") ? "1" : "0"}`;
    for (const bad of [flipped, hex, `sha1=${hex}`, `sha256=${hex.slice(2)}`, `sha256=${"z".repeat(64)}`, "", null, undefined]) {
      expect(await verifyWebhookSignature(raw, bad, secret)).toBe(false);
    }
    expect(await verifyWebhookSignature(raw, header, "")).toBe(false);
  });

  test("upper-case hex is the same signature", async () => {
    const header = await sign(secret, raw);
    expect(await verifyWebhookSignature(raw, `sha256=${header.slice(7).toUpperCase()}`, secret)).toBe(true);
  });
});

describe("parseWebhookEvent", () => {
  test("returns the typed event once the signature matches", async () => {
    const parsed = await parseWebhookEvent(raw, await sign(secret, raw), secret);
    expect(parsed.type).toBe("notification.delivered");
    expect(parsed.id).toBe(event.id);
    expect((parsed.data.notification as { status: string }).status).toBe("delivered");
  });

  test("throws WebhookVerificationError for a bad signature or a body that is not an event", async () => {
    const tampered = raw.replace("delivered", "bounced");
    const err = await parseWebhookEvent(tampered, await sign(secret, raw), secret).catch((e) => e);
    expect(err).toBeInstanceOf(WebhookVerificationError);
    expect(err.message).toContain("X-Service-Signature");
    const notEvent = JSON.stringify({ hello: "world" });
    const err2 = await parseWebhookEvent(notEvent, await sign(secret, notEvent), secret).catch((e) => e);
    expect(err2).toBeInstanceOf(WebhookVerificationError);
    const notJson = "not json";
    expect(await parseWebhookEvent(notJson, await sign(secret, notJson), secret).catch((e) => e.message)).toBe("The body is not JSON");
  });
});
