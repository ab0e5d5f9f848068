// The `twilio` provider for sms and whatsapp: Programmable Messaging (form-encoded POST to
// /2010-04-01/Accounts/{sid}/Messages.json, basic auth sid:token), plus its signed status callbacks.
import { createHmac, timingSafeEqual } from "node:crypto";
import { ConfigChecks, isE164, joinUrl, stringSetting } from "../config-checks";
import { failureFromHttp, httpCall, summarise } from "../http-call";
import { failure } from "../outcome";
import type { OutboundMessage, Provider, ProviderConfig, ProviderDefinition, ProviderDeps, ProviderReceipt, SendResult } from "../types";

export const TWILIO_BASE_URL = "https://api.twilio.com";

const MESSAGING_SERVICE_RE = /^MG[0-9a-fA-F]{32}$/;
// Twilio codes that mean "later", whatever HTTP status carried them
const RETRYABLE_TWILIO_CODES = new Set([20429, 20500, 20503]);

export function readTwilioError(body: unknown): { code?: string; message?: string; retryable?: boolean } {
  const b = body as { code?: unknown; message?: unknown } | null;
  if (!b || typeof b !== "object") return {};
  const code = typeof b.code === "number" || typeof b.code === "string" ? String(b.code) : undefined;
  return {
    code: code ? `twilio_${code}` : undefined,
    message: typeof b.message === "string" ? b.message : undefined,
    retryable: code && RETRYABLE_TWILIO_CODES.has(Number(code)) ? true : undefined,
  };
}

function withWhatsappPrefix(address: string): string {
  return address.startsWith("whatsapp:") ? address : `whatsapp:${address}`;
}

export class TwilioProvider implements Provider {
  readonly name = "twilio";
  private readonly accountSid: string;
  private readonly authToken: string;
  private readonly from: string;
  private readonly baseUrl: string;

  constructor(config: ProviderConfig, private readonly deps: ProviderDeps) {
    this.accountSid = stringSetting(config.credentials, "account_sid");
    this.authToken = stringSetting(config.credentials, "auth_token");
    this.from = stringSetting(config.settings, "from");
    this.baseUrl = stringSetting(config.settings, "base_url", TWILIO_BASE_URL);
  }

  buildForm(msg: OutboundMessage): URLSearchParams {
    const whatsapp = msg.channel === "whatsapp";
    const form = new URLSearchParams();
    form.set("To", whatsapp ? withWhatsappPrefix(msg.to) : msg.to);
    if (MESSAGING_SERVICE_RE.test(this.from)) form.set("MessagingServiceSid", this.from);
    else form.set("From", whatsapp ? withWhatsappPrefix(this.from) : this.from);
    if (msg.providerTemplateId) {
      // Content API templates (HX...) carry their variables as a JSON object
      form.set("ContentSid", msg.providerTemplateId);
      if (msg.data) form.set("ContentVariables", JSON.stringify(msg.data));
    } else {
      form.set("Body", msg.content ?? msg.text ?? msg.body ?? "");
    }
    // Twilio POSTs every status change of this message there, signed with X-Twilio-Signature
    if (msg.statusCallbackUrl) form.set("StatusCallback", msg.statusCallbackUrl);
    return form;
  }

  async send(msg: OutboundMessage, signal?: AbortSignal): Promise<SendResult> {
    const form = this.buildForm(msg);
    if (!form.has("ContentSid") && form.get("Body") === "") {
      return failure(false, "empty_content", "message has no content");
    }
    const auth = Buffer.from(`${this.accountSid}:${this.authToken}`).toString("base64");
    const call = await httpCall(
      {
        url: joinUrl(this.baseUrl, `/2010-04-01/Accounts/${encodeURIComponent(this.accountSid)}/Messages.json`),
        headers: { authorization: `Basic ${auth}`, "content-type": "application/x-www-form-urlencoded" },
        body: form.toString(),
      },
      this.deps,
      signal,
    );
    if (!call.ok) return call.failure;
    const res = call.res;
    if (res.status >= 200 && res.status < 300) {
      const sid = (res.body as { sid?: unknown } | null)?.sid;
      if (typeof sid !== "string" || sid === "") {
        return failure(false, "invalid_response", "Twilio accepted the message without a sid", {
          response: summarise(res),
        });
      }
      return { ok: true, providerMessageId: sid, response: summarise(res) };
    }
    return failureFromHttp(res, readTwilioError(res.body));
  }
}

// ---------------------------------------------------------------------------------------------
// Status callbacks (POST /webhooks/twilio/:channel_id, form-encoded, X-Twilio-Signature).

/**
 * Twilio's request validation: base64 HMAC-SHA1, keyed by the auth token, of the full URL Twilio
 * was given (scheme to query string) followed by every POST parameter, sorted by name, as name and
 * value with no delimiters (a repeated name contributes each of its values, sorted). Constant-time.
 */
export function verifyTwilioSignature(
  url: string,
  params: URLSearchParams,
  signature: string | null | undefined,
  authToken: string,
): boolean {
  if (!signature || !authToken) return false;
  const byName = new Map<string, string[]>();
  for (const [k, v] of params) byName.set(k, [...(byName.get(k) ?? []), v]);
  let data = url;
  for (const name of [...byName.keys()].sort()) for (const value of byName.get(name)!.sort()) data += name + value;
  const expected = createHmac("sha1", authToken).update(Buffer.from(data, "utf8")).digest();
  const given = Buffer.from(signature.trim(), "base64");
  return given.length === expected.length && timingSafeEqual(given, expected);
}

// The error codes a status callback carries most often, so the notification's error says what happened.
const CALLBACK_ERRORS: Record<string, string> = {
  "30001": "queue overflow",
  "30002": "account suspended",
  "30003": "unreachable destination handset",
  "30004": "message blocked by the recipient or carrier",
  "30005": "unknown destination handset",
  "30006": "landline or unreachable carrier",
  "30007": "message filtered by the carrier",
  "30008": "unknown error",
  "21610": "the recipient replied STOP (unsubscribed)",
  "63016": "WhatsApp: outside the 24-hour window; use a template",
};

const SENT_STATUSES = new Set(["queued", "accepted", "scheduled", "sending", "sent"]);

/**
 * What one status callback says, or null for statuses that say nothing about delivery (inbound
 * `receiving`/`received`): queued/accepted/scheduled/sending/sent -> sent, delivered -> delivered,
 * read (WhatsApp) -> opened, undelivered/failed/canceled -> failed with `twilio_<ErrorCode>`.
 */
export function twilioReceipt(params: URLSearchParams, now = new Date()): ProviderReceipt | null {
  const messageId = params.get("MessageSid") ?? params.get("SmsSid");
  const status = (params.get("MessageStatus") ?? params.get("SmsStatus") ?? "").toLowerCase();
  if (!messageId || !status) return null;
  const base = { messageId, at: now, providerStatus: status };
  if (SENT_STATUSES.has(status)) return { ...base, kind: "sent" };
  if (status === "delivered") return { ...base, kind: "delivered" };
  if (status === "read") return { ...base, kind: "opened" };
  if (status === "undelivered" || status === "failed" || status === "canceled") {
    const code = params.get("ErrorCode");
    const known = code ? CALLBACK_ERRORS[code] : undefined;
    const message = params.get("ErrorMessage") ?? `Twilio reported the message ${status}${code ? ` (error ${code}${known ? `: ${known}` : ""})` : ""}`;
    return { ...base, kind: "failed", error: { code: code ? `twilio_${code}` : `twilio_${status}`, message } };
  }
  return null;
}

export const twilioDefinition: ProviderDefinition = {
  name: "twilio",
  channels: ["sms", "whatsapp"],
  defaultRateLimitPerSecond: 10,
  credentialFields: [
    { name: "account_sid", required: true, description: "Account SID (AC...)", type: "string" },
    { name: "auth_token", required: true, description: "Auth token", type: "string" },
  ],
  settingFields: [
    { name: "from", required: true, description: "sender: E.164 number (+14155550100) or Messaging Service SID (MG...)", type: "string" },
    { name: "base_url", required: false, description: `API base URL (default ${TWILIO_BASE_URL})`, type: "string" },
    { name: "rate_limit_per_second", required: false, description: "sends per second (default 10)", type: "number" },
  ],
  validate(credentials, settings) {
    const checks = new ConfigChecks(credentials, settings);
    const sid = checks.requireString("credentials", "account_sid");
    if (sid !== undefined && !/^AC[0-9a-fA-F]{32}$/.test(sid)) {
      checks.add("credentials", "account_sid", "must start with AC followed by 32 hexadecimal characters");
    }
    checks.requireString("credentials", "auth_token");
    const from = checks.requireString("settings", "from");
    if (from !== undefined) {
      const bare = from.startsWith("whatsapp:") ? from.slice("whatsapp:".length) : from;
      if (!isE164(bare) && !MESSAGING_SERVICE_RE.test(from)) {
        checks.add("settings", "from", "must be an E.164 phone number such as +14155550100 (or a Messaging Service SID MG...)");
      }
    }
    checks.optionalUrl("settings", "base_url");
    checks.sharedSettings();
    return checks.errors;
  },
  create(config, deps = {}) {
    return new TwilioProvider(config, deps);
  },
};
