// The `sendgrid` email provider: v3 Mail Send (POST /v3/mail/send, Bearer api_key; X-Message-Id is the
// message id; errors {errors:[{message,field}]}), plus its ECDSA-signed Event Webhook read as receipts.
import { createPublicKey, verify, type KeyObject } from "node:crypto";
import { isEmailAddress } from "../../schemas/email";
import { ConfigChecks, joinUrl, stringSetting } from "../config-checks";
import { failureFromHttp, httpCall, summarise } from "../http-call";
import { failure, parseRateLimitReset, parseRetryAfter } from "../outcome";
import type {
  OutboundMessage,
  Provider,
  ProviderConfig,
  ProviderDefinition,
  ProviderDeps,
  ProviderReceipt,
  SendResult,
} from "../types";

export const SENDGRID_BASE_URL = "https://api.sendgrid.com";

interface SendgridError {
  message?: string;
  field?: string | null;
  help?: unknown;
}

/** SendGrid's error body: {errors: [{message, field, help}]}; joined into one message */
export function readSendgridError(body: unknown): { code?: string; message?: string } {
  const errors = (body as { errors?: SendgridError[] } | null)?.errors;
  if (!Array.isArray(errors) || errors.length === 0) return {};
  const message = errors
    .map((e) => (e.field ? `${e.field}: ${e.message ?? ""}` : (e.message ?? "")))
    .filter(Boolean)
    .join("; ");
  return { message };
}

export class SendgridProvider implements Provider {
  readonly name = "sendgrid";
  private readonly apiKey: string;
  private readonly baseUrl: string;
  private readonly fromEmail: string;
  private readonly fromName: string;
  private readonly ownTracking: { opens: boolean; clicks: boolean };

  constructor(config: ProviderConfig, private readonly deps: ProviderDeps) {
    this.apiKey = stringSetting(config.credentials, "api_key");
    this.baseUrl = stringSetting(config.settings, "base_url", SENDGRID_BASE_URL);
    this.fromEmail = stringSetting(config.settings, "from_email");
    this.fromName = stringSetting(config.settings, "from_name");
    this.ownTracking = { opens: config.settings.track_opens === true, clicks: config.settings.track_clicks === true };
  }

  buildBody(msg: OutboundMessage): Record<string, unknown> {
    const personalization: Record<string, unknown> = { to: [{ email: msg.to }] };
    const body: Record<string, unknown> = {
      personalizations: [personalization],
      from: this.fromName ? { email: this.fromEmail, name: this.fromName } : { email: this.fromEmail },
      // custom_args come back on SendGrid's event webhook, so events can be matched to our notification
      custom_args: { notification_id: msg.notificationId },
    };
    if (msg.providerTemplateId) {
      body.template_id = msg.providerTemplateId;
      if (msg.data) personalization.dynamic_template_data = msg.data;
      if (msg.subject) personalization.subject = msg.subject;
    } else {
      body.subject = msg.subject ?? "";
      // SendGrid requires text/plain before text/html and refuses empty values
      const content: { type: string; value: string }[] = [];
      const text = msg.text ?? msg.content;
      if (text) content.push({ type: "text/plain", value: text });
      if (msg.html) content.push({ type: "text/html", value: msg.html });
      body.content = content;
    }
    if (msg.headers && Object.keys(msg.headers).length > 0) body.headers = { ...msg.headers };
    // What NMS tracks itself (pixel, rewritten links: only in an HTML part NMS rendered) SendGrid
    // must not track again: its click tracking would wrap our tracked links a second time and count
    // every open twice. Dynamic templates keep SendGrid's own tracking, whose events are read too.
    if (msg.html && !msg.providerTemplateId && (this.ownTracking.opens || this.ownTracking.clicks)) {
      const tracking: Record<string, unknown> = {};
      if (this.ownTracking.clicks) tracking.click_tracking = { enable: false, enable_text: false };
      if (this.ownTracking.opens) tracking.open_tracking = { enable: false };
      body.tracking_settings = tracking;
    }
    return body;
  }

  async send(msg: OutboundMessage, signal?: AbortSignal): Promise<SendResult> {
    if (!msg.providerTemplateId && !msg.text && !msg.content && !msg.html) {
      return failure(false, "empty_content", "email has neither text nor html content");
    }
    const call = await httpCall(
      {
        url: joinUrl(this.baseUrl, "/v3/mail/send"),
        headers: { authorization: `Bearer ${this.apiKey}`, "content-type": "application/json" },
        body: JSON.stringify(this.buildBody(msg)),
      },
      this.deps,
      signal,
    );
    if (!call.ok) return call.failure;
    const res = call.res;
    if (res.status >= 200 && res.status < 300) {
      const messageId = res.headers.get("x-message-id");
      if (!messageId) {
        // accepted without an id: retrying would send twice, so it is a success we cannot track
        return { ok: true, providerMessageId: `sendgrid_${msg.notificationId}`, response: summarise(res) };
      }
      return { ok: true, providerMessageId: messageId, response: summarise(res, { message_id: messageId }) };
    }
    const retryAfterMs =
      parseRetryAfter(res.headers.get("retry-after")) ?? parseRateLimitReset(res.headers.get("x-ratelimit-reset"));
    return failureFromHttp(res, readSendgridError(res.body), retryAfterMs);
  }
}

// ---------------------------------------------------------------------------------------------
// Event Webhook (POST /webhooks/sendgrid/:channel_id): a JSON array of events, signed with ECDSA
// P-256 over timestamp + raw body (X-Twilio-Email-Event-Webhook-Signature / -Timestamp).

/** The verification key SendGrid shows (base64 of the DER SubjectPublicKeyInfo); null when it is not a P-256 key. */
export function sendgridPublicKey(base64Der: string): KeyObject | null {
  try {
    const key = createPublicKey({ key: Buffer.from(base64Der.replace(/\s+/g, ""), "base64"), format: "der", type: "spki" });
    if (key.asymmetricKeyType !== "ec" || key.asymmetricKeyDetails?.namedCurve !== "prime256v1") return null;
    return key;
  } catch {
    return null;
  }
}

/**
 * SendGrid's signed event webhook: the signature header is the base64 DER ECDSA signature (SHA-256)
 * of the timestamp header's value followed by the raw request body, under the public key above.
 */
export function verifySendgridSignature(
  publicKeyBase64: string,
  rawBody: string,
  signature: string | null | undefined,
  timestamp: string | null | undefined,
): boolean {
  if (!signature || !timestamp) return false;
  const key = sendgridPublicKey(publicKeyBase64);
  if (!key) return false;
  try {
    return verify("sha256", Buffer.from(timestamp + rawBody, "utf8"), key, Buffer.from(signature, "base64"));
  } catch {
    return false; // a malformed DER signature
  }
}

interface SendgridEvent {
  event?: unknown;
  sg_message_id?: unknown;
  sg_event_id?: unknown;
  timestamp?: unknown;
  reason?: unknown;
  response?: unknown;
  status?: unknown;
  type?: unknown;
  url?: unknown;
  ip?: unknown;
  useragent?: unknown;
}

const str = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);

/**
 * One event in our words, or null for events that say nothing about delivery or engagement
 * (deferred, unsubscribe, group_unsubscribe, group_resubscribe) or lack a message id:
 * processed -> sent, delivered -> delivered, bounce and dropped -> bounced, open -> opened,
 * click -> clicked, spamreport -> complained. A hard bounce (`type` bounce, not `blocked`), and a
 * drop for a bounced or invalid address, suppress the address as bounced; a spam report, and a drop
 * for a spam-reporting address, as complained.
 */
export function sendgridReceipt(raw: unknown, now = new Date()): ProviderReceipt | null {
  const e = (raw ?? {}) as SendgridEvent;
  const event = str(e.event);
  // sg_message_id is "<X-Message-Id>.<filter and queue suffix>"; the send stored the X-Message-Id
  const messageId = str(e.sg_message_id)?.split(".")[0];
  if (!event || !messageId) return null;
  const at = typeof e.timestamp === "number" && Number.isFinite(e.timestamp) ? new Date(e.timestamp * 1000) : now;
  const base = { messageId, at, providerStatus: event, ...(str(e.sg_event_id) ? { eventId: str(e.sg_event_id) } : {}) };
  switch (event) {
    case "processed":
      return { ...base, kind: "sent" };
    case "delivered":
      return { ...base, kind: "delivered" };
    case "bounce": {
      const hard = (str(e.type) ?? "bounce") === "bounce";
      const reason = str(e.reason) ?? str(e.response) ?? (hard ? "bounced" : "blocked by the receiving server");
      return {
        ...base,
        kind: "bounced",
        bounceReason: reason,
        error: { code: hard ? "sendgrid_bounce" : "sendgrid_blocked", message: reason },
        ...(hard ? { suppress: "bounced" as const } : {}),
      };
    }
    case "dropped": {
      const reason = str(e.reason) ?? "dropped";
      const suppress = /spam report/i.test(reason) ? ("complained" as const) : /bounced address|invalid/i.test(reason) ? ("bounced" as const) : undefined;
      return { ...base, kind: "bounced", bounceReason: reason, error: { code: "sendgrid_dropped", message: reason }, ...(suppress ? { suppress } : {}) };
    }
    case "open":
      return { ...base, kind: "opened", ip: str(e.ip) ?? null, userAgent: str(e.useragent) ?? null };
    case "click":
      return { ...base, kind: "clicked", ip: str(e.ip) ?? null, userAgent: str(e.useragent) ?? null, url: str(e.url) ?? null };
    case "spamreport":
      return { ...base, kind: "complained", complaintType: "abuse", suppress: "complained" };
    default:
      return null;
  }
}

export const sendgridDefinition: ProviderDefinition = {
  name: "sendgrid",
  channels: ["email"],
  defaultRateLimitPerSecond: 100,
  credentialFields: [{ name: "api_key", required: true, description: "SendGrid API key with Mail Send permission", type: "string" }],
  settingFields: [
    { name: "from_email", required: true, description: "verified sender address", type: "string" },
    { name: "from_name", required: false, description: "sender display name", type: "string" },
    { name: "base_url", required: false, description: `API base URL (default ${SENDGRID_BASE_URL})`, type: "string" },
    { name: "rate_limit_per_second", required: false, description: "sends per second (default 100)", type: "number" },
    {
      name: "event_webhook_public_key",
      required: false,
      description: "the Event Webhook verification key SendGrid shows (base64); events are refused until it is set",
      type: "string",
    },
    { name: "track_opens", required: false, description: "add an open-tracking pixel to HTML emails (default false)", type: "boolean" },
    { name: "track_clicks", required: false, description: "rewrite the links of HTML emails to count clicks (default false)", type: "boolean" },
  ],
  validate(credentials, settings) {
    const checks = new ConfigChecks(credentials, settings);
    checks.requireString("credentials", "api_key");
    const from = checks.requireString("settings", "from_email");
    if (from !== undefined && !isEmailAddress(from)) checks.add("settings", "from_email", "must be an email address");
    checks.optionalString("settings", "from_name");
    checks.optionalUrl("settings", "base_url");
    const key = checks.optionalString("settings", "event_webhook_public_key");
    if (key !== undefined && !sendgridPublicKey(key)) {
      checks.add("settings", "event_webhook_public_key", "must be the base64 P-256 public key SendGrid shows for the signed Event Webhook");
    }
    checks.optionalBoolean("settings", "track_opens");
    checks.optionalBoolean("settings", "track_clicks");
    checks.sharedSettings();
    return checks.errors;
  },
  create(config, deps = {}) {
    return new SendgridProvider(config, deps);
  },
};
