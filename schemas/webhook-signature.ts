// Signing and verifying outbound webhooks (SPEC Authentication 8 and the Standard Webhooks headers):
// pure functions of the dispatcher; the verifiers take client/webhooks.ts's argument order (body, header, secret).
import { createHmac, timingSafeEqual } from "node:crypto";

/** Standard Webhooks secrets: `whsec_` + base64 of 24 to 64 random bytes. */
const WHSEC_RE = /^whsec_([A-Za-z0-9+/]+={0,2})$/;

/**
 * The key of the `webhook-signature` header: the decoded bytes of a `whsec_` secret (what the
 * Standard Webhooks libraries do with the string they are given), else the secret's own UTF-8 bytes.
 */
export function standardKeyOf(secret: string): Buffer {
  const m = WHSEC_RE.exec(secret);
  if (m) {
    const bytes = Buffer.from(m[1]!, "base64");
    if (bytes.length >= 24 && bytes.length <= 64) return bytes;
  }
  return Buffer.from(secret, "utf8");
}

/** `X-Service-Signature`: `sha256=` + lowercase hex HMAC-SHA256 of the raw body, keyed by the whole secret string. */
export function serviceSignature(secret: string, body: string): string {
  return `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
}

/** `webhook-signature`: `v1,` + base64 HMAC-SHA256 of `<id>.<timestamp>.<body>` keyed by standardKeyOf(secret). */
export function standardSignature(secret: string, id: string, timestampSeconds: number, body: string): string {
  const mac = createHmac("sha256", standardKeyOf(secret)).update(`${id}.${timestampSeconds}.${body}`).digest("base64");
  return `v1,${mac}`;
}

/** Constant-time equality of two strings (false, without comparing, when the lengths differ). */
function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a, "utf8");
  const y = Buffer.from(b, "utf8");
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * The receiver's check of `X-Service-Signature` (SPEC Authentication 8): recompute over the raw body
 * (the bytes received, before any JSON parsing) and compare in constant time.
 */
export function verifyWebhookSignature(rawBody: string, signatureHeader: string | null | undefined, secret: string): boolean {
  if (!signatureHeader || !secret) return false;
  return sameText(serviceSignature(secret, rawBody), signatureHeader.trim());
}

export interface StandardWebhookHeaders {
  "webhook-id": string | null | undefined;
  "webhook-timestamp": string | null | undefined;
  "webhook-signature": string | null | undefined;
}

/**
 * The receiver's check of the Standard Webhooks headers: a `v1,` signature among the space-separated
 * ones that matches, and a timestamp within `toleranceSeconds` (default 5 minutes) of now, which
 * rejects replays of an old request.
 */
export function verifyStandardWebhook(
  rawBody: string,
  headers: StandardWebhookHeaders,
  secret: string,
  opts: { toleranceSeconds?: number; nowSeconds?: number } = {},
): boolean {
  const id = headers["webhook-id"];
  const ts = headers["webhook-timestamp"];
  const sigs = headers["webhook-signature"];
  if (!id || !ts || !sigs || !/^\d+$/.test(ts)) return false;
  const now = opts.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - Number(ts)) > (opts.toleranceSeconds ?? 300)) return false;
  const expected = standardSignature(secret, id, Number(ts), rawBody);
  return sigs.split(" ").some((s) => sameText(expected, s));
}
