// Signed, expiring preference-center links (issue 28): the one-click unsubscribe's scheme
// (base64url JSON claims, HMAC-SHA256 under a key derived from ENCRYPTION_KEY) plus an expiry.
import { createHmac, hkdfSync, timingSafeEqual } from "node:crypto";
import { config } from "../../config";

export interface PreferenceLinkClaims {
  tenantId: string;
  environment: string;
  subscriberId: string;
  /** epoch seconds */
  expiresAt: number;
}

export const DEFAULT_LINK_TTL_S = 7 * 24 * 3600;
/** links rendered into messages ({{ preferences_url }}) outlive the mail they sit in */
export const TEMPLATE_LINK_TTL_S = 90 * 24 * 3600;
export const MAX_LINK_TTL_S = 365 * 24 * 3600;

// its own derived key: an unsubscribe token is never a preference link, nor the reverse
let signingKey: Buffer | null = null;
function key(): Buffer {
  signingKey ??= Buffer.from(hkdfSync("sha256", config.encryptionKey, Buffer.alloc(0), Buffer.from("nms:preference-link:v1"), 32));
  return signingKey;
}

const sign = (payload: string) => createHmac("sha256", key()).update(payload).digest();

export function createPreferenceToken(c: PreferenceLinkClaims): string {
  const payload = Buffer.from(JSON.stringify({ v: "1", t: c.tenantId, e: c.environment, s: c.subscriberId, x: c.expiresAt })).toString("base64url");
  return `${payload}.${sign(payload).toString("base64url")}`;
}

export type TokenCheck = { ok: true; claims: PreferenceLinkClaims } | { ok: false; reason: "invalid" | "expired" };

/** The claims of a well-signed, unexpired token; "invalid" for anything malformed or tampered. */
export function verifyPreferenceToken(token: string, nowMs = Date.now()): TokenCheck {
  if (typeof token !== "string" || token.length > 2048) return { ok: false, reason: "invalid" };
  const parts = token.split(".");
  if (parts.length !== 2 || !parts[0] || !parts[1]) return { ok: false, reason: "invalid" };
  const [payload, sig] = parts as [string, string];
  if (!/^[A-Za-z0-9_-]+$/.test(payload) || !/^[A-Za-z0-9_-]+$/.test(sig)) return { ok: false, reason: "invalid" };
  const given = Buffer.from(sig, "base64url");
  const expected = sign(payload);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: "invalid" };
  try {
    const b = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
    if (b?.v !== "1" || typeof b.t !== "string" || typeof b.e !== "string" || typeof b.s !== "string" || typeof b.x !== "number") {
      return { ok: false, reason: "invalid" };
    }
    if (b.x * 1000 <= nowMs) return { ok: false, reason: "expired" };
    return { ok: true, claims: { tenantId: b.t, environment: b.e, subscriberId: b.s, expiresAt: b.x } };
  } catch {
    return { ok: false, reason: "invalid" };
  }
}

export function preferenceLink(c: Omit<PreferenceLinkClaims, "expiresAt">, ttlSeconds = DEFAULT_LINK_TTL_S, nowMs = Date.now()) {
  const expiresAt = Math.floor(nowMs / 1000) + ttlSeconds;
  const token = createPreferenceToken({ ...c, expiresAt });
  return { url: `${config.publicUrl.replace(/\/+$/, "")}/preferences/${token}`, expires_at: new Date(expiresAt * 1000).toISOString(), token };
}

/** What `{{ preferences_url }}` shows in a template preview, where no subscriber is known: a link of
 * the real shape whose token is the word "preview" (opening it shows the refused-link page). */
export function previewPreferencesUrl(): string {
  return `${config.publicUrl.replace(/\/+$/, "")}/preferences/preview`;
}
