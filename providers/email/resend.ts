// The `resend` email provider: POST /emails (Bearer api_key, Idempotency-Key per notification); `id` is
// the message id; errors {statusCode, name, message}; plus its Svix-signed webhooks read as receipts.
import { createHmac, timingSafeEqual } from "node:crypto";
import { isEmailAddress } from "../../schemas/email";
import { ConfigChecks, joinUrl, stringSetting } from "../config-checks";
import { failureFromHttp, httpCall, summarise, type HttpCallResponse } from "../http-call";
import { callerFault, failure, parseRetryAfter } from "../outcome";
import type { OutboundMessage, Provider, ProviderConfig, ProviderDefinition, ProviderDeps, ProviderReceipt, SendFailure, SendResult } from "../types";

export const RESEND_BASE_URL = "https://api.resend.com";

// Resend error names about this one message (its fields), not the account or the sender
const CALLER_FAULT_NAMES = new Set(["validation_error", "invalid_parameter", "missing_required_field", "invalid_attachment"]);
// "later" whatever the status: another request with the same Idempotency-Key is still running
const RETRYABLE_NAMES = new Set(["concurrent_idempotent_requests", "rate_limit_exceeded", "daily_quota_exceeded", "application_error", "internal_server_error"]);
// a 429 that will not clear before the month ends: retrying only repeats it
const NOT_RETRYABLE_NAMES = new Set(["monthly_quota_exceeded"]);

/** ratelimit-reset: seconds until the window reopens (IETF RateLimit header fields draft) */
export function parseRateLimitResetSeconds(value: string | null | undefined): number | undefined {
  if (value == null || !/^\d+(\.\d+)?$/.test(value.trim())) return undefined;
  return Math.round(Number(value.trim()) * 1000);
}

export function resendFailure(res: HttpCallResponse): SendFailure {
  const b = res.body as { name?: unknown; message?: unknown } | null;
  const name = typeof b?.name === "string" ? b.name : undefined;
  const message = typeof b?.message === "string" ? b.message : undefined;
  const retryable = name && RETRYABLE_NAMES.has(name) ? true : name && NOT_RETRYABLE_NAMES.has(name) ? false : undefined;
  const f = failureFromHttp(
    res,
    { code: name ? `resend_${name}` : undefined, message, retryable },
    parseRetryAfter(res.headers.get("retry-after")) ?? parseRateLimitResetSeconds(res.headers.get("ratelimit-reset")),
  );
  // an unverified sending domain is also a validation_error (403): the configuration's, not the message's
  if (name && CALLER_FAULT_NAMES.has(name) && res.status === 422 && !/\bdomain\b|\bfrom\b/i.test(message ?? "")) return callerFault(f);
  return f;
}

export class ResendProvider implements Provider {
  readonly name = "resend";
  private readonly apiKey: string;
  private readonly baseUrl: string;
  private readonly fromEmail: string;
  private readonly fromName: string;

  constructor(config: ProviderConfig, private readonly deps: ProviderDeps) {
    this.apiKey = stringSetting(config.credentials, "api_key");
    this.baseUrl = stringSetting(config.settings, "base_url", RESEND_BASE_URL);
    this.fromEmail = stringSetting(config.settings, "from_email");
    this.fromName = stringSetting(config.settings, "from_name");
  }

  buildBody(msg: OutboundMessage): Record<string, unknown> {
    const body: Record<string, unknown> = {
      from: this.fromName ? `${this.fromName.replace(/[<>"]/g, "")} <${this.fromEmail}>` : this.fromEmail,
      to: [msg.to],
      // tags come back in every webhook event
      tags: [{ name: "notification_id", value: msg.notificationId }],
    };
    if (msg.subject !== undefined) body.subject = msg.subject;
    if (msg.providerTemplateId) {
      body.template = { id: msg.providerTemplateId, variables: msg.data ?? {} };
    } else {
      const text = msg.text ?? msg.content;
      if (text) body.text = text;
      if (msg.html) body.html = msg.html;
    }
    if (msg.headers && Object.keys(msg.headers).length > 0) body.headers = { ...msg.headers };
    return body;
  }

  async send(msg: OutboundMessage, signal?: AbortSignal): Promise<SendResult> {
    if (!msg.providerTemplateId && !msg.text && !msg.content && !msg.html) {
      return failure(false, "empty_content", "email has neither text nor html content");
    }
    const call = await httpCall(
      {
        url: joinUrl(this.baseUrl, "/emails"),
        headers: {
          authorization: `Bearer ${this.apiKey}`,
          "content-type": "application/json",
          // a retry after a timeout whose first request did reach Resend sends nothing twice (24 h)
          "idempotency-key": `nms/${msg.notificationId}`,
        },
        body: JSON.stringify(this.buildBody(msg)),
      },
      this.deps,
      signal,
    );
    if (!call.ok) return call.failure;
    const res = call.res;
    if (res.status >= 200 && res.status < 300) {
      const id = (res.body as { id?: unknown } | null)?.id;
      if (typeof id !== "string" || id === "") {
        return failure(false, "invalid_response", "Resend accepted the email without an id", { response: summarise(res) });
      }
      return { ok: true, providerMessageId: id, response: summarise(res) };
    }
    return resendFailure(res);
  }
}

// ---------------------------------------------------------------------------------------------
// Webhooks (POST /webhooks/resend/:channel_id), signed the Svix way (Standard Webhooks).

/** The signing secret Resend shows: "whsec_" + base64 of the key bytes; null when it is not that. */
export function svixKey(secret: string): Buffer | null {
  const m = /^whsec_([A-Za-z0-9+/]+={0,2})$/.exec(secret.trim());
  if (!m) return null;
  const key = Buffer.from(m[1]!, "base64");
  return key.length >= 16 ? key : null;
}

/**
 * Svix's signature: base64 HMAC-SHA256, keyed by the secret's bytes, of `${svix-id}.${svix-timestamp}.${body}`;
 * svix-signature lists one or more "v1,<signature>" separated by spaces (key rotation): any may match.
 */
export function verifySvixSignature(secret: string, q: { id: string | null; timestamp: string | null; signature: string | null; rawBody: string }): boolean {
  const key = svixKey(secret);
  if (!key || !q.id || !q.timestamp || !q.signature) return false;
  const expected = createHmac("sha256", key).update(`${q.id}.${q.timestamp}.${q.rawBody}`, "utf8").digest();
  return q.signature.split(" ").some((part) => {
    const [version, sig] = part.split(",", 2);
    if (version !== "v1" || !sig) return false;
    const given = Buffer.from(sig, "base64");
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

const str = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);

/**
 * One Resend event in our words, or null: email.sent -> sent, email.delivered -> delivered,
 * email.bounced -> bounced (a Permanent bounce suppresses), email.failed -> failed,
 * email.complained -> complained, email.opened, email.clicked; delivery_delayed and others null.
 */
export function resendReceipt(raw: unknown, eventId: string | undefined, now = new Date()): ProviderReceipt | null {
  const e = (raw ?? {}) as { type?: unknown; created_at?: unknown; data?: Record<string, any> };
  const type = str(e.type);
  const d = e.data ?? {};
  const messageId = str(d.email_id);
  if (!type || !messageId) return null;
  const t = typeof e.created_at === "string" ? Date.parse(e.created_at) : NaN;
  const base = { messageId, at: Number.isNaN(t) ? now : new Date(t), providerStatus: type, ...(eventId ? { eventId } : {}) };
  switch (type) {
    case "email.sent":
      return { ...base, kind: "sent" };
    case "email.delivered":
      return { ...base, kind: "delivered" };
    case "email.bounced": {
      const reason = str(d.bounce?.message) ?? "bounced";
      const permanent = (str(d.bounce?.type) ?? "Permanent") === "Permanent";
      return {
        ...base,
        kind: "bounced",
        bounceReason: reason,
        error: { code: permanent ? "resend_bounced" : "resend_bounced_transient", message: reason },
        ...(permanent ? { suppress: "bounced" as const } : {}),
      };
    }
    case "email.failed":
      return { ...base, kind: "failed", error: { code: "resend_failed", message: str(d.failed?.reason) ?? "Resend could not send the email" } };
    case "email.complained":
      return { ...base, kind: "complained", complaintType: "abuse", suppress: "complained" };
    case "email.opened":
      return { ...base, kind: "opened", ip: str(d.open?.ipAddress) ?? null, userAgent: str(d.open?.userAgent) ?? null };
    case "email.clicked":
      return { ...base, kind: "clicked", ip: str(d.click?.ipAddress) ?? null, userAgent: str(d.click?.userAgent) ?? null, url: str(d.click?.link) ?? null };
    default:
      return null;
  }
}

export const resendDefinition: ProviderDefinition = {
  name: "resend",
  channels: ["email"],
  defaultRateLimitPerSecond: 2,
  credentialFields: [
    { name: "api_key", required: true, description: "Resend API key (re_...) with sending access", type: "string" },
    { name: "webhook_secret", required: false, description: "the webhook's signing secret (whsec_...); webhook events are refused until it is set", type: "string" },
  ],
  settingFields: [
    { name: "from_email", required: true, description: "sender address at a domain verified in Resend", type: "string" },
    { name: "from_name", required: false, description: "sender display name", type: "string" },
    { name: "base_url", required: false, description: `API base URL (default ${RESEND_BASE_URL})`, type: "string" },
    { name: "rate_limit_per_second", required: false, description: "sends per second (default 2, Resend's default team limit)", type: "number" },
  ],
  validate(credentials, settings) {
    const checks = new ConfigChecks(credentials, settings);
    const key = checks.requireString("credentials", "api_key");
    if (key !== undefined && !/^re_[A-Za-z0-9_]{8,}$/.test(key)) checks.add("credentials", "api_key", "must be a Resend API key (re_...)");
    const secret = checks.optionalString("credentials", "webhook_secret");
    if (secret !== undefined && !svixKey(secret)) checks.add("credentials", "webhook_secret", "must be the webhook signing secret Resend shows (whsec_ followed by base64)");
    const from = checks.requireString("settings", "from_email");
    if (from !== undefined && !isEmailAddress(from)) checks.add("settings", "from_email", "must be an email address");
    checks.optionalString("settings", "from_name");
    checks.optionalUrl("settings", "base_url");
    checks.sharedSettings();
    return checks.errors;
  },
  create(config, deps = {}) {
    return new ResendProvider(config, deps);
  },
};
