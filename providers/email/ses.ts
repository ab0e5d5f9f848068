// The `ses` email provider: Amazon SES v2 SendEmail (POST /v2/email/outbound-emails, JSON, SigV4-signed
// by aws-sign.ts with `aws4`); MessageId is the message id; errors by x-amzn-ErrorType.
import { signAwsPost } from "../aws-sign";
import { isEmailAddress } from "../../schemas/email";
import { ConfigChecks, joinUrl, stringSetting } from "../config-checks";
import { failureFromHttp, httpCall, summarise, type HttpCallResponse } from "../http-call";
import { callerFault, failure, parseRetryAfter } from "../outcome";
import type { OutboundMessage, Provider, ProviderConfig, ProviderDefinition, ProviderDeps, SendFailure, SendResult } from "../types";

const REGION_RE = /^[a-z]{2}(-gov|-iso[a-z]*)?-[a-z]+-\d$/;
const ACCESS_KEY_RE = /^(AKIA|ASIA)[A-Z0-9]{12,124}$/;

export function sesBaseUrl(region: string): string {
  return `https://email.${region}.amazonaws.com`;
}

// SES v2 error types (x-amzn-ErrorType, or `__type`/`code` in the body) that are about this one request
const CALLER_FAULT_TYPES = new Set(["BadRequestException", "MessageRejected", "InvalidParameterValue"]);
// "later": throttled, over the sending rate, or SES itself unwell
const RETRYABLE_TYPES = new Set(["TooManyRequestsException", "LimitExceededException", "ThrottlingException", "Throttling", "ServiceUnavailable", "InternalFailure"]);

/** SES's error: type from x-amzn-ErrorType ("MessageRejected:http://internal.amazon.com/...") or the body, and `message`. */
export function readSesError(res: HttpCallResponse): { type?: string; message?: string } {
  const b = (res.body ?? {}) as { message?: unknown; Message?: unknown; __type?: unknown; code?: unknown };
  const raw = res.headers.get("x-amzn-errortype") ?? (typeof b.__type === "string" ? b.__type : typeof b.code === "string" ? b.code : undefined);
  const type = raw?.split(":")[0]?.split("#").pop() || undefined;
  const message = typeof b.message === "string" ? b.message : typeof b.Message === "string" ? b.Message : typeof res.body === "string" ? res.body : undefined;
  return { type, message };
}

/** Classifies an SES v2 error answer: throttling and 5xx retryable, a rejected request the caller's fault, the rest permanent. */
export function sesFailure(res: HttpCallResponse): SendFailure {
  const { type, message } = readSesError(res);
  const code = type ? `ses_${type}` : undefined;
  const retryable = type && RETRYABLE_TYPES.has(type) ? true : undefined;
  const f = failureFromHttp(res, { code, message, retryable }, parseRetryAfter(res.headers.get("retry-after")));
  return type && CALLER_FAULT_TYPES.has(type) ? callerFault(f) : f;
}

export class SesProvider implements Provider {
  readonly name = "ses";
  private readonly accessKeyId: string;
  private readonly secretAccessKey: string;
  private readonly sessionToken: string;
  private readonly region: string;
  private readonly baseUrl: string;
  private readonly fromEmail: string;
  private readonly fromName: string;
  private readonly configurationSet: string;

  constructor(config: ProviderConfig, private readonly deps: ProviderDeps) {
    this.accessKeyId = stringSetting(config.credentials, "access_key_id");
    this.secretAccessKey = stringSetting(config.credentials, "secret_access_key");
    this.sessionToken = stringSetting(config.credentials, "session_token");
    this.region = stringSetting(config.settings, "region", "us-east-1");
    this.baseUrl = stringSetting(config.settings, "base_url", sesBaseUrl(this.region));
    this.fromEmail = stringSetting(config.settings, "from_email");
    this.fromName = stringSetting(config.settings, "from_name");
    this.configurationSet = stringSetting(config.settings, "configuration_set");
  }

  buildBody(msg: OutboundMessage): Record<string, unknown> {
    // a display name with anything but plain characters must be quoted (RFC 5322)
    const from = this.fromName ? `"${this.fromName.replace(/["\\]/g, "\\$&")}" <${this.fromEmail}>` : this.fromEmail;
    const body: Record<string, unknown> = {
      FromEmailAddress: from,
      Destination: { ToAddresses: [msg.to] },
      // tags come back in SES event notifications (SNS), so events can be matched to the notification too
      EmailTags: [{ Name: "notification_id", Value: msg.notificationId }],
    };
    if (this.configurationSet) body.ConfigurationSetName = this.configurationSet;
    if (msg.providerTemplateId) {
      body.Content = {
        Template: {
          TemplateName: msg.providerTemplateId,
          TemplateData: JSON.stringify(msg.data ?? {}),
          ...(msg.headers && Object.keys(msg.headers).length > 0 ? { Headers: headerList(msg.headers) } : {}),
        },
      };
      return body;
    }
    const text = msg.text ?? msg.content;
    const simple: Record<string, unknown> = {
      Subject: { Data: msg.subject ?? "", Charset: "UTF-8" },
      Body: {
        ...(text ? { Text: { Data: text, Charset: "UTF-8" } } : {}),
        ...(msg.html ? { Html: { Data: msg.html, Charset: "UTF-8" } } : {}),
      },
    };
    if (msg.headers && Object.keys(msg.headers).length > 0) simple.Headers = headerList(msg.headers);
    body.Content = { Simple: simple };
    return body;
  }

  /** the request SES v2 expects, signed (SigV4, service `ses`) by aws4 */
  signedRequest(body: string): { url: string; headers: Record<string, string> } {
    const url = new URL(joinUrl(this.baseUrl, "/v2/email/outbound-emails"));
    const headers = signAwsPost(url, body, "application/json", "ses", this.region, {
      accessKeyId: this.accessKeyId,
      secretAccessKey: this.secretAccessKey,
      sessionToken: this.sessionToken || undefined,
    });
    return { url: url.toString(), headers };
  }

  async send(msg: OutboundMessage, signal?: AbortSignal): Promise<SendResult> {
    if (!msg.providerTemplateId && !msg.text && !msg.content && !msg.html) {
      return failure(false, "empty_content", "email has neither text nor html content");
    }
    const body = JSON.stringify(this.buildBody(msg));
    const { url, headers } = this.signedRequest(body);
    const call = await httpCall({ url, headers, body }, this.deps, signal);
    if (!call.ok) return call.failure;
    const res = call.res;
    if (res.status >= 200 && res.status < 300) {
      const id = (res.body as { MessageId?: unknown } | null)?.MessageId;
      if (typeof id !== "string" || id === "") {
        return failure(false, "invalid_response", "SES accepted the email without a MessageId", { response: summarise(res) });
      }
      return { ok: true, providerMessageId: id, response: summarise(res) };
    }
    return sesFailure(res);
  }
}

function headerList(headers: Record<string, string>): { Name: string; Value: string }[] {
  return Object.entries(headers).map(([Name, Value]) => ({ Name, Value }));
}

export const sesDefinition: ProviderDefinition = {
  name: "ses",
  channels: ["email"],
  defaultRateLimitPerSecond: 14,
  credentialFields: [
    { name: "access_key_id", required: true, description: "IAM access key id (AKIA... or ASIA...) allowed ses:SendEmail", type: "string" },
    { name: "secret_access_key", required: true, description: "the access key's secret", type: "string" },
    { name: "session_token", required: false, description: "session token of temporary (ASIA...) credentials", type: "string" },
  ],
  settingFields: [
    { name: "region", required: true, description: "AWS region of the SES account, e.g. eu-west-1", type: "string" },
    { name: "from_email", required: true, description: "verified sender address (its domain or the address verified in SES)", type: "string" },
    { name: "from_name", required: false, description: "sender display name", type: "string" },
    { name: "configuration_set", required: false, description: "SES configuration set (its event destination publishes delivery events to SNS)", type: "string" },
    { name: "base_url", required: false, description: "API base URL (default https://email.<region>.amazonaws.com)", type: "string" },
    { name: "rate_limit_per_second", required: false, description: "sends per second (default 14, SES's production starting rate)", type: "number" },
  ],
  validate(credentials, settings) {
    const checks = new ConfigChecks(credentials, settings);
    const key = checks.requireString("credentials", "access_key_id");
    if (key !== undefined && !ACCESS_KEY_RE.test(key)) checks.add("credentials", "access_key_id", "must be an AWS access key id (AKIA... or ASIA..., upper-case letters and digits)");
    const secret = checks.requireString("credentials", "secret_access_key");
    if (secret !== undefined && secret.length < 16) checks.add("credentials", "secret_access_key", "is too short to be an AWS secret access key");
    const token = checks.optionalString("credentials", "session_token");
    if (key?.startsWith("ASIA") && token === undefined) checks.add("credentials", "session_token", "is required with temporary (ASIA...) credentials");
    const region = checks.requireString("settings", "region");
    if (region !== undefined && !REGION_RE.test(region)) checks.add("settings", "region", "must be an AWS region such as us-east-1 or eu-west-1");
    const from = checks.requireString("settings", "from_email");
    if (from !== undefined && !isEmailAddress(from)) checks.add("settings", "from_email", "must be an email address");
    checks.optionalString("settings", "from_name");
    const set = checks.optionalString("settings", "configuration_set");
    if (set !== undefined && !/^[A-Za-z0-9_-]{1,64}$/.test(set)) checks.add("settings", "configuration_set", "must be 1-64 letters, digits, '-' or '_'");
    checks.optionalUrl("settings", "base_url");
    checks.sharedSettings();
    return checks.errors;
  },
  create(config, deps = {}) {
    return new SesProvider(config, deps);
  },
};
