// The `webpush` provider: RFC 8030 push to a browser PushSubscription, payload encrypted
// (RFC 8291 aes128gcm) and VAPID-signed by the web-push library, sent by our fetch under the deadline.
import webpush from "web-push";
import { ConfigChecks, stringSetting } from "../config-checks";
import { failureFromHttp, httpCall, summarise } from "../http-call";
import { failure, unregistered } from "../outcome";
import type { OutboundMessage, Provider, ProviderConfig, ProviderDefinition, ProviderDeps, SendResult } from "../types";

export interface PushSubscriptionJson {
  endpoint: string;
  expirationTime?: number | null;
  keys: { p256dh: string; auth: string };
}

function base64urlBytes(value: string): number {
  return /^[A-Za-z0-9_-]+={0,2}$/.test(value) ? Buffer.from(value, "base64url").length : -1;
}

/** the recipient is the browser's PushSubscription serialised as JSON text */
export function parseSubscription(to: string): PushSubscriptionJson | string {
  let value: unknown;
  try {
    value = JSON.parse(to);
  } catch {
    return "recipient must be a PushSubscription as JSON text";
  }
  const s = value as Partial<PushSubscriptionJson> | null;
  if (!s || typeof s !== "object" || typeof s.endpoint !== "string") return "subscription needs an endpoint";
  let url: URL;
  try {
    url = new URL(s.endpoint);
  } catch {
    return "subscription endpoint must be a URL";
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return "subscription endpoint must be an https URL";
  if (!s.keys || typeof s.keys.p256dh !== "string" || typeof s.keys.auth !== "string") {
    return "subscription needs keys.p256dh and keys.auth";
  }
  if (base64urlBytes(s.keys.p256dh) !== 65) return "subscription keys.p256dh must be a base64url P-256 public key (65 bytes)";
  if (base64urlBytes(s.keys.auth) !== 16) return "subscription keys.auth must be a base64url 16-byte secret";
  return s as PushSubscriptionJson;
}

export class WebpushProvider implements Provider {
  readonly name = "webpush";
  private readonly vapid: { subject: string; publicKey: string; privateKey: string };
  private readonly ttlSeconds: number;

  constructor(config: ProviderConfig, private readonly deps: ProviderDeps) {
    this.vapid = {
      subject: stringSetting(config.settings, "subject"),
      publicKey: stringSetting(config.credentials, "vapid_public_key"),
      privateKey: stringSetting(config.credentials, "vapid_private_key"),
    };
    const ttl = config.settings.ttl_seconds;
    this.ttlSeconds = typeof ttl === "number" && ttl >= 0 ? ttl : 86_400;
  }

  buildPayload(msg: OutboundMessage): string {
    return JSON.stringify({
      title: msg.title ?? msg.subject ?? "",
      body: msg.body ?? msg.content ?? msg.text ?? "",
      data: msg.data ?? {},
      notification_id: msg.notificationId,
    });
  }

  async send(msg: OutboundMessage, signal?: AbortSignal): Promise<SendResult> {
    const subscription = parseSubscription(msg.to);
    if (typeof subscription === "string") return failure(false, "invalid_subscription", subscription);
    // a tenant-supplied endpoint is an outbound URL: plain http only where the host allowed it (local tests)
    if (subscription.endpoint.startsWith("http:") && !this.deps.allowHttpEndpoints) {
      return failure(false, "invalid_subscription", "subscription endpoint must be an https URL");
    }
    let details: { headers: Record<string, string | number>; body: Buffer | null; endpoint: string };
    try {
      details = webpush.generateRequestDetails(subscription, this.buildPayload(msg), {
        vapidDetails: this.vapid,
        TTL: this.ttlSeconds,
      }) as unknown as typeof details;
    } catch (err) {
      return failure(false, "webpush_invalid_request", (err as Error).message);
    }
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(details.headers)) headers[k.toLowerCase()] = String(v);
    const call = await httpCall(
      { url: details.endpoint, headers, body: details.body ? new Uint8Array(details.body) : undefined },
      this.deps,
      signal,
    );
    if (!call.ok) return call.failure;
    const res = call.res;
    if (res.status >= 200 && res.status < 300) {
      // push services name the created message resource in Location (RFC 8030 5)
      const location = res.headers.get("location");
      return {
        ok: true,
        providerMessageId: location || `webpush_${msg.notificationId}`,
        response: summarise(res, location ? { location } : {}),
      };
    }
    if (res.status === 404 || res.status === 410) {
      // the subscription is gone for good (RFC 8030 7.3): the sender suppresses it from now on
      return unregistered(failureFromHttp(res, { code: "subscription_expired", message: "push subscription is gone; remove it", retryable: false }));
    }
    const b = res.body as { message?: unknown; error?: unknown } | string | null;
    const message = typeof b === "string" ? b : typeof b?.message === "string" ? b.message : typeof b?.error === "string" ? b.error : undefined;
    return failureFromHttp(res, { code: res.status === 413 ? "payload_too_large" : undefined, message });
  }
}

export const webpushDefinition: ProviderDefinition = {
  name: "webpush",
  channels: ["push"],
  defaultRateLimitPerSecond: 200,
  credentialFields: [
    { name: "vapid_public_key", required: true, description: "VAPID public key (base64url, 65-byte P-256 point)", type: "string" },
    { name: "vapid_private_key", required: true, description: "VAPID private key (base64url, 32 bytes)", type: "string" },
  ],
  settingFields: [
    { name: "subject", required: true, description: "contact for the push service: mailto: address or https URL", type: "string" },
    { name: "ttl_seconds", required: false, description: "how long the push service keeps an undelivered message (default 86400)", type: "integer" },
    { name: "rate_limit_per_second", required: false, description: "sends per second (default 200)", type: "number" },
  ],
  validate(credentials, settings) {
    const checks = new ConfigChecks(credentials, settings);
    const pub = checks.requireString("credentials", "vapid_public_key");
    if (pub !== undefined && base64urlBytes(pub) !== 65) {
      checks.add("credentials", "vapid_public_key", "must be a base64url P-256 public key (65 bytes)");
    }
    const priv = checks.requireString("credentials", "vapid_private_key");
    if (priv !== undefined && base64urlBytes(priv) !== 32) {
      checks.add("credentials", "vapid_private_key", "must be a base64url P-256 private key (32 bytes)");
    }
    const subject = checks.requireString("settings", "subject");
    if (subject !== undefined && !/^mailto:.+@.+/.test(subject) && !/^https:\/\/.+/.test(subject)) {
      checks.add("settings", "subject", "must be a mailto: address or an https URL");
    }
    if (checks.present("settings", "ttl_seconds")) {
      const ttl = settings.ttl_seconds;
      if (typeof ttl !== "number" || !Number.isInteger(ttl) || ttl < 0) {
        checks.add("settings", "ttl_seconds", "must be a non-negative integer");
      }
    }
    checks.sharedSettings();
    return checks.errors;
  },
  create(config, deps = {}) {
    return new WebpushProvider(config, deps);
  },
};
