// The `postmark` email provider: POST /email (or /email/withTemplate) with X-Postmark-Server-Token;
// MessageID is the message id; errors {ErrorCode, Message}; plus its webhooks (basic auth) read as receipts.
import { createHash, timingSafeEqual } from "node:crypto";
import { isEmailAddress } from "../../schemas/email";
import { ConfigChecks, joinUrl, stringSetting } from "../config-checks";
import { failureFromHttp, httpCall, summarise, type HttpCallResponse } from "../http-call";
import { callerFault, failure, parseRetryAfter } from "../outcome";
import type { OutboundMessage, Provider, ProviderConfig, ProviderDefinition, ProviderDeps, ProviderReceipt, SendFailure, SendResult } from "../types";

export const POSTMARK_BASE_URL = "https://api.postmarkapp.com";

// Postmark ErrorCodes about this one message: 300 invalid email request (a bad To), 406 inactive
// recipient (Postmark suppressed the address), 411 forbidden attachment type
const CALLER_FAULT_CODES = new Set([300, 406, 411]);

/** Postmark's error: {ErrorCode, Message}; the code becomes postmark_<ErrorCode>. */
export function postmarkFailure(res: HttpCallResponse): SendFailure {
  const b = res.body as { ErrorCode?: unknown; Message?: unknown } | null;
  const code = typeof b?.ErrorCode === "number" ? b.ErrorCode : undefined;
  const f = failureFromHttp(
    res,
    { code: code !== undefined && code !== 0 ? `postmark_${code}` : undefined, message: typeof b?.Message === "string" ? b.Message : undefined },
    parseRetryAfter(res.headers.get("retry-after")),
  );
  return code !== undefined && CALLER_FAULT_CODES.has(code) && !f.retryable ? callerFault(f) : f;
}

export class PostmarkProvider implements Provider {
  readonly name = "postmark";
  private readonly serverToken: string;
  private readonly baseUrl: string;
  private readonly fromEmail: string;
  private readonly fromName: string;
  private readonly messageStream: string;

  constructor(config: ProviderConfig, private readonly deps: ProviderDeps) {
    this.serverToken = stringSetting(config.credentials, "server_token");
    this.baseUrl = stringSetting(config.settings, "base_url", POSTMARK_BASE_URL);
    this.fromEmail = stringSetting(config.settings, "from_email");
    this.fromName = stringSetting(config.settings, "from_name");
    this.messageStream = stringSetting(config.settings, "message_stream", "outbound");
  }

  buildBody(msg: OutboundMessage): Record<string, unknown> {
    const body: Record<string, unknown> = {
      From: this.fromName ? `"${this.fromName.replace(/["\\]/g, "\\$&")}" <${this.fromEmail}>` : this.fromEmail,
      To: msg.to,
      MessageStream: this.messageStream,
      // Metadata comes back on every webhook of the message
      Metadata: { notification_id: msg.notificationId },
    };
    if (msg.headers && Object.keys(msg.headers).length > 0) body.Headers = Object.entries(msg.headers).map(([Name, Value]) => ({ Name, Value }));
    if (msg.providerTemplateId) {
      // a numeric id is a TemplateId, anything else the template's alias
      if (/^\d+$/.test(msg.providerTemplateId)) body.TemplateId = Number(msg.providerTemplateId);
      else body.TemplateAlias = msg.providerTemplateId;
      body.TemplateModel = msg.data ?? {};
      return body;
    }
    body.Subject = msg.subject ?? "";
    const text = msg.text ?? msg.content;
    if (text) body.TextBody = text;
    if (msg.html) body.HtmlBody = msg.html;
    return body;
  }

  async send(msg: OutboundMessage, signal?: AbortSignal): Promise<SendResult> {
    if (!msg.providerTemplateId && !msg.text && !msg.content && !msg.html) {
      return failure(false, "empty_content", "email has neither text nor html content");
    }
    const call = await httpCall(
      {
        url: joinUrl(this.baseUrl, msg.providerTemplateId ? "/email/withTemplate" : "/email"),
        headers: { accept: "application/json", "content-type": "application/json", "x-postmark-server-token": this.serverToken },
        body: JSON.stringify(this.buildBody(msg)),
      },
      this.deps,
      signal,
    );
    if (!call.ok) return call.failure;
    const res = call.res;
    const b = res.body as { MessageID?: unknown; ErrorCode?: unknown } | null;
    if (res.status >= 200 && res.status < 300 && (b?.ErrorCode === 0 || b?.ErrorCode === undefined)) {
      if (typeof b?.MessageID !== "string" || b.MessageID === "") {
        return failure(false, "invalid_response", "Postmark accepted the email without a MessageID", { response: summarise(res) });
      }
      return { ok: true, providerMessageId: b.MessageID, response: summarise(res) };
    }
    return postmarkFailure(res);
  }
}

// ---------------------------------------------------------------------------------------------
// Webhooks (POST /webhooks/postmark/:channel_id): Postmark signs nothing; the webhook URL carries
// HTTP basic auth credentials (https://user:password@host/...), checked here.

const digest = (s: string) => createHash("sha256").update(s, "utf8").digest();

/** The Authorization header of a webhook against the channel's webhook_username / webhook_password; constant-time. */
export function verifyPostmarkBasicAuth(authorization: string | null | undefined, username: string, password: string): boolean {
  if (!authorization || !username || !password) return false;
  const m = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(authorization.trim());
  if (!m) return false;
  const given = Buffer.from(m[1]!, "base64").toString("utf8");
  // hashing first makes the comparison constant-time whatever the lengths
  return timingSafeEqual(digest(given), digest(`${username}:${password}`));
}

const str = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);
const when = (v: unknown, now: Date): Date => {
  const t = typeof v === "string" ? Date.parse(v) : NaN;
  return Number.isNaN(t) ? now : new Date(t);
};

// bounce types that are not a failed delivery (Postmark's Bounce webhook reports them too)
const INFORMATIONAL_BOUNCES = new Set(["Transient", "Unsubscribe", "Subscribe", "AutoResponder", "AddressChange", "OpenRelayTest", "ChallengeVerification", "SoftBounce", "DnsError"]);
const HARD_BOUNCES = new Set(["HardBounce", "BadEmailAddress", "ManuallyDeactivated"]);

/**
 * One webhook in our words, or null: Delivery -> delivered, Bounce -> bounced (a hard bounce, or an
 * address Postmark made inactive, is suppressed; transient, soft and informational bounces are
 * ignored), SpamComplaint -> complained, Open -> opened, Click -> clicked; others (SubscriptionChange) null.
 */
export function postmarkReceipt(raw: unknown, now = new Date()): ProviderReceipt | null {
  const e = (raw ?? {}) as Record<string, any>;
  const type = str(e.RecordType);
  const messageId = str(e.MessageID);
  if (!type || !messageId) return null;
  const eventId = e.ID !== undefined && e.ID !== null ? { eventId: `${type}:${String(e.ID)}` } : {};
  switch (type) {
    case "Delivery":
      return { messageId, kind: "delivered", at: when(e.DeliveredAt, now), providerStatus: "Delivery" };
    case "Bounce": {
      const bounceType = str(e.Type) ?? "Unknown";
      if (INFORMATIONAL_BOUNCES.has(bounceType) && e.Inactive !== true) return null;
      const reason = str(e.Description) ?? str(e.Details) ?? str(e.Name) ?? "bounced";
      return {
        messageId,
        kind: "bounced",
        at: when(e.BouncedAt, now),
        providerStatus: `Bounce:${bounceType}`,
        bounceReason: reason,
        error: { code: `postmark_${bounceType.replace(/[A-Z]/g, (c, i) => (i ? "_" : "") + c.toLowerCase())}`, message: reason },
        ...(HARD_BOUNCES.has(bounceType) || e.Inactive === true ? { suppress: "bounced" as const } : {}),
        ...eventId,
      };
    }
    case "SpamComplaint":
      return { messageId, kind: "complained", at: when(e.BouncedAt, now), providerStatus: "SpamComplaint", complaintType: "abuse", suppress: "complained", ...eventId };
    case "Open":
      return { messageId, kind: "opened", at: when(e.ReceivedAt, now), providerStatus: "Open", ip: str(e.Geo?.IP) ?? null, userAgent: str(e.UserAgent) ?? null };
    case "Click":
      return {
        messageId,
        kind: "clicked",
        at: when(e.ReceivedAt, now),
        providerStatus: "Click",
        ip: str(e.Geo?.IP) ?? null,
        userAgent: str(e.UserAgent) ?? null,
        url: str(e.OriginalLink) ?? null,
      };
    default:
      return null;
  }
}

export const postmarkDefinition: ProviderDefinition = {
  name: "postmark",
  channels: ["email"],
  defaultRateLimitPerSecond: 50,
  credentialFields: [
    { name: "server_token", required: true, description: "the Postmark Server API token (X-Postmark-Server-Token)", type: "string" },
    { name: "webhook_username", required: false, description: "basic auth user name put in the webhook URL; webhooks are refused until both are set", type: "string" },
    { name: "webhook_password", required: false, description: "basic auth password put in the webhook URL", type: "string" },
  ],
  settingFields: [
    { name: "from_email", required: true, description: "sender address (a confirmed Sender Signature or at a verified domain)", type: "string" },
    { name: "from_name", required: false, description: "sender display name", type: "string" },
    { name: "message_stream", required: false, description: "the transactional Message Stream id (default outbound)", type: "string" },
    { name: "base_url", required: false, description: `API base URL (default ${POSTMARK_BASE_URL})`, type: "string" },
    { name: "rate_limit_per_second", required: false, description: "sends per second (default 50)", type: "number" },
  ],
  validate(credentials, settings) {
    const checks = new ConfigChecks(credentials, settings);
    const token = checks.requireString("credentials", "server_token");
    if (token !== undefined && !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(token)) {
      checks.add("credentials", "server_token", "must be a Postmark Server API token (a UUID such as 3f0c3e7a-...)");
    }
    const user = checks.optionalString("credentials", "webhook_username");
    const password = checks.optionalString("credentials", "webhook_password");
    if (user !== undefined && user.includes(":")) checks.add("credentials", "webhook_username", "must not contain ':' (it is a basic auth user name)");
    if ((user === undefined) !== (password === undefined)) {
      const missing = user === undefined ? "webhook_username" : "webhook_password";
      checks.add("credentials", missing, "is required when the other webhook credential is set");
    }
    if (password !== undefined && password.length < 12) checks.add("credentials", "webhook_password", "must be at least 12 characters");
    const from = checks.requireString("settings", "from_email");
    if (from !== undefined && !isEmailAddress(from)) checks.add("settings", "from_email", "must be an email address");
    checks.optionalString("settings", "from_name");
    const stream = checks.optionalString("settings", "message_stream");
    if (stream !== undefined && !/^[a-z0-9-]{1,30}$/.test(stream)) checks.add("settings", "message_stream", "must be a Message Stream id: lower-case letters, digits and '-'");
    checks.optionalUrl("settings", "base_url");
    checks.sharedSettings();
    return checks.errors;
  },
  create(config, deps = {}) {
    return new PostmarkProvider(config, deps);
  },
};
