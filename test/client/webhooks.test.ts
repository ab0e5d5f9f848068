// verifyWebhookSignature / parseWebhookEvent against signatures made by an independent
// implementation (@octokit/webhooks-methods, same sha256=<hex> scheme) and altered inputs;
// verifyStandardWebhook / parseStandardWebhook against the `standardwebhooks` package and the server's verifier.
import { describe, expect, test } from "bun:test";
import { sign } from "@octokit/webhooks-methods";
import { Webhook as StandardWebhook } from "standardwebhooks";
import {
  parseStandardWebhook,
  parseWebhookEvent,
  verifyStandardWebhook,
  verifyWebhookSignature,
  WebhookVerificationError,
  type WebhookEvent,
} from "../../client";
import { verifyStandardWebhook as serverVerifyStandard } from "../../schemas/webhook-signature";

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

describe("verifyStandardWebhook", () => {
  const whsec = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
  const msgId = "msg_2KWPBgLlAfxdpx2AI54pPJ85f4W";
  const now = Math.floor(Date.now() / 1000);
  /** The headers the standardwebhooks package signs for (id, timestamp, body). */
  function signed(secret: string | StandardWebhook, body: string, ts = now, id = msgId) {
    const wh = typeof secret === "string" ? new StandardWebhook(secret) : secret;
    return { "webhook-id": id, "webhook-timestamp": String(ts), "webhook-signature": wh.sign(id, new Date(ts * 1000), body) };
  }

  test("accepts the standardwebhooks package's signature: body as text or bytes, headers as Headers or a plain object", async () => {
    const h = signed(whsec, raw);
    expect(h["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(await verifyStandardWebhook(raw, h, whsec)).toBe(true);
    expect(await verifyStandardWebhook(new TextEncoder().encode(raw), h, whsec)).toBe(true);
    expect(await verifyStandardWebhook(Buffer.from(raw), new Headers(h), whsec)).toBe(true);
    // Express lower-cases names; Node's raw headers may not: both are read case-insensitively
    const upper = { "Webhook-Id": h["webhook-id"], "Webhook-Timestamp": h["webhook-timestamp"], "Webhook-Signature": h["webhook-signature"] };
    expect(await verifyStandardWebhook(raw, upper, whsec)).toBe(true);
    // the package verifies the same request
    expect(new StandardWebhook(whsec).verify(raw, h)).toMatchObject({ id: event.id, type: event.type });
  });

  test("a secret that is not whsec_ keys the HMAC with its own bytes (the package's raw format)", async () => {
    const own = "my-own-secret-of-some-length";
    const h = signed(new StandardWebhook(own, { format: "raw" }), raw);
    expect(await verifyStandardWebhook(raw, h, own)).toBe(true);
    // a whsec_ secret whose base64 is fewer than 24 bytes is also used as text, as the server does
    const short = "whsec_c2hvcnQ=";
    const hs = signed(new StandardWebhook(short, { format: "raw" }), raw);
    expect(await verifyStandardWebhook(raw, hs, short)).toBe(true);
    expect(serverVerifyStandard(raw, hs, short)).toBe(true);
  });

  test("one matching v1 signature among several is enough; none matching is false", async () => {
    const h = signed(whsec, raw);
    const other = signed("whsec_" + Buffer.alloc(32, 7).toString("base64"), raw)["webhook-signature"];
    expect(await verifyStandardWebhook(raw, { ...h, "webhook-signature": `${other} ${h["webhook-signature"]}` }, whsec)).toBe(true);
    expect(await verifyStandardWebhook(raw, { ...h, "webhook-signature": `v1a,${h["webhook-signature"].slice(3)} ${other}` }, whsec)).toBe(false);
  });

  test("agrees with the package and the server on every altered request", async () => {
    const h = signed(whsec, raw);
    const cases: [string, string, Record<string, string>, string][] = [
      ["intact", raw, h, whsec],
      ["tampered body", raw.replace("delivered", "failed"), h, whsec],
      ["re-serialised body", JSON.stringify(JSON.parse(raw), null, 2), h, whsec],
      ["another secret", raw, h, "whsec_" + Buffer.alloc(32, 1).toString("base64")],
      ["another id", raw, { ...h, "webhook-id": "msg_other" }, whsec],
      ["another timestamp", raw, { ...h, "webhook-timestamp": String(now + 1) }, whsec],
      ["6 minutes old", raw, signed(whsec, raw, now - 360), whsec],
      ["6 minutes ahead", raw, signed(whsec, raw, now + 360), whsec],
      ["4 minutes old", raw, signed(whsec, raw, now - 240), whsec],
      ["timestamp not a number", raw, { ...h, "webhook-timestamp": "soon" }, whsec],
      ["no signature", raw, { "webhook-id": h["webhook-id"], "webhook-timestamp": h["webhook-timestamp"] } as Record<string, string>, whsec],
      ["no id", raw, { "webhook-timestamp": h["webhook-timestamp"], "webhook-signature": h["webhook-signature"] } as Record<string, string>, whsec],
      ["signature flipped", raw, { ...h, "webhook-signature": h["webhook-signature"].replace(/^v1,./, (m) => (m.endsWith("A") ? "v1,B" : "v1,A")) }, whsec],
    ];
    const outcomes: Record<string, [boolean, boolean, boolean]> = {};
    for (const [name, body, headers, secret] of cases) {
      let pkg: boolean;
      try {
        new StandardWebhook(secret).verify(body, headers);
        pkg = true;
      } catch {
        pkg = false;
      }
      const nowSeconds = Math.floor(Date.now() / 1000);
      const server = serverVerifyStandard(body, headers as any, secret, { nowSeconds });
      outcomes[name] = [await verifyStandardWebhook(body, headers, secret, { nowSeconds }), pkg, server];
    }
    const accepted = Object.entries(outcomes).filter(([, [client]]) => client).map(([name]) => name);
    expect(accepted).toEqual(["intact", "4 minutes old"]);
    for (const [name, [client, pkg, server]] of Object.entries(outcomes)) expect([name, pkg, server]).toEqual([name, client, client]);
  });

  test("toleranceSeconds and nowSeconds move the window; empty secret and missing headers are false", async () => {
    const h = signed(whsec, raw, now - 3600);
    expect(await verifyStandardWebhook(raw, h, whsec)).toBe(false);
    expect(await verifyStandardWebhook(raw, h, whsec, { toleranceSeconds: 3700 })).toBe(true);
    expect(await verifyStandardWebhook(raw, h, whsec, { nowSeconds: now - 3600 })).toBe(true);
    expect(await verifyStandardWebhook(raw, h, "")).toBe(false);
    expect(await verifyStandardWebhook(raw, null, whsec)).toBe(false);
    expect(await verifyStandardWebhook(raw, {}, whsec)).toBe(false);
  });
});

describe("parseStandardWebhook", () => {
  const whsec = "whsec_" + Buffer.alloc(32, 9).toString("base64");
  test("returns the typed event once verified; throws WebhookVerificationError otherwise", async () => {
    const wh = new StandardWebhook(whsec);
    const ts = new Date();
    const headers = new Headers({ "webhook-id": event.id, "webhook-timestamp": String(Math.floor(ts.getTime() / 1000)), "webhook-signature": wh.sign(event.id, ts, raw) });
    const parsed = await parseStandardWebhook(raw, headers, whsec);
    expect([parsed.id, parsed.type]).toEqual([event.id, "notification.delivered"]);
    const err = await parseStandardWebhook(raw.replace("delivered", "bounced"), headers, whsec).catch((e) => e);
    expect(err).toBeInstanceOf(WebhookVerificationError);
    expect(err.message).toContain("webhook-signature");
    const notEvent = "[1,2]";
    const h2 = new Headers({ "webhook-id": "m", "webhook-timestamp": headers.get("webhook-timestamp")!, "webhook-signature": wh.sign("m", ts, notEvent) });
    expect(await parseStandardWebhook(notEvent, h2, whsec).catch((e) => e)).toBeInstanceOf(WebhookVerificationError);
  });
});
