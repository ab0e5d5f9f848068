// The `mailgun` email provider: Messages API (form POST /v3/{domain}/messages, basic auth api:key; the
// id without its <> is the message id), plus its HMAC-signed webhooks read as receipts.
import { createHmac, timingSafeEqual } from "node:crypto";
import { isEmailAddress } from "../../schemas/email";
import { ConfigChecks, joinUrl, stringSetting } from "../config-checks";
import { failureFromHttp, httpCall, summarise, type HttpCallResponse } from "../http-call";
import { callerFault, failure, parseRetryAfter } from "../outcome";
import type { OutboundMessage, Provider, ProviderConfig, ProviderDefinition, ProviderDeps, ProviderReceipt, SendFailure, SendResult } from "../types";

export const MAILGUN_BASE_URL = "https://api.mailgun.net";
export const MAILGUN_EU_BASE_URL = "https://api.eu.mailgun.net";

/** Mailgun's error body is {message} (JSON) or plain text ("Forbidden"); a 429 may say {"retry-seconds": n}. */
export function mailgunFailure(res: HttpCallResponse): SendFailure {
  const b = res.body as { message?: unknown; "retry-seconds"?: unknown } | string | null;
  const message = typeof b === "string" ? b : typeof b?.message === "string" ? b.message : undefined;
  const retrySeconds = b && typeof b === "object" && typeof b["retry-seconds"] === "number" ? b["retry-seconds"] * 1000 : undefined;
  const f = failureFromHttp(res, { message }, parseRetryAfter(res.headers.get("retry-after")) ?? retrySeconds);
  // a 400 is Mailgun refusing this message's parameters (an invalid `to`, an empty body): the request's
  // fault, unless it names the sender, which is the configuration's
  if (res.status === 400 && !/\bfrom\b|domain/i.test(message ?? "")) return callerFault(f);
  return f;
}

export class MailgunProvider implements Provider {
  readonly name = "mailgun";
  private readonly apiKey: string;
  private readonly domain: string;
  private readonly baseUrl: string;
  private readonly fromEmail: string;
  private readonly fromName: string;

  constructor(config: ProviderConfig, private readonly deps: ProviderDeps) {
    this.apiKey = stringSetting(config.credentials, "api_key");
    this.domain = stringSetting(config.settings, "domain");
    this.baseUrl = stringSetting(config.settings, "base_url", config.settings.region === "eu" ? MAILGUN_EU_BASE_URL : MAILGUN_BASE_URL);
    this.fromEmail = stringSetting(config.settings, "from_email");
    this.fromName = stringSetting(config.settings, "from_name");
  }

  buildForm(msg: OutboundMessage): URLSearchParams {
    const form = new URLSearchParams();
    form.set("from", this.fromName ? `"${this.fromName.replace(/["\\]/g, "\\$&")}" <${this.fromEmail}>` : this.fromEmail);
    form.set("to", msg.to);
    // a user variable comes back in every webhook event as user-variables.notification_id
    form.set("v:notification_id", msg.notificationId);
    if (msg.subject !== undefined) form.set("subject", msg.subject);
    if (msg.providerTemplateId) {
      form.set("template", msg.providerTemplateId);
      if (msg.data) form.set("t:variables", JSON.stringify(msg.data));
    } else {
      const text = msg.text ?? msg.content;
      if (text) form.set("text", text);
      if (msg.html) form.set("html", msg.html);
    }
    for (const [name, value] of Object.entries(msg.headers ?? {})) form.set(`h:${name}`, value);
    return form;
  }

  async send(msg: OutboundMessage, signal?: AbortSignal): Promise<SendResult> {
    if (!msg.providerTemplateId && !msg.text && !msg.content && !msg.html) {
      return failure(false, "empty_content", "email has neither text nor html content");
    }
    const auth = Buffer.from(`api:${this.apiKey}`).toString("base64");
    const call = await httpCall(
      {
        url: joinUrl(this.baseUrl, `/v3/${encodeURIComponent(this.domain)}/messages`),
        headers: { authorization: `Basic ${auth}`, "content-type": "application/x-www-form-urlencoded" },
        body: this.buildForm(msg).toString(),
      },
      this.deps,
      signal,
    );
    if (!call.ok) return call.failure;
    const res = call.res;
    if (res.status >= 200 && res.status < 300) {
      const id = (res.body as { id?: unknown } | null)?.id;
      if (typeof id !== "string" || id === "") {
        return failure(false, "invalid_response", "Mailgun accepted the email without an id", { response: summarise(res) });
      }
      // webhooks name the message by its Message-Id header, which has no angle brackets
      return { ok: true, providerMessageId: id.replace(/^<|>$/g, ""), response: summarise(res) };
    }
    return mailgunFailure(res);
  }
}

// ---------------------------------------------------------------------------------------------
// Webhooks (POST /webhooks/mailgun/:channel_id, JSON {signature: {timestamp, token, signature}, "event-data"}).

/**
 * Mailgun's webhook signature: hex HMAC-SHA256, keyed by the domain's HTTP webhook signing key, of
 * the timestamp followed by the token. Constant-time.
 */
export function verifyMailgunSignature(signingKey: string, sig: { timestamp?: unknown; token?: unknown; signature?: unknown } | null | undefined): boolean {
  if (!signingKey || !sig || typeof sig.timestamp !== "string" || typeof sig.token !== "string" || typeof sig.signature !== "string") return false;
  if (!/^[0-9a-f]{64}$/i.test(sig.signature)) return false;
  const expected = createHmac("sha256", signingKey).update(sig.timestamp + sig.token, "utf8").digest();
  return timingSafeEqual(Buffer.from(sig.signature, "hex"), expected);
}

const str = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);

/**
 * One event in our words, or null for events that say nothing final (a temporary failure Mailgun
 * retries itself, unsubscribed, stored): accepted -> sent, delivered -> delivered, failed permanent ->
 * bounced (suppressed when the address bounced), rejected -> failed, opened, clicked, complained.
 */
export function mailgunReceipt(eventData: unknown, now = new Date()): ProviderReceipt | null {
  const e = (eventData ?? {}) as Record<string, any>;
  const event = str(e.event);
  const messageId = str(e.message?.headers?.["message-id"])?.replace(/^<|>$/g, "");
  if (!event || !messageId) return null;
  const at = typeof e.timestamp === "number" && Number.isFinite(e.timestamp) ? new Date(Math.round(e.timestamp * 1000)) : now;
  const base = { messageId, at, providerStatus: event, ...(str(e.id) ? { eventId: str(e.id) } : {}) };
  const status = (e["delivery-status"] ?? {}) as Record<string, unknown>;
  switch (event) {
    case "accepted":
      return { ...base, kind: "sent" };
    case "delivered":
      return { ...base, kind: "delivered" };
    case "failed": {
      if (e.severity !== "permanent") return null;
      const reason = str(status.description) || str(status.message) || str(e.reason) || "permanent failure";
      const bounced = e.reason === "bounce" || e.reason === "suppress-bounce" || (typeof status.code === "number" && status.code >= 500);
      return {
        ...base,
        providerStatus: `failed:${str(e.reason) ?? "permanent"}`,
        kind: "bounced",
        bounceReason: reason,
        error: { code: `mailgun_${str(e.reason) ?? "failed"}`.replace(/-/g, "_"), message: reason },
        ...(bounced ? { suppress: "bounced" as const } : {}),
      };
    }
    case "rejected": {
      const reason = str(e.reject?.reason) ?? str(e.reason) ?? "rejected by Mailgun";
      return { ...base, kind: "failed", error: { code: "mailgun_rejected", message: reason } };
    }
    case "opened":
      return { ...base, kind: "opened", ip: str(e.ip) ?? null, userAgent: str(e["client-info"]?.["user-agent"]) ?? null };
    case "clicked":
      return { ...base, kind: "clicked", ip: str(e.ip) ?? null, userAgent: str(e["client-info"]?.["user-agent"]) ?? null, url: str(e.url) ?? null };
    case "complained":
      return { ...base, kind: "complained", complaintType: "abuse", suppress: "complained" };
    default:
      return null;
  }
}

export const mailgunDefinition: ProviderDefinition = {
  name: "mailgun",
  channels: ["email"],
  defaultRateLimitPerSecond: 50,
  credentialFields: [
    { name: "api_key", required: true, description: "Mailgun API key (a domain sending key is enough)", type: "string" },
    {
      name: "webhook_signing_key",
      required: false,
      description: "the HTTP webhook signing key (Sending > Webhooks); webhook events are refused until it is set",
      type: "string",
    },
  ],
  settingFields: [
    { name: "domain", required: true, description: "the sending domain as Mailgun names it, e.g. mg.acme.com", type: "string" },
    { name: "from_email", required: true, description: "sender address (at the sending domain)", type: "string" },
    { name: "from_name", required: false, description: "sender display name", type: "string" },
    { name: "region", required: false, description: "us (default) or eu: which Mailgun API the domain lives in", type: "string" },
    { name: "base_url", required: false, description: `API base URL (default ${MAILGUN_BASE_URL}, ${MAILGUN_EU_BASE_URL} for region eu)`, type: "string" },
    { name: "rate_limit_per_second", required: false, description: "sends per second (default 50)", type: "number" },
  ],
  validate(credentials, settings) {
    const checks = new ConfigChecks(credentials, settings);
    checks.requireString("credentials", "api_key");
    checks.optionalString("credentials", "webhook_signing_key");
    const domain = checks.requireString("settings", "domain");
    if (domain !== undefined && !/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i.test(domain)) {
      checks.add("settings", "domain", "must be a domain name such as mg.acme.com");
    }
    const from = checks.requireString("settings", "from_email");
    if (from !== undefined && !isEmailAddress(from)) checks.add("settings", "from_email", "must be an email address");
    checks.optionalString("settings", "from_name");
    const region = checks.optionalString("settings", "region");
    if (region !== undefined && region !== "us" && region !== "eu") checks.add("settings", "region", "must be us or eu");
    checks.optionalUrl("settings", "base_url");
    checks.sharedSettings();
    return checks.errors;
  },
  create(config, deps = {}) {
    return new MailgunProvider(config, deps);
  },
};
