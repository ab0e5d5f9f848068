// The `sns` sms provider: Amazon SNS Publish to a phone number (query API, form POST, SigV4-signed by
// the `aws4` library); MessageId is the id; errors are XML <Error><Code> classified like SES's.
import { signAwsPost } from "../aws-sign";
import { ConfigChecks, isE164, joinUrl, stringSetting } from "../config-checks";
import { failureFromHttp, httpCall, summarise, type HttpCallResponse } from "../http-call";
import { callerFault, failure, parseRetryAfter } from "../outcome";
import type { OutboundMessage, Provider, ProviderConfig, ProviderDefinition, ProviderDeps, SendFailure, SendResult } from "../types";

const REGION_RE = /^[a-z]{2}(-gov|-iso[a-z]*)?-[a-z]+-\d$/;
const ACCESS_KEY_RE = /^(AKIA|ASIA)[A-Z0-9]{12,124}$/;
const SENDER_ID_RE = /^(?=.*[A-Za-z])[A-Za-z0-9-]{1,11}$/;

export function snsBaseUrl(region: string): string {
  return `https://sns.${region}.amazonaws.com`;
}

const RETRYABLE_CODES = new Set(["Throttling", "ThrottlingException", "ThrottledException", "InternalError", "InternalFailure", "ServiceUnavailable", "KMSThrottling"]);
const INVALID_PARAMETER_CODES = new Set(["InvalidParameter", "InvalidParameterValue", "ValidationError"]);

const xmlText = (xml: string, tag: string): string | undefined => new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`).exec(xml)?.[1];
const unescapeXml = (s: string) => s.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, "&");

/** SNS's XML error: <ErrorResponse><Error><Type/><Code/><Message/></Error></ErrorResponse>. */
export function snsFailure(res: HttpCallResponse): SendFailure {
  const xml = typeof res.body === "string" ? res.body : "";
  const code = xmlText(xml, "Code");
  const raw = xmlText(xml, "Message");
  const message = raw === undefined ? undefined : unescapeXml(raw);
  const f = failureFromHttp(res, { code: code ? `sns_${code}` : undefined, message, retryable: code && RETRYABLE_CODES.has(code) ? true : undefined }, parseRetryAfter(res.headers.get("retry-after")));
  // an invalid PhoneNumber or Message is this request's; any other parameter (a sender id the
  // country refuses, an origination number) is the configuration's
  if (code && INVALID_PARAMETER_CODES.has(code) && !f.retryable && /PhoneNumber|Message\b|message too long/i.test(message ?? "") && !/Origination|SenderID/i.test(message ?? "")) {
    return callerFault(f);
  }
  return f;
}

export class SnsProvider implements Provider {
  readonly name = "sns";
  private readonly accessKeyId: string;
  private readonly secretAccessKey: string;
  private readonly sessionToken: string;
  private readonly region: string;
  private readonly baseUrl: string;
  private readonly senderId: string;
  private readonly originationNumber: string;
  private readonly smsType: string;

  constructor(config: ProviderConfig, private readonly deps: ProviderDeps) {
    this.accessKeyId = stringSetting(config.credentials, "access_key_id");
    this.secretAccessKey = stringSetting(config.credentials, "secret_access_key");
    this.sessionToken = stringSetting(config.credentials, "session_token");
    this.region = stringSetting(config.settings, "region", "us-east-1");
    this.baseUrl = stringSetting(config.settings, "base_url", snsBaseUrl(this.region));
    this.senderId = stringSetting(config.settings, "sender_id");
    this.originationNumber = stringSetting(config.settings, "origination_number");
    this.smsType = stringSetting(config.settings, "sms_type", "Transactional");
  }

  buildForm(msg: OutboundMessage): URLSearchParams {
    const form = new URLSearchParams({ Action: "Publish", Version: "2010-03-31", PhoneNumber: msg.to, Message: msg.content ?? msg.text ?? msg.body ?? "" });
    const attributes: [string, string][] = [["AWS.SNS.SMS.SMSType", this.smsType]];
    if (this.senderId) attributes.push(["AWS.SNS.SMS.SenderID", this.senderId]);
    if (this.originationNumber) attributes.push(["AWS.MM.SMS.OriginationNumber", this.originationNumber]);
    attributes.forEach(([name, value], i) => {
      form.set(`MessageAttributes.entry.${i + 1}.Name`, name);
      form.set(`MessageAttributes.entry.${i + 1}.Value.DataType`, "String");
      form.set(`MessageAttributes.entry.${i + 1}.Value.StringValue`, value);
    });
    return form;
  }

  async send(msg: OutboundMessage, signal?: AbortSignal): Promise<SendResult> {
    const form = this.buildForm(msg);
    if (form.get("Message") === "") return failure(false, "empty_content", "message has no content");
    const body = form.toString();
    const url = new URL(joinUrl(this.baseUrl, "/"));
    const headers = signAwsPost(url, body, "application/x-www-form-urlencoded; charset=utf-8", "sns", this.region, {
      accessKeyId: this.accessKeyId,
      secretAccessKey: this.secretAccessKey,
      sessionToken: this.sessionToken || undefined,
    });
    const call = await httpCall({ url: url.toString(), headers, body }, this.deps, signal);
    if (!call.ok) return call.failure;
    const res = call.res;
    if (res.status >= 200 && res.status < 300) {
      const id = typeof res.body === "string" ? xmlText(res.body, "MessageId") : undefined;
      if (!id) return failure(false, "invalid_response", "SNS accepted the message without a MessageId", { response: summarise(res) });
      return { ok: true, providerMessageId: id, response: summarise(res) };
    }
    return snsFailure(res);
  }
}

export const snsDefinition: ProviderDefinition = {
  name: "sns",
  channels: ["sms"],
  defaultRateLimitPerSecond: 20,
  credentialFields: [
    { name: "access_key_id", required: true, description: "IAM access key id (AKIA... or ASIA...) allowed sns:Publish", type: "string" },
    { name: "secret_access_key", required: true, description: "the access key's secret", type: "string" },
    { name: "session_token", required: false, description: "session token of temporary (ASIA...) credentials", type: "string" },
  ],
  settingFields: [
    { name: "region", required: true, description: "AWS region whose SNS sends the SMS, e.g. eu-west-1", type: "string" },
    { name: "sms_type", required: false, description: "Transactional (default: highest reliability, for OTPs) or Promotional", type: "string" },
    { name: "sender_id", required: false, description: "alphanumeric sender id (1-11 characters) where the destination country supports one", type: "string" },
    { name: "origination_number", required: false, description: "E.164 number or short code registered in your account to send from", type: "string" },
    { name: "base_url", required: false, description: "API base URL (default https://sns.<region>.amazonaws.com)", type: "string" },
    { name: "rate_limit_per_second", required: false, description: "sends per second (default 20, SNS's default SMS rate)", type: "number" },
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
    const type = checks.optionalString("settings", "sms_type");
    if (type !== undefined && type !== "Transactional" && type !== "Promotional") checks.add("settings", "sms_type", "must be Transactional or Promotional");
    const sender = checks.optionalString("settings", "sender_id");
    if (sender !== undefined && !SENDER_ID_RE.test(sender)) checks.add("settings", "sender_id", "must be 1-11 letters, digits or '-', with at least one letter");
    const origination = checks.optionalString("settings", "origination_number");
    if (origination !== undefined && !isE164(origination) && !/^\d{3,8}$/.test(origination)) checks.add("settings", "origination_number", "must be an E.164 number such as +14155550100 or a short code");
    checks.optionalUrl("settings", "base_url");
    checks.sharedSettings();
    return checks.errors;
  },
  create(config, deps = {}) {
    return new SnsProvider(config, deps);
  },
};
