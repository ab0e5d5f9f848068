// The links a sent message carries back to NMS, added just before the provider call: the status
// callback URL of the channel configuration that sends it (Twilio, Vonage) and, for email, open and click tracking.
import { config } from "../../config";
import type { OutboundMessage } from "../../providers/types";
import { withTracking } from "./tracking-links";

/** Providers that take a status callback URL with each message; others are configured once at the provider. */
const PER_MESSAGE_CALLBACK = new Set(["twilio", "vonage"]);

/** The public callback URL of a channel configuration: `PUBLIC_URL/webhooks/<provider>/<channel id>`. */
export function callbackUrl(provider: string, channelId: string): string {
  return `${config.publicUrl.replace(/\/+$/, "")}/webhooks/${provider}/${channelId}`;
}

/**
 * The URL a provider signed (Twilio signs the URL it was given): PUBLIC_URL with the request's path
 * and query, so a proxy in front of the service, which changes the host and scheme, breaks nothing.
 */
export function signedUrlOf(requestUrl: string): string {
  const u = new URL(requestUrl);
  return `${config.publicUrl.replace(/\/+$/, "")}${u.pathname}${u.search}`;
}

export interface OutboundTarget {
  provider: string;
  /** the channel configuration's id; null for the built-in providers */
  channelId: string | null;
  settings: Record<string, unknown>;
}

/** The message as the provider must send it. Pure: the same notification always gets the same tokens. */
export function prepareOutbound(msg: OutboundMessage, target: OutboundTarget): OutboundMessage {
  const out: OutboundMessage = { ...msg };
  if (target.channelId && PER_MESSAGE_CALLBACK.has(target.provider)) out.statusCallbackUrl = callbackUrl(target.provider, target.channelId);
  const opens = target.settings.track_opens === true;
  const clicks = target.settings.track_clicks === true;
  if (msg.channel === "email" && msg.html && (opens || clicks)) out.html = withTracking(msg.html, msg.notificationId, { opens, clicks });
  return out;
}
