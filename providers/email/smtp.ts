// The `smtp` email provider (nodemailer): DKIM-signs when the message carries the verified
// domain's key, passes List-Unsubscribe headers, and reads SMTP reply codes as retryable (4xx) or permanent (5xx).
import nodemailer, { type SendMailOptions, type SMTPTransportOptions, type Transporter } from "nodemailer";
import { isEmailAddress } from "../../schemas/email";
import { ConfigChecks, stringSetting } from "../config-checks";
import { failure } from "../outcome";
import type {
  OutboundMessage,
  Provider,
  ProviderConfig,
  ProviderDefinition,
  ProviderDeps,
  SendFailure,
  SendResult,
  VerifyResult,
} from "../types";
import { DEFAULT_TIMEOUT_MS } from "../types";

// nodemailer codes for a connection that never got as far as an SMTP reply
const CONNECTION_ERROR_CODES = new Set([
  "ECONNECTION",
  "ETIMEDOUT",
  "ESOCKET",
  "EDNS",
  "ETLS",
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
]);

interface SmtpError {
  code?: string;
  responseCode?: number;
  response?: string;
  command?: string;
  message?: string;
  name?: string;
  rejectedErrors?: SmtpError[];
}

/**
 * Pure classification of a nodemailer error: an SMTP 4xx reply (and 421 closing) is transient,
 * a 5xx reply is permanent, and connection-level errors (no reply at all) are transient.
 */
export function classifySmtpError(err: unknown, timedOut = false): SendFailure {
  const e = (err ?? {}) as SmtpError;
  // a refused recipient hides its reply code inside rejectedErrors
  const replyCode = e.responseCode ?? e.rejectedErrors?.find((r) => r.responseCode)?.responseCode;
  const response: Record<string, unknown> = {};
  if (replyCode) response.smtp_code = replyCode;
  if (e.response) response.smtp_response = String(e.response).slice(0, 512);
  if (e.command) response.command = e.command;
  const message = (e.message ?? String(err)).slice(0, 512);
  if (replyCode) {
    const retryable = replyCode >= 400 && replyCode < 500;
    return failure(retryable, `smtp_${replyCode}`, message, { response });
  }
  if (timedOut || e.code === "EABORT" || e.name === "AbortError") {
    return failure(true, timedOut ? "timeout" : "aborted", timedOut ? "SMTP server did not finish before the deadline" : message, {
      response,
    });
  }
  if (e.code && CONNECTION_ERROR_CODES.has(e.code)) {
    return failure(true, "connection_error", message, { response: { ...response, error_code: e.code } });
  }
  if (e.code === "EAUTH" || e.code === "ENOAUTH") return failure(false, "auth_failed", message, { response });
  // EENVELOPE/EMESSAGE/ECONFIG without a reply are our message or config being wrong: retrying repeats it
  return failure(false, e.code ? e.code.toLowerCase() : "smtp_error", message, { response });
}

/**
 * nodemailer's default signed header list plus List-Unsubscribe-Post: RFC 8058 one-click
 * unsubscribe only counts when the DKIM signature covers both List-Unsubscribe headers.
 */
export const DKIM_SIGNED_HEADERS =
  "From:Sender:Reply-To:Subject:Date:Message-ID:To:Cc:MIME-Version:Content-Type:" +
  "Content-Transfer-Encoding:Content-ID:Content-Description:Resent-Date:Resent-From:Resent-Sender:" +
  "Resent-To:Resent-Cc:Resent-Message-ID:In-Reply-To:References:List-Id:List-Help:List-Unsubscribe:" +
  "List-Unsubscribe-Post:List-Subscribe:List-Post:List-Owner:List-Archive";

function domainOf(address: string): string {
  const at = address.lastIndexOf("@");
  return at >= 0 ? address.slice(at + 1) : "localhost";
}

export class SmtpProvider implements Provider {
  readonly name = "smtp";
  private readonly transport: Transporter;
  private readonly fromEmail: string;
  private readonly fromName: string;
  private readonly timeoutMs: number;
  private readonly address: { host: string; port: number };
  private readonly authenticates: boolean;

  constructor(config: ProviderConfig, deps: ProviderDeps) {
    const { credentials, settings } = config;
    const port = typeof settings.port === "number" ? settings.port : Number(settings.port ?? 587) || 587;
    this.timeoutMs = deps.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const username = stringSetting(credentials, "username");
    this.address = { host: stringSetting(settings, "host"), port };
    this.authenticates = !!username;
    this.transport = nodemailer.createTransport({
      host: stringSetting(settings, "host"),
      port,
      secure: typeof settings.secure === "boolean" ? settings.secure : port === 465,
      auth: username ? { user: username, pass: stringSetting(credentials, "password") } : undefined,
      // nodemailer's own timers bound each phase; the AbortSignal below bounds the whole send
      connectionTimeout: this.timeoutMs,
      greetingTimeout: this.timeoutMs,
      socketTimeout: this.timeoutMs,
      dnsTimeout: this.timeoutMs,
    } as SMTPTransportOptions);
    this.fromEmail = stringSetting(settings, "from_email");
    this.fromName = stringSetting(settings, "from_name");
  }

  buildMail(msg: OutboundMessage): Record<string, unknown> {
    const mail: Record<string, unknown> = {
      from: this.fromName ? { name: this.fromName, address: this.fromEmail } : this.fromEmail,
      to: msg.to,
      subject: msg.subject ?? "",
      // a Message-ID derived from the notification lets bounces and replies be matched back
      messageId: `<${msg.notificationId}@${domainOf(this.fromEmail)}>`,
      headers: { ...(msg.headers ?? {}), "X-Notification-Id": msg.notificationId },
    };
    const text = msg.text ?? msg.content;
    if (text) mail.text = text;
    if (msg.html) mail.html = msg.html;
    if (msg.dkim) {
      mail.dkim = {
        domainName: msg.dkim.domainName,
        keySelector: msg.dkim.keySelector,
        privateKey: msg.dkim.privateKey,
        headerFieldNames: DKIM_SIGNED_HEADERS,
      };
    }
    return mail;
  }

  /** nodemailer's verify: connect, greet, STARTTLS when offered, AUTH with the credentials; nothing is sent. */
  async verify(signal?: AbortSignal): Promise<VerifyResult> {
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const joined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    const { host, port } = this.address;
    try {
      const aborted = new Promise<never>((_, reject) => joined.addEventListener("abort", () => reject(Object.assign(new Error("aborted"), { code: "EABORT" })), { once: true }));
      await Promise.race([this.transport.verify(), aborted]);
      return { ok: true, message: `Connected to ${host}:${port}${this.authenticates ? " and authenticated" : ""}; nothing was sent`, response: { host, port } };
    } catch (err) {
      const f = classifySmtpError(err, timeout.aborted && !(signal?.aborted ?? false));
      return { ok: false, error: f.error, response: { host, port, ...(f.response ?? {}) } };
    }
  }

  async send(msg: OutboundMessage, signal?: AbortSignal): Promise<SendResult> {
    if (!msg.text && !msg.content && !msg.html) return failure(false, "empty_content", "email has neither text nor html content");
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const joined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    try {
      const info = (await this.transport.sendMail({ ...this.buildMail(msg), signal: joined } as SendMailOptions)) as {
        messageId?: string;
        response?: string;
        accepted?: unknown[];
        rejected?: unknown[];
        serverMessageId?: string;
      };
      const response: Record<string, unknown> = {
        smtp_response: info.response,
        accepted: (info.accepted ?? []).map(String),
        rejected: (info.rejected ?? []).map(String),
      };
      if (info.serverMessageId) response.server_message_id = info.serverMessageId;
      if ((info.accepted ?? []).length === 0) {
        return failure(false, "recipient_rejected", "SMTP server accepted no recipient", { response });
      }
      return { ok: true, providerMessageId: info.messageId ?? `<${msg.notificationId}>`, response };
    } catch (err) {
      return classifySmtpError(err, timeout.aborted && !(signal?.aborted ?? false));
    }
  }
}

export const smtpDefinition: ProviderDefinition = {
  name: "smtp",
  channels: ["email"],
  defaultRateLimitPerSecond: 10,
  credentialFields: [
    { name: "username", required: false, description: "SMTP AUTH user", type: "string" },
    { name: "password", required: false, description: "SMTP AUTH password", type: "string" },
  ],
  settingFields: [
    { name: "host", required: true, description: "SMTP server host", type: "string" },
    { name: "port", required: false, description: "SMTP port 1-65535 (default 587)", type: "integer" },
    { name: "secure", required: false, description: "implicit TLS (default: true on port 465)", type: "boolean" },
    { name: "from_email", required: true, description: "sender address", type: "string" },
    { name: "from_name", required: false, description: "sender display name", type: "string" },
    { name: "rate_limit_per_second", required: false, description: "sends per second (default 10)", type: "number" },
    { name: "track_opens", required: false, description: "add an open-tracking pixel to HTML emails (default false)", type: "boolean" },
    { name: "track_clicks", required: false, description: "rewrite the links of HTML emails to count clicks (default false)", type: "boolean" },
  ],
  validate(credentials, settings) {
    const checks = new ConfigChecks(credentials, settings);
    checks.optionalBoolean("settings", "track_opens");
    checks.optionalBoolean("settings", "track_clicks");
    const user = checks.optionalString("credentials", "username");
    checks.optionalString("credentials", "password");
    if (user === undefined && checks.present("credentials", "password")) {
      checks.add("credentials", "username", "is required when a password is given");
    }
    const host = checks.requireString("settings", "host");
    if (host !== undefined && /[\s/]/.test(host)) checks.add("settings", "host", "must be a host name or IP address");
    if (checks.present("settings", "port")) {
      const port = settings.port;
      if (typeof port !== "number" || !Number.isInteger(port) || port < 1 || port > 65535) {
        checks.add("settings", "port", "must be an integer between 1 and 65535");
      }
    }
    checks.optionalBoolean("settings", "secure");
    const from = checks.requireString("settings", "from_email");
    if (from !== undefined && !isEmailAddress(from)) checks.add("settings", "from_email", "must be an email address");
    checks.optionalString("settings", "from_name");
    checks.sharedSettings();
    return checks.errors;
  },
  create(config, deps = {}) {
    return new SmtpProvider(config, deps);
  },
};
