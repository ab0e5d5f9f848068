// Tracking tokens (channel settings track_opens / track_clicks): signed, self-contained tokens naming a
// notification and a link index, and the public URL that carries one. Made at send, checked on a visit.
import { createHmac, hkdfSync, timingSafeEqual } from "node:crypto";
import { config } from "../../config";

export type TrackingKind = "open" | "click";

// A derived key, so the credential-encryption key itself never signs anything public.
let signingKey: Buffer | null = null;
function key(): Buffer {
  signingKey ??= Buffer.from(hkdfSync("sha256", config.encryptionKey, Buffer.alloc(0), Buffer.from("nms:tracking-token:v1"), 32));
  return signingKey;
}

const VERSION = 1;
const KIND_BYTE: Record<TrackingKind, number> = { open: 0x6f, click: 0x63 };
const BODY_BYTES = 1 + 1 + 16 + 2;
// 128 bits of HMAC-SHA256: forging one is as hard as guessing a random UUID, and URLs stay short
const MAC_BYTES = 16;

function mac(body: Buffer): Buffer {
  return createHmac("sha256", key()).update(body).digest().subarray(0, MAC_BYTES);
}

/**
 * `base64url(version, kind, notification id (16 bytes), link index (u16) || HMAC)`: 48 characters,
 * nothing guessable and nothing readable but through the service's key.
 */
export function createTrackingToken(kind: TrackingKind, notificationId: string, linkIndex = 0): string {
  const body = Buffer.alloc(BODY_BYTES);
  body[0] = VERSION;
  body[1] = KIND_BYTE[kind];
  Buffer.from(notificationId.replace(/-/g, ""), "hex").copy(body, 2);
  body.writeUInt16BE(linkIndex, 18);
  return Buffer.concat([body, mac(body)]).toString("base64url");
}

/** The claims of a token of `kind`, or null for anything malformed, tampered, of the other kind or another key. */
export function verifyTrackingToken(token: string, kind: TrackingKind): { notificationId: string; linkIndex: number } | null {
  if (typeof token !== "string" || !/^[A-Za-z0-9_-]{40,80}$/.test(token)) return null;
  const raw = Buffer.from(token, "base64url");
  if (raw.length !== BODY_BYTES + MAC_BYTES) return null;
  const body = raw.subarray(0, BODY_BYTES);
  if (!timingSafeEqual(raw.subarray(BODY_BYTES), mac(body))) return null;
  if (body[0] !== VERSION || body[1] !== KIND_BYTE[kind]) return null;
  const hex = body.subarray(2, 18).toString("hex");
  const notificationId = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  return { notificationId, linkIndex: body.readUInt16BE(18) };
}

export function trackingUrl(kind: TrackingKind, token: string): string {
  return `${config.publicUrl.replace(/\/+$/, "")}/track/${kind}/${token}`;
}
