// Self-contained unsubscribe tokens (DESIGN.md 6): tenant, environment, subscriber, channel and
// optional category, signed with HMAC-SHA256 under a key derived from ENCRYPTION_KEY.
import { createHmac, hkdfSync, timingSafeEqual } from "node:crypto";
import { config } from "../../config";

export interface UnsubscribeClaims {
  tenantId: string;
  environment: string;
  subscriberId: string;
  channel: string;
  category?: string | null;
}

// A derived key, so the credential-encryption key itself never signs anything public.
let signingKey: Buffer | null = null;
function key(): Buffer {
  signingKey ??= Buffer.from(hkdfSync("sha256", config.encryptionKey, Buffer.alloc(0), Buffer.from("nms:unsubscribe-token:v1"), 32));
  return signingKey;
}

function sign(payload: string): Buffer {
  return createHmac("sha256", key()).update(payload).digest();
}

/** `<base64url(json)>.<base64url(hmac)>`; short field names keep List-Unsubscribe URLs small. */
export function createUnsubscribeToken(c: UnsubscribeClaims): string {
  const body: Record<string, string> = { v: "1", t: c.tenantId, e: c.environment, s: c.subscriberId, c: c.channel };
  if (c.category) body.g = c.category;
  const payload = Buffer.from(JSON.stringify(body)).toString("base64url");
  return `${payload}.${sign(payload).toString("base64url")}`;
}

/** Returns the claims, or null for anything malformed, tampered or signed by another key. */
export function verifyUnsubscribeToken(token: string): UnsubscribeClaims | null {
  if (typeof token !== "string" || token.length > 2048) return null;
  const parts = token.split(".");
  if (parts.length !== 2 || !parts[0] || !parts[1]) return null;
  const [payload, sig] = parts as [string, string];
  if (!/^[A-Za-z0-9_-]+$/.test(payload) || !/^[A-Za-z0-9_-]+$/.test(sig)) return null;
  const given = Buffer.from(sig, "base64url");
  const expected = sign(payload);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  try {
    const b = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
    if (b?.v !== "1" || typeof b.t !== "string" || typeof b.e !== "string" || typeof b.s !== "string" || typeof b.c !== "string") return null;
    if (b.g !== undefined && typeof b.g !== "string") return null;
    return { tenantId: b.t, environment: b.e, subscriberId: b.s, channel: b.c, category: b.g ?? null };
  } catch {
    return null;
  }
}

/** The https URL carried by List-Unsubscribe; publicUrl is where /unsubscribe is served. */
export function unsubscribeUrl(token: string): string {
  return `${config.publicUrl.replace(/\/+$/, "")}/unsubscribe/${token}`;
}
