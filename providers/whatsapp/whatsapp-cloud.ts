// The `whatsapp_cloud` provider: Meta's Cloud API (POST /v20.0/{phone_number_id}/messages,
// Bearer access_token) plus the pure X-Hub-Signature-256 check used by /webhooks/whatsapp.
import { createHmac, timingSafeEqual } from "node:crypto";
import { ConfigChecks, joinUrl, stringSetting } from "../config-checks";
import { failureFromHttp, httpCall, summarise } from "../http-call";
import { failure } from "../outcome";
import type { OutboundMessage, Provider, ProviderConfig, ProviderDefinition, ProviderDeps, ProviderReceipt, SendResult } from "../types";

export const WHATSAPP_CLOUD_BASE_URL = "https://graph.facebook.com";
export const WHATSAPP_GRAPH_VERSION = "v20.0";

/**
 * Graph error codes that mean "try again later" even when carried by a 400: unknown/service
 * errors (1, 2), rate limits (4, 80007, 130429, 131056) and temporary unavailability (131000, 131016, 133004).
 */
const RETRYABLE_GRAPH_CODES = new Set([1, 2, 4, 80007, 130429, 131000, 131016, 131056, 133004]);

export function readGraphError(body: unknown): { code?: string; message?: string; retryable?: boolean } {
  const e = (body as { error?: Record<string, unknown> } | null)?.error;
  if (!e || typeof e !== "object") return {};
  const code = typeof e.code === "number" || typeof e.code === "string" ? Number(e.code) : undefined;
  const details = (e.error_data as { details?: unknown } | undefined)?.details;
  let message = typeof e.message === "string" ? e.message : undefined;
  if (typeof details === "string" && details !== "") message = message ? `${message}: ${details}` : details;
  const retryable = e.is_transient === true || (code !== undefined && RETRYABLE_GRAPH_CODES.has(code)) ? true : undefined;
  return { code: code !== undefined && !Number.isNaN(code) ? `whatsapp_${code}` : undefined, message, retryable };
}

/**
 * Checks Meta's X-Hub-Signature-256 header ("sha256=<hex HMAC-SHA256 of the raw body keyed by app secret>").
 * The comparison is constant-time so a forger learns nothing from response timing.
 */
export function verifyWhatsappSignature(
  rawBody: string | Uint8Array,
  headerValue: string | null | undefined,
  appSecret: string,
): boolean {
  if (!headerValue || !appSecret) return false;
  const match = /^sha256=([0-9a-fA-F]{64})$/.exec(headerValue.trim());
  if (!match) return false;
  const expected = createHmac("sha256", appSecret).update(rawBody).digest();
  const given = Buffer.from(match[1]!, "hex");
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** One entry of a status webhook's `value.statuses` (Cloud API). */
export interface WhatsappStatus {
  id?: unknown;
  status?: unknown;
  timestamp?: unknown;
  errors?: { code?: number; title?: string; message?: string }[];
}

/**
 * What one status says, or null when it names no message or no delivery fact: sent -> sent,
 * delivered -> delivered, read -> opened (which proves delivery), failed -> failed with `whatsapp_<code>`.
 */
export function whatsappReceipt(s: WhatsappStatus, now = new Date()): ProviderReceipt | null {
  if (typeof s?.id !== "string" || s.id === "" || typeof s.status !== "string") return null;
  const at = typeof s.timestamp === "string" && /^\d+$/.test(s.timestamp) ? new Date(Number(s.timestamp) * 1000) : now;
  const base = { messageId: s.id, at, providerStatus: s.status };
  switch (s.status) {
    case "sent":
      return { ...base, kind: "sent" };
    case "delivered":
      return { ...base, kind: "delivered" };
    case "read":
      return { ...base, kind: "opened" };
    case "failed": {
      const err = Array.isArray(s.errors) ? s.errors[0] : undefined;
      const error = err
        ? { code: `whatsapp_${err.code ?? "error"}`, message: err.message ?? err.title ?? "failed" }
        : { code: "whatsapp_failed", message: "WhatsApp reported the message failed" };
      return { ...base, kind: "failed", error };
    }
    default:
      return null;
  }
}

export class WhatsappCloudProvider implements Provider {
  readonly name = "whatsapp_cloud";
  private readonly accessToken: string;
  private readonly phoneNumberId: string;
  private readonly baseUrl: string;
  private readonly templateLanguage: string;

  constructor(config: ProviderConfig, private readonly deps: ProviderDeps) {
    this.accessToken = stringSetting(config.credentials, "access_token");
    this.phoneNumberId = stringSetting(config.settings, "phone_number_id");
    this.baseUrl = stringSetting(config.settings, "base_url", WHATSAPP_CLOUD_BASE_URL);
    this.templateLanguage = stringSetting(config.settings, "template_language", "en_US");
  }

  buildBody(msg: OutboundMessage): Record<string, unknown> {
    const base = {
      messaging_product: "whatsapp",
      recipient_type: "individual",
      // the Cloud API takes the number as digits, without "+" or a "whatsapp:" prefix
      to: msg.to.replace(/^whatsapp:/, "").replace(/^\+/, ""),
      // echoed back in status webhooks, so an inbound status can name our notification
      biz_opaque_callback_data: msg.notificationId,
    };
    if (msg.providerTemplateId) {
      const data = msg.data ?? {};
      const template: Record<string, unknown> = {
        name: msg.providerTemplateId,
        language: { code: typeof data.language === "string" ? data.language : this.templateLanguage },
      };
      if (Array.isArray(data.components)) template.components = data.components;
      return { ...base, type: "template", template };
    }
    return { ...base, type: "text", text: { preview_url: false, body: msg.content ?? msg.text ?? msg.body ?? "" } };
  }

  async send(msg: OutboundMessage, signal?: AbortSignal): Promise<SendResult> {
    const body = this.buildBody(msg);
    if (body.type === "text" && (body.text as { body: string }).body === "") {
      return failure(false, "empty_content", "message has no content");
    }
    const call = await httpCall(
      {
        url: joinUrl(this.baseUrl, `/${WHATSAPP_GRAPH_VERSION}/${encodeURIComponent(this.phoneNumberId)}/messages`),
        headers: { authorization: `Bearer ${this.accessToken}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      },
      this.deps,
      signal,
    );
    if (!call.ok) return call.failure;
    const res = call.res;
    if (res.status >= 200 && res.status < 300) {
      const id = (res.body as { messages?: { id?: unknown }[] } | null)?.messages?.[0]?.id;
      if (typeof id !== "string" || id === "") {
        return failure(false, "invalid_response", "WhatsApp accepted the message without messages[0].id", {
          response: summarise(res),
        });
      }
      return { ok: true, providerMessageId: id, response: summarise(res) };
    }
    return failureFromHttp(res, readGraphError(res.body));
  }
}

export const whatsappCloudDefinition: ProviderDefinition = {
  name: "whatsapp_cloud",
  channels: ["whatsapp"],
  defaultRateLimitPerSecond: 80,
  credentialFields: [
    { name: "access_token", required: true, description: "system user access token", type: "string" },
    { name: "app_secret", required: true, description: "app secret; verifies X-Hub-Signature-256 on /webhooks/whatsapp", type: "string" },
  ],
  settingFields: [
    { name: "phone_number_id", required: true, description: "sender phone number id", type: "string" },
    { name: "verify_token", required: true, description: "echoed by the GET /webhooks/whatsapp challenge", type: "string" },
    { name: "template_language", required: false, description: "template language code (default en_US)", type: "string" },
    { name: "base_url", required: false, description: `Graph API base URL (default ${WHATSAPP_CLOUD_BASE_URL})`, type: "string" },
    { name: "rate_limit_per_second", required: false, description: "sends per second (default 80)", type: "number" },
  ],
  validate(credentials, settings) {
    const checks = new ConfigChecks(credentials, settings);
    checks.requireString("credentials", "access_token");
    checks.requireString("credentials", "app_secret");
    const id = checks.requireString("settings", "phone_number_id");
    if (id !== undefined && !/^\d+$/.test(id)) checks.add("settings", "phone_number_id", "must contain digits only");
    checks.requireString("settings", "verify_token");
    checks.optionalString("settings", "template_language");
    checks.optionalUrl("settings", "base_url");
    checks.sharedSettings();
    return checks.errors;
  },
  create(config, deps = {}) {
    return new WhatsappCloudProvider(config, deps);
  },
};
