// The `fcm` push provider: FCM HTTP v1. A service-account JWT (RS256, jose) is exchanged at the
// OAuth token endpoint for an access token, cached per service account until shortly before expiry.
import { createHash } from "node:crypto";
import { SignJWT, importPKCS8 } from "jose";
import { ConfigChecks, joinUrl, stringSetting } from "../config-checks";
import { failureFromHttp, httpCall, summarise, type HttpCallResponse } from "../http-call";
import { failure, unregistered } from "../outcome";
import type {
  OutboundMessage,
  Provider,
  ProviderConfig,
  ProviderDefinition,
  ProviderDeps,
  SendFailure,
  SendResult,
} from "../types";

export const FCM_BASE_URL = "https://fcm.googleapis.com";
export const GOOGLE_TOKEN_URL = "https://oauth2.googleapis.com/token";
export const FCM_SCOPE = "https://www.googleapis.com/auth/firebase.messaging";
// renew this long before Google's expiry so a token never dies in flight
const TOKEN_EXPIRY_MARGIN_MS = 60_000;

const PERMANENT_FCM_CODES = new Set(["UNREGISTERED", "INVALID_ARGUMENT", "SENDER_ID_MISMATCH", "THIRD_PARTY_AUTH_ERROR", "NOT_FOUND", "PERMISSION_DENIED"]);
const RETRYABLE_FCM_CODES = new Set(["UNAVAILABLE", "INTERNAL", "QUOTA_EXCEEDED", "RESOURCE_EXHAUSTED"]);

export interface ServiceAccount {
  client_email: string;
  private_key: string;
  private_key_id?: string;
  project_id?: string;
}

/** FCM v1 error: {error:{code,message,status,details:[{"@type":"...FcmError",errorCode}]}}; errorCode wins over status */
export function readFcmError(body: unknown): { code?: string; message?: string; retryable?: boolean } {
  const e = (body as { error?: Record<string, unknown> } | null)?.error;
  if (!e || typeof e !== "object") return {};
  let fcmCode: string | undefined;
  if (Array.isArray(e.details)) {
    for (const d of e.details as Record<string, unknown>[]) {
      if (typeof d?.errorCode === "string") fcmCode = d.errorCode;
    }
  }
  const code = fcmCode ?? (typeof e.status === "string" ? e.status : undefined);
  let retryable: boolean | undefined;
  if (code && PERMANENT_FCM_CODES.has(code)) retryable = false;
  if (code && RETRYABLE_FCM_CODES.has(code)) retryable = true;
  return {
    code: code ? `fcm_${code.toLowerCase()}` : undefined,
    message: typeof e.message === "string" ? e.message : undefined,
    retryable,
  };
}

/** service_account arrives as an object (DESIGN.md 7) or, from some clients, its JSON text */
export function parseServiceAccount(value: unknown): Partial<ServiceAccount> | undefined {
  if (typeof value === "string") {
    try {
      const parsed = JSON.parse(value);
      return parsed && typeof parsed === "object" && !Array.isArray(parsed) ? parsed : undefined;
    } catch {
      return undefined;
    }
  }
  return value && typeof value === "object" && !Array.isArray(value) ? (value as Partial<ServiceAccount>) : undefined;
}

/** FCM data payloads are string -> string maps */
export function toFcmData(data: Record<string, unknown> | undefined): Record<string, string> | undefined {
  if (!data) return undefined;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(data)) {
    if (v === undefined || v === null) continue;
    out[k] = typeof v === "string" ? v : JSON.stringify(v);
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

interface CachedToken {
  accessToken: string;
  expiresAt: number;
}

// module-wide so channel senders that build a provider per send still share one token per account
const tokenCache = new Map<string, CachedToken>();
const tokenInFlight = new Map<string, Promise<CachedToken | SendFailure>>();

/** for tests: forget every cached access token */
export function clearFcmTokenCache(): void {
  tokenCache.clear();
  tokenInFlight.clear();
}

export class FcmProvider implements Provider {
  readonly name = "fcm";
  private readonly account: Partial<ServiceAccount>;
  private readonly projectId: string;
  private readonly baseUrl: string;
  private readonly tokenUrl: string;
  private readonly cacheKey: string;

  constructor(config: ProviderConfig, private readonly deps: ProviderDeps) {
    this.account = parseServiceAccount(config.credentials.service_account) ?? {};
    this.projectId = stringSetting(config.settings, "project_id", this.account.project_id ?? "");
    this.baseUrl = stringSetting(config.settings, "base_url", FCM_BASE_URL);
    this.tokenUrl = stringSetting(config.settings, "token_url", GOOGLE_TOKEN_URL);
    const keyHash = createHash("sha256").update(this.account.private_key ?? "").digest("hex").slice(0, 16);
    this.cacheKey = `${this.tokenUrl}|${this.account.client_email ?? ""}|${keyHash}`;
  }

  private async accessToken(signal?: AbortSignal): Promise<CachedToken | SendFailure> {
    const cached = tokenCache.get(this.cacheKey);
    if (cached && cached.expiresAt - TOKEN_EXPIRY_MARGIN_MS > Date.now()) return cached;
    // concurrent sends share one exchange instead of each minting a token
    let pending = tokenInFlight.get(this.cacheKey);
    if (!pending) {
      pending = this.exchangeToken(signal).finally(() => tokenInFlight.delete(this.cacheKey));
      tokenInFlight.set(this.cacheKey, pending);
    }
    return pending;
  }

  private async exchangeToken(signal?: AbortSignal): Promise<CachedToken | SendFailure> {
    const { client_email, private_key, private_key_id } = this.account;
    if (!client_email || !private_key) {
      return failure(false, "fcm_invalid_service_account", "service_account needs client_email and private_key");
    }
    let assertion: string;
    try {
      const key = await importPKCS8(private_key, "RS256");
      const header: { alg: string; typ: string; kid?: string } = { alg: "RS256", typ: "JWT" };
      if (private_key_id) header.kid = private_key_id;
      assertion = await new SignJWT({ scope: FCM_SCOPE })
        .setProtectedHeader(header)
        .setIssuer(client_email)
        .setSubject(client_email)
        .setAudience(this.tokenUrl)
        .setIssuedAt()
        .setExpirationTime("1h")
        .sign(key);
    } catch (err) {
      return failure(false, "fcm_invalid_service_account", `service_account private_key cannot sign: ${(err as Error).message}`);
    }
    const form = new URLSearchParams({ grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer", assertion });
    const call = await httpCall(
      { url: this.tokenUrl, headers: { "content-type": "application/x-www-form-urlencoded" }, body: form.toString() },
      this.deps,
      signal,
    );
    if (!call.ok) return call.failure;
    const res = call.res;
    const body = res.body as { access_token?: unknown; expires_in?: unknown; error?: unknown; error_description?: unknown } | null;
    if (res.status >= 200 && res.status < 300 && typeof body?.access_token === "string") {
      const expiresIn = typeof body.expires_in === "number" ? body.expires_in : 3600;
      const token = { accessToken: body.access_token, expiresAt: Date.now() + expiresIn * 1000 };
      tokenCache.set(this.cacheKey, token);
      return token;
    }
    // the token body is never stored whole: only the OAuth error fields
    const oauthError = typeof body?.error === "string" ? body.error : undefined;
    const safe: HttpCallResponse = { ...res, body: oauthError ? { error: oauthError, error_description: body?.error_description } : null };
    const result = failureFromHttp(safe, {
      code: oauthError ? `fcm_auth_${oauthError}` : `fcm_auth_http_${res.status}`,
      message: `token exchange failed: ${typeof body?.error_description === "string" ? body.error_description : `HTTP ${res.status}`}`,
    });
    return result;
  }

  buildBody(msg: OutboundMessage): Record<string, unknown> {
    const message: Record<string, unknown> = { token: msg.to };
    const title = msg.title ?? msg.subject;
    const body = msg.body ?? msg.content ?? msg.text;
    if (title || body) {
      const notification: Record<string, string> = {};
      if (title) notification.title = title;
      if (body) notification.body = body;
      message.notification = notification;
    }
    const data = toFcmData(msg.data);
    if (data) message.data = data;
    return { message };
  }

  async send(msg: OutboundMessage, signal?: AbortSignal): Promise<SendResult> {
    const payload = JSON.stringify(this.buildBody(msg));
    // one retry with a fresh token when Google says the cached one is no longer valid
    for (let round = 0; round < 2; round++) {
      const token = await this.accessToken(signal);
      if ("ok" in token) return token;
      const call = await httpCall(
        {
          url: joinUrl(this.baseUrl, `/v1/projects/${encodeURIComponent(this.projectId)}/messages:send`),
          headers: { authorization: `Bearer ${token.accessToken}`, "content-type": "application/json" },
          body: payload,
        },
        this.deps,
        signal,
      );
      if (!call.ok) return call.failure;
      const res = call.res;
      if (res.status >= 200 && res.status < 300) {
        const name = (res.body as { name?: unknown } | null)?.name;
        if (typeof name !== "string" || name === "") {
          return failure(false, "invalid_response", "FCM accepted the message without a name", { response: summarise(res) });
        }
        return { ok: true, providerMessageId: name, response: summarise(res) };
      }
      const fcmError = readFcmError(res.body);
      if (res.status === 401 && fcmError.code !== "fcm_third_party_auth_error" && round === 0) {
        if (tokenCache.get(this.cacheKey) === token) tokenCache.delete(this.cacheKey);
        continue;
      }
      const result = failureFromHttp(res, fcmError);
      // the token was deleted or expired on the device: the sender suppresses it from now on
      return fcmError.code === "fcm_unregistered" ? unregistered(result) : result;
    }
    return failure(false, "fcm_unauthenticated", "FCM refused a freshly minted access token");
  }
}

export const fcmDefinition: ProviderDefinition = {
  name: "fcm",
  channels: ["push"],
  defaultRateLimitPerSecond: 500,
  credentialFields: [
    { name: "service_account", required: true, description: "service account key JSON (client_email, private_key, private_key_id)", type: "object" },
  ],
  settingFields: [
    { name: "project_id", required: true, description: "Firebase project id", type: "string" },
    { name: "base_url", required: false, description: `FCM base URL (default ${FCM_BASE_URL})`, type: "string" },
    { name: "token_url", required: false, description: `OAuth token endpoint (default ${GOOGLE_TOKEN_URL})`, type: "string" },
    { name: "rate_limit_per_second", required: false, description: "sends per second (default 500)", type: "number" },
  ],
  validate(credentials, settings) {
    const checks = new ConfigChecks(credentials, settings);
    if (!checks.present("credentials", "service_account")) {
      checks.add("credentials", "service_account", "is required");
    } else {
      const account = parseServiceAccount(credentials.service_account);
      if (!account) {
        checks.add("credentials", "service_account", "must be the service account key JSON object");
      } else {
        if (typeof account.client_email !== "string" || !account.client_email.includes("@")) {
          checks.add("credentials", "service_account", "must contain client_email");
        }
        if (typeof account.private_key !== "string" || !account.private_key.includes("PRIVATE KEY")) {
          checks.add("credentials", "service_account", "must contain private_key (PEM, PKCS#8)");
        }
      }
    }
    checks.requireString("settings", "project_id");
    checks.optionalUrl("settings", "base_url");
    checks.optionalUrl("settings", "token_url");
    checks.sharedSettings();
    return checks.errors;
  },
  create(config, deps = {}) {
    return new FcmProvider(config, deps);
  },
};
