// Receiving NMS webhooks: verify X-Service-Signature (`sha256=` + lowercase hex HMAC-SHA256 of
// the raw body, keyed by the signing secret) in constant time with Web Crypto, then parse the event.
import type { WebhookEvent } from "./types";

export const SIGNATURE_HEADER = "X-Service-Signature";

const SIGNATURE_RE = /^sha256=([0-9a-f]{64})$/i;
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

/**
 * True when `header` (the X-Service-Signature value) signs `rawBody` with `secret`. Pass the body
 * exactly as received (text or bytes), never a re-serialised JSON object: one changed byte fails.
 */
export async function verifyWebhookSignature(rawBody: RawBody, header: string | null | undefined, secret: string): Promise<boolean> {
  if (typeof header !== "string" || typeof secret !== "string" || secret === "") return false;
  const m = SIGNATURE_RE.exec(header.trim());
  if (!m) return false;
  const key = await crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const expected = new Uint8Array(await crypto.subtle.sign("HMAC", key, bytesOf(rawBody)));
  return equalConstantTime(expected, hexBytes(m[1]!.toLowerCase()));
}

/** Verifies the signature, then returns the typed event; throws WebhookVerificationError otherwise. */
export async function parseWebhookEvent(rawBody: RawBody, header: string | null | undefined, secret: string): Promise<WebhookEvent> {
  if (!(await verifyWebhookSignature(rawBody, header, secret))) {
    throw new WebhookVerificationError(`${SIGNATURE_HEADER} does not match the body and secret`);
  }
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
