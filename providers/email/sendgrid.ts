// The `sendgrid` email provider: v3 Mail Send (POST /v3/mail/send, Bearer api_key); the
// X-Message-Id response header is the message id; errors arrive as {errors:[{message,field}]}.
import { isEmailAddress } from "../../schemas/email";
import { ConfigChecks, joinUrl, stringSetting } from "../config-checks";
import { failureFromHttp, httpCall, summarise } from "../http-call";
import { failure, parseRateLimitReset, parseRetryAfter } from "../outcome";
import type { OutboundMessage, Provider, ProviderConfig, ProviderDefinition, ProviderDeps, SendResult } from "../types";

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

  constructor(config: ProviderConfig, private readonly deps: ProviderDeps) {
    this.apiKey = stringSetting(config.credentials, "api_key");
    this.baseUrl = stringSetting(config.settings, "base_url", SENDGRID_BASE_URL);
    this.fromEmail = stringSetting(config.settings, "from_email");
    this.fromName = stringSetting(config.settings, "from_name");
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
  ],
  validate(credentials, settings) {
    const checks = new ConfigChecks(credentials, settings);
    checks.requireString("credentials", "api_key");
    const from = checks.requireString("settings", "from_email");
    if (from !== undefined && !isEmailAddress(from)) checks.add("settings", "from_email", "must be an email address");
    checks.optionalString("settings", "from_name");
    checks.optionalUrl("settings", "base_url");
    checks.rateLimit();
    return checks.errors;
  },
  create(config, deps = {}) {
    return new SendgridProvider(config, deps);
  },
};
