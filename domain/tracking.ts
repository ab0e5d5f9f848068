// Email open and click tracking (channel settings track_opens / track_clicks): signed tokens naming a
// notification and a link index, the HTML rewrite done before the send, and the public routes' use cases.
import { createHmac, hkdfSync, timingSafeEqual } from "node:crypto";
import { config } from "../config";
import { AppError } from "../basics/errors";
import { isUuid } from "../store/ids";
import { findNotificationContent } from "../store/notifications";
import { applyReceipt } from "./receipts";

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

// ---------------------------------------------------------------------------------------------
// The HTML pass (Bun's HTMLRewriter, a streaming HTML parser): which links are tracked, in order.

// HTMLRewriter hands attribute values over as written: entities still encoded. URLs carry few.
const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };
function decodeAttribute(value: string): string {
  return value.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, e: string) => {
    if (e[0] === "#") {
      const code = e[1] === "x" || e[1] === "X" ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[e.toLowerCase()] ?? whole;
  });
}

/** A link worth tracking: an absolute http(s) URL (not mailto:, tel:, #anchors or relative ones). */
function trackable(href: string): string | null {
  const url = decodeAttribute(href).trim();
  if (!/^https?:\/\//i.test(url)) return null;
  try {
    new URL(url);
    return url;
  } catch {
    return null;
  }
}

/**
 * One pass over the message's HTML: collects every trackable `<a href>` in document order (the link
 * index of its token) and, when asked, points it at its click URL and adds the open pixel.
 */
function htmlPass(html: string, rewrite: { notificationId: string; opens: boolean; clicks: boolean } | null): { html: string; links: string[] } {
  const links: string[] = [];
  let bodyClosed = false;
  const pixel = rewrite?.opens
    ? `<img src="${trackingUrl("open", createTrackingToken("open", rewrite.notificationId))}" width="1" height="1" alt="" ` +
      `style="display:block;width:1px;height:1px;border:0;margin:0;padding:0" />`
    : "";
  let rewriter = new HTMLRewriter().on("a[href]", {
    element(el) {
      const url = trackable(el.getAttribute("href") ?? "");
      if (url === null) return;
      const index = links.push(url) - 1;
      if (rewrite?.clicks && index <= 0xffff) el.setAttribute("href", trackingUrl("click", createTrackingToken("click", rewrite.notificationId, index)));
    },
  });
  if (pixel) {
    rewriter = rewriter.on("body", {
      element(el) {
        el.onEndTag((end) => {
          end.before(pixel, { html: true });
          bodyClosed = true;
        });
      },
    });
  }
  const out = rewriter.transform(html);
  // a fragment without <body>: the pixel goes at the end
  return { html: pixel && !bodyClosed ? out + pixel : out, links };
}

/** The tracked links of a message's HTML, in the order their tokens number them. */
export function trackedLinks(html: string): string[] {
  return htmlPass(html, null).links;
}

/** The HTML as sent: links through /track/click/<token> (clicks), a 1x1 pixel before </body> (opens). */
export function withTracking(html: string, notificationId: string, opts: { opens: boolean; clicks: boolean }): string {
  if (!opts.opens && !opts.clicks) return html;
  return htmlPass(html, { notificationId, ...opts }).html;
}

// ---------------------------------------------------------------------------------------------
// The public routes' use cases.

const invalidToken = () => new AppError("invalid_token", "The tracking link is invalid or has been tampered with");

interface Visitor {
  ip: string | null;
  userAgent: string | null;
}

/** GET /track/open/:token: records the first open. A valid token answers the pixel even when nothing is recorded. */
export async function recordOpen(token: string, who: Visitor): Promise<void> {
  const claims = verifyTrackingToken(token, "open");
  if (!claims) throw invalidToken();
  await applyReceipt(
    { kind: "notification", notificationId: claims.notificationId },
    { kind: "opened", at: new Date(), providerStatus: "open", source: "tracking", ip: who.ip, userAgent: who.userAgent },
  );
}

/**
 * GET /track/click/:token: the original URL of link `index` of the message as stored at acceptance,
 * after recording the click. The URL only ever comes from the message: a token cannot name another.
 */
export async function recordClick(token: string, who: Visitor): Promise<string> {
  const claims = verifyTrackingToken(token, "click");
  if (!claims || !isUuid(claims.notificationId)) throw invalidToken();
  const n = await findNotificationContent(claims.notificationId);
  const html = typeof n?.content?.html === "string" ? n.content.html : null;
  const url = html ? trackedLinks(html)[claims.linkIndex] : undefined;
  // gone with an erasure, or an index the message never had
  if (!url) throw new AppError("link_not_found", "This link is no longer available");
  await applyReceipt(
    { kind: "notification", notificationId: claims.notificationId },
    {
      kind: "clicked",
      at: new Date(),
      providerStatus: "click",
      source: "tracking",
      url,
      linkIndex: claims.linkIndex,
      ip: who.ip,
      userAgent: who.userAgent,
    },
  );
  return url;
}
