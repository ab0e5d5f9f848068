// The `vonage` sms provider: Vonage Messages API (POST /v1/messages, a JWT of the application's private
// key or basic auth api_key:api_secret); message_uuid is the id; plus its JWT-signed status webhooks.
import { createHash, createPrivateKey } from "node:crypto";
import { importPKCS8, jwtVerify, SignJWT, type CryptoKey } from "jose";
import { ConfigChecks, isE164, joinUrl, stringSetting } from "../config-checks";
import { failureFromHttp, httpCall, summarise, type HttpCallResponse } from "../http-call";
import { callerFault, failure, parseRetryAfter } from "../outcome";
import type { OutboundMessage, Provider, ProviderConfig, ProviderDefinition, ProviderDeps, ProviderReceipt, SendFailure, SendResult } from "../types";

export const VONAGE_BASE_URL = "https://api.nexmo.com";
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ALPHANUMERIC_SENDER = /^(?=.*[A-Za-z])[A-Za-z0-9 ]{1,11}$/;
// a JWT is valid 15 minutes; a new one is made after 10
const JWT_TTL_S = 900;
const JWT_REUSE_MS = 600_000;

/** Vonage's errors are RFC 7807 problem details: {type: ".../messages#1150", title, detail, invalid_parameters?}. */
export function vonageFailure(res: HttpCallResponse): SendFailure {
  const b = (res.body ?? {}) as { type?: unknown; title?: unknown; detail?: unknown; invalid_parameters?: unknown };
  const number = typeof b.type === "string" ? /#(\w+)$/.exec(b.type)?.[1] : undefined;
  const message = [b.title, b.detail].filter((x): x is string => typeof x === "string" && x !== "").join(": ") || undefined;
  const params = Array.isArray(b.invalid_parameters) ? (b.invalid_parameters as { name?: unknown; reason?: unknown }[]) : [];
  const detail = params.map((p) => `${String(p.name)}: ${String(p.reason ?? "invalid")}`).join("; ");
  const f = failureFromHttp(res, { code: number ? `vonage_${number}` : undefined, message: detail ? `${message ?? "Invalid params"} (${detail})` : message }, parseRetryAfter(res.headers.get("retry-after")));
  // 422 Invalid params names the request's fields: the caller's fault unless it is the sender (configuration)
  if ((res.status === 422 || res.status === 400) && !params.some((p) => p.name === "from")) return callerFault(f);
  return f;
}

export class VonageProvider implements Provider {
  readonly name = "vonage";
  private readonly applicationId: string;
  private readonly privateKeyPem: string;
  private readonly apiKey: string;
  private readonly apiSecret: string;
  private readonly from: string;
  private readonly baseUrl: string;
  private signingKey?: Promise<CryptoKey>;
  private token?: { value: string; madeAt: number };

  constructor(config: ProviderConfig, private readonly deps: ProviderDeps) {
    this.applicationId = stringSetting(config.credentials, "application_id");
    this.privateKeyPem = stringSetting(config.credentials, "private_key");
    this.apiKey = stringSetting(config.credentials, "api_key");
    this.apiSecret = stringSetting(config.credentials, "api_secret");
    this.from = stringSetting(config.settings, "from");
    this.baseUrl = stringSetting(config.settings, "base_url", VONAGE_BASE_URL);
  }

  /** Authorization: the application's JWT (RS256) when it has one, else basic auth */
  private async authorization(): Promise<string> {
    if (!this.applicationId || !this.privateKeyPem) return `Basic ${Buffer.from(`${this.apiKey}:${this.apiSecret}`).toString("base64")}`;
    const now = Date.now();
    if (this.token && now - this.token.madeAt < JWT_REUSE_MS) return `Bearer ${this.token.value}`;
    this.signingKey ??= importPKCS8(pkcs8Pem(this.privateKeyPem), "RS256");
    const iat = Math.floor(now / 1000);
    const value = await new SignJWT({ application_id: this.applicationId })
      .setProtectedHeader({ alg: "RS256", typ: "JWT" })
      .setIssuedAt(iat)
      .setExpirationTime(iat + JWT_TTL_S)
      .setJti(crypto.randomUUID())
      .sign(await this.signingKey);
    this.token = { value, madeAt: now };
    return `Bearer ${value}`;
  }

  buildBody(msg: OutboundMessage): Record<string, unknown> {
    const body: Record<string, unknown> = {
      message_type: "text",
      channel: "sms",
      // Vonage numbers are E.164 without the +
      to: msg.to.replace(/^\+/, ""),
      from: isE164(this.from) ? this.from.slice(1) : this.from,
      text: msg.content ?? msg.text ?? msg.body ?? "",
      client_ref: msg.notificationId,
    };
    // Vonage POSTs this message's status there (overriding the application's status URL)
    if (msg.statusCallbackUrl) body.webhook_url = msg.statusCallbackUrl;
    return body;
  }

  async send(msg: OutboundMessage, signal?: AbortSignal): Promise<SendResult> {
    const body = this.buildBody(msg);
    if (body.text === "") return failure(false, "empty_content", "message has no content");
    let authorization: string;
    try {
      authorization = await this.authorization();
    } catch (err) {
      return failure(false, "invalid_private_key", `the application's private key cannot sign a JWT (${(err as Error).message.slice(0, 120)})`);
    }
    const call = await httpCall(
      {
        url: joinUrl(this.baseUrl, "/v1/messages"),
        headers: { authorization, "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify(body),
      },
      this.deps,
      signal,
    );
    if (!call.ok) return call.failure;
    const res = call.res;
    if (res.status >= 200 && res.status < 300) {
      const id = (res.body as { message_uuid?: unknown } | null)?.message_uuid;
      if (typeof id !== "string" || id === "") {
        return failure(false, "invalid_response", "Vonage accepted the message without a message_uuid", { response: summarise(res) });
      }
      return { ok: true, providerMessageId: id, response: summarise(res) };
    }
    return vonageFailure(res);
  }
}

/** a PKCS#8 PEM from what Vonage hands out (PKCS#8 already) or a PKCS#1 RSA key */
function pkcs8Pem(pem: string): string {
  const text = pem.replace(/\\n/g, "\n").trim();
  if (text.includes("BEGIN PRIVATE KEY")) return text;
  return createPrivateKey(text).export({ type: "pkcs8", format: "pem" }).toString();
}

function privateKeyProblem(pem: string): string | null {
  try {
    const key = createPrivateKey(pem.replace(/\\n/g, "\n").trim());
    return key.asymmetricKeyType === "rsa" ? null : "must be an RSA private key";
  } catch {
    return "must be the application's private key in PEM (-----BEGIN PRIVATE KEY-----)";
  }
}

// ---------------------------------------------------------------------------------------------
// Status webhooks (POST /webhooks/vonage/:channel_id): Authorization: Bearer <JWT HS256 under the
// account's signature secret> whose payload_hash is the SHA-256 of the body.

/** true when the JWT verifies under the signature secret, is at most 5 minutes old, and payload_hash is the body's SHA-256. */
export async function verifyVonageWebhook(signatureSecret: string, authorization: string | null | undefined, rawBody: string): Promise<boolean> {
  const token = /^Bearer\s+(\S+)$/i.exec(authorization?.trim() ?? "")?.[1];
  if (!token || !signatureSecret) return false;
  try {
    const { payload } = await jwtVerify(token, new TextEncoder().encode(signatureSecret), { algorithms: ["HS256"], maxTokenAge: "5m", clockTolerance: 30 });
    const expected = createHash("sha256").update(rawBody, "utf8").digest("hex");
    return typeof payload.payload_hash === "string" && payload.payload_hash.toLowerCase() === expected;
  } catch {
    return false;
  }
}

const str = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);

/** submitted -> sent, delivered -> delivered, read -> opened, rejected / undeliverable / failed -> failed. */
export function vonageReceipt(raw: unknown, now = new Date()): ProviderReceipt | null {
  const e = (raw ?? {}) as Record<string, any>;
  const messageId = str(e.message_uuid);
  const status = str(e.status)?.toLowerCase();
  if (!messageId || !status) return null;
  const t = typeof e.timestamp === "string" ? Date.parse(e.timestamp) : NaN;
  const base = { messageId, at: Number.isNaN(t) ? now : new Date(t), providerStatus: status };
  if (status === "submitted") return { ...base, kind: "sent" };
  if (status === "delivered") return { ...base, kind: "delivered" };
  if (status === "read") return { ...base, kind: "opened" };
  if (status === "rejected" || status === "undeliverable" || status === "failed") {
    const code = str(e.error?.title) ?? (typeof e.error?.type === "string" ? /#(\w+)$/.exec(e.error.type)?.[1] : undefined);
    const message = str(e.error?.detail) ?? `Vonage reported the message ${status}`;
    return { ...base, kind: "failed", error: { code: code && /^\w+$/.test(code) ? `vonage_${code}` : `vonage_${status}`, message } };
  }
  return null;
}

export const vonageDefinition: ProviderDefinition = {
  name: "vonage",
  channels: ["sms"],
  defaultRateLimitPerSecond: 30,
  credentialFields: [
    { name: "application_id", required: false, description: "Vonage application id (a UUID); with private_key, sends authenticate with the application's JWT", type: "string" },
    { name: "private_key", required: false, description: "the application's private key (PEM)", type: "string" },
    { name: "api_key", required: false, description: "account API key, for basic auth when no application is given", type: "string" },
    { name: "api_secret", required: false, description: "account API secret, for basic auth", type: "string" },
    { name: "signature_secret", required: false, description: "the account's signature secret (HS256); status webhooks are refused until it is set", type: "string" },
  ],
  settingFields: [
    { name: "from", required: true, description: "sender: an E.164 number (+447700900000) or an alphanumeric sender id (up to 11 characters)", type: "string" },
    { name: "base_url", required: false, description: `API base URL (default ${VONAGE_BASE_URL}; https://api-eu.vonage.com for the EU)`, type: "string" },
    { name: "rate_limit_per_second", required: false, description: "sends per second (default 30, the Messages API's limit)", type: "number" },
  ],
  validate(credentials, settings) {
    const checks = new ConfigChecks(credentials, settings);
    const appId = checks.optionalString("credentials", "application_id");
    const key = checks.optionalString("credentials", "private_key");
    const apiKey = checks.optionalString("credentials", "api_key");
    const apiSecret = checks.optionalString("credentials", "api_secret");
    if (appId !== undefined && !UUID_RE.test(appId)) checks.add("credentials", "application_id", "must be the application's id (a UUID)");
    if (key !== undefined) {
      const problem = privateKeyProblem(key);
      if (problem) checks.add("credentials", "private_key", problem);
    }
    if ((appId === undefined) !== (key === undefined)) checks.add("credentials", appId === undefined ? "application_id" : "private_key", "is required with the other one of application_id and private_key");
    if ((apiKey === undefined) !== (apiSecret === undefined)) checks.add("credentials", apiKey === undefined ? "api_key" : "api_secret", "is required with the other one of api_key and api_secret");
    if (appId === undefined && key === undefined && apiKey === undefined && apiSecret === undefined) {
      checks.add("credentials", "application_id", "is required: give application_id and private_key (JWT), or api_key and api_secret (basic auth)");
    }
    const secret = checks.optionalString("credentials", "signature_secret");
    if (secret !== undefined && secret.length < 16) checks.add("credentials", "signature_secret", "must be at least 16 characters (Vonage's signature secret)");
    const from = checks.requireString("settings", "from");
    if (from !== undefined && !isE164(from) && !ALPHANUMERIC_SENDER.test(from)) {
      checks.add("settings", "from", "must be an E.164 number such as +447700900000 or an alphanumeric sender id of up to 11 letters, digits and spaces");
    }
    checks.optionalUrl("settings", "base_url");
    checks.sharedSettings();
    return checks.errors;
  },
  create(config, deps = {}) {
    return new VonageProvider(config, deps);
  },
};
