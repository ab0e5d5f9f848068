// What a receiver gets (SPEC "Outbound webhook delivery"): the body {id, type, created_at, data},
// the X-Service-Signature and Standard Webhooks headers, sent by one signed POST.
import { config } from "../../config";
import { serviceSignature, standardSignature } from "../../schemas/webhook-signature";
import { openSecret } from "../../store/webhooks";
import { postToReceiver, type PostOptions, type ReceiverOutcome } from "./transport";

export const USER_AGENT = `NMS-Webhooks/${config.version}`;

export interface OutgoingEvent {
  id: string;
  type: string;
  created_at: string;
  data: Record<string, unknown>;
}

/** The exact bytes that are signed and sent. */
export function eventBody(e: OutgoingEvent): string {
  return JSON.stringify({ id: e.id, type: e.type, created_at: e.created_at, data: e.data });
}

/**
 * Headers of one attempt: `webhook-id` is the event id (so a duplicate carries the same one),
 * `webhook-timestamp` the send time in seconds (receivers reject old ones: replay protection).
 */
export function signedHeaders(secret: string, eventId: string, body: string, nowSeconds = Math.floor(Date.now() / 1000)): Record<string, string> {
  return {
    "content-type": "application/json",
    "user-agent": USER_AGENT,
    "x-service-signature": serviceSignature(secret, body),
    "webhook-id": eventId,
    "webhook-timestamp": String(nowSeconds),
    "webhook-signature": standardSignature(secret, eventId, nowSeconds, body),
  };
}

// Decrypting per attempt costs little, but thousands per second add up: ciphertext -> secret.
const MAX_SECRETS = 10_000;
const secrets = new Map<string, string>();

/** The webhook's signing secret (cached by its ciphertext, so a changed secret is never stale). */
export function secretOf(w: { id: string; secret_enc: string }): string {
  const hit = secrets.get(w.secret_enc);
  if (hit !== undefined) return hit;
  const secret = openSecret(w);
  if (secrets.size >= MAX_SECRETS) secrets.clear();
  secrets.set(w.secret_enc, secret);
  return secret;
}

/** Signs and POSTs one event to `url`; never throws. */
export async function sendEvent(url: string, secret: string, e: OutgoingEvent, opts: Partial<PostOptions> = {}): Promise<ReceiverOutcome> {
  const body = eventBody(e);
  return await postToReceiver(url, body, signedHeaders(secret, e.id, body), { allowPrivate: config.webhookAllowPrivate, ...opts });
}
