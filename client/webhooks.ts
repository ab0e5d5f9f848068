// Receiving NMS webhooks: verify X-Service-Signature (`sha256=` + hex HMAC-SHA256 of the raw body)
// or the Standard Webhooks headers (webhook-id/-timestamp/-signature) with Web Crypto, then parse the event.
import type { WebhookEvent } from "./types.js";

export const SIGNATURE_HEADER = "X-Service-Signature";

const SIGNATURE_RE = /^sha256=([0-9a-f]{64})$/i;
/** Standard Webhooks secrets: `whsec_` + base64 of 24 to 64 random bytes (schemas/webhook-signature.ts). */
const WHSEC_RE = /^whsec_([A-Za-z0-9+/]+={0,2})$/;
const BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
/** Default window of webhook-timestamp around now, as the Standard Webhooks libraries use. */
const DEFAULT_TOLERANCE_SECONDS = 300;
const encoder = new TextEncoder();

/** Thrown by parseWebhookEvent: the request did not come from NMS (or was altered), or is not an event. */
export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "WebhookVerificationError";
  }
}

export type RawBody = string | ArrayBuffer | ArrayBufferView;

function bytesOf(body: RawBody): Uint8Array<ArrayBuffer> {
  if (typeof body === "string") return encoder.encode(body);
  const view = body instanceof ArrayBuffer ? new Uint8Array(body) : new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  return new Uint8Array(view); // a copy: Web Crypto refuses views of a SharedArrayBuffer
}

function hexBytes(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/** Time depends on the length only (always 32 here), never on where the bytes differ. */
function equalConstantTime(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

function concat(...parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

async function hmacSha256(key: Uint8Array<ArrayBuffer>, data: Uint8Array<ArrayBuffer>): Promise<Uint8Array> {
  const k = await crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return new Uint8Array(await crypto.subtle.sign("HMAC", k, data));
}

/**
 * Base64 decoded the way the server's Buffer.from(s, "base64") does it, trailing bits that make no
 * whole byte dropped (atob would throw there), so a malformed secret gets the key the server used.
 */
function base64Bytes(text: string): Uint8Array<ArrayBuffer> {
  const out: number[] = [];
  let bits = 0;
  let acc = 0;
  for (const ch of text.replace(/=+$/, "")) {
    acc = (acc << 6) | BASE64.indexOf(ch);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push((acc >> bits) & 0xff);
    }
  }
  return new Uint8Array(out);
}

function base64Of(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes));
}

/** The key of webhook-signature: a `whsec_` secret's decoded bytes (24 to 64 of them), else the secret's UTF-8 bytes. */
function standardKeyOf(secret: string): Uint8Array<ArrayBuffer> {
  const m = WHSEC_RE.exec(secret);
  if (m) {
    const bytes = base64Bytes(m[1]!);
    if (bytes.length >= 24 && bytes.length <= 64) return bytes;
  }
  return encoder.encode(secret);
}

/**
 * True when `header` (the X-Service-Signature value) signs `rawBody` with `secret`. Pass the body
 * exactly as received (text or bytes), never a re-serialised JSON object: one changed byte fails.
 */
export async function verifyWebhookSignature(rawBody: RawBody, header: string | null | undefined, secret: string): Promise<boolean> {
  if (typeof header !== "string" || typeof secret !== "string" || secret === "") return false;
  const m = SIGNATURE_RE.exec(header.trim());
  if (!m) return false;
  const expected = await hmacSha256(encoder.encode(secret), bytesOf(rawBody));
  return equalConstantTime(expected, hexBytes(m[1]!.toLowerCase()));
}

/** The three Standard Webhooks headers: a fetch `Headers`, or a plain object such as Express's `req.headers`. */
export type StandardWebhookHeaders =
  | Headers
  | {
      "webhook-id"?: string | string[] | null;
      "webhook-timestamp"?: string | string[] | null;
      "webhook-signature"?: string | string[] | null;
      [name: string]: unknown;
    };

export interface StandardWebhookOptions {
  /** How far webhook-timestamp may be from now, either way; default 300 s. */
  toleranceSeconds?: number;
  /** "Now" in Unix seconds (tests); default the clock. */
  nowSeconds?: number;
}

function headerOf(headers: StandardWebhookHeaders, name: string): string | undefined {
  if (typeof Headers !== "undefined" && headers instanceof Headers) return headers.get(name) ?? undefined;
  const record = headers as Record<string, unknown>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const v = key === undefined ? undefined : record[key];
  if (Array.isArray(v)) return typeof v[0] === "string" ? v[0] : undefined;
  return typeof v === "string" ? v : undefined;
}

/**
 * True when the Standard Webhooks headers sign `rawBody` with `secret`: one `v1,<base64 HMAC-SHA256
 * of "<webhook-id>.<webhook-timestamp>.<body>">` among the space-separated signatures matches, and
 * webhook-timestamp is within `toleranceSeconds` of now (which refuses a replay of an old request).
 * A `whsec_` secret keys it with its decoded bytes, as in every Standard Webhooks library.
 */
export async function verifyStandardWebhook(
  rawBody: RawBody,
  headers: StandardWebhookHeaders | null | undefined,
  secret: string,
  opts: StandardWebhookOptions = {},
): Promise<boolean> {
  if (!headers || typeof secret !== "string" || secret === "") return false;
  const id = headerOf(headers, "webhook-id");
  const ts = headerOf(headers, "webhook-timestamp");
  const signatures = headerOf(headers, "webhook-signature");
  if (!id || !ts || !signatures || !/^\d+$/.test(ts)) return false;
  const now = opts.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - Number(ts)) > (opts.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS)) return false;
  const mac = await hmacSha256(standardKeyOf(secret), concat(encoder.encode(`${id}.${ts}.`), bytesOf(rawBody)));
  const expected = encoder.encode(`v1,${base64Of(mac)}`);
  let found = false;
  // every candidate is compared, so the time does not say which one matched
  for (const candidate of signatures.split(" ")) found = equalConstantTime(expected, encoder.encode(candidate)) || found;
  return found;
}

/** Verifies the signature, then returns the typed event; throws WebhookVerificationError otherwise. */
export async function parseWebhookEvent(rawBody: RawBody, header: string | null | undefined, secret: string): Promise<WebhookEvent> {
  if (!(await verifyWebhookSignature(rawBody, header, secret))) {
    throw new WebhookVerificationError(`${SIGNATURE_HEADER} does not match the body and secret`);
  }
  return eventOf(rawBody);
}

/** verifyStandardWebhook, then the typed event; throws WebhookVerificationError otherwise. */
export async function parseStandardWebhook(
  rawBody: RawBody,
  headers: StandardWebhookHeaders | null | undefined,
  secret: string,
  opts?: StandardWebhookOptions,
): Promise<WebhookEvent> {
  if (!(await verifyStandardWebhook(rawBody, headers, secret, opts))) {
    throw new WebhookVerificationError("webhook-signature does not match the body and secret, or webhook-timestamp is too old or too new");
  }
  return eventOf(rawBody);
}

function eventOf(rawBody: RawBody): WebhookEvent {
  let event: unknown;
  try {
    event = JSON.parse(typeof rawBody === "string" ? rawBody : new TextDecoder().decode(bytesOf(rawBody)));
  } catch {
    throw new WebhookVerificationError("The body is not JSON");
  }
  const e = event as Partial<WebhookEvent> | null;
  if (
    !e ||
    typeof e.id !== "string" ||
    typeof e.type !== "string" ||
    typeof e.created_at !== "string" ||
    typeof e.data !== "object" ||
    e.data === null
  ) {
    throw new WebhookVerificationError("The body is not an event: id, type, created_at and data are required");
  }
  return e as WebhookEvent;
}
