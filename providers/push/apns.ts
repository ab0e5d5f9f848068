// The `apns` push provider: Apple Push Notification service directly, HTTP/2 (node:http2) with a
// token-based ES256 JWT (jose), one cached per key and one connection kept per origin; apns-id is the id.
import { createHash, createPrivateKey } from "node:crypto";
import http2 from "node:http2";
import { importPKCS8, SignJWT } from "jose";
import { ConfigChecks, stringSetting } from "../config-checks";
import { callerFault, failure, isAbortError, parseRetryAfter, unregistered } from "../outcome";
import type { OutboundMessage, Provider, ProviderConfig, ProviderDefinition, ProviderDeps, SendFailure, SendResult } from "../types";
import { DEFAULT_TIMEOUT_MS } from "../types";

export const APNS_PRODUCTION_URL = "https://api.push.apple.com";
export const APNS_DEVELOPMENT_URL = "https://api.sandbox.push.apple.com";
// Apple refuses a token older than an hour and one renewed more often than every 20 minutes
const TOKEN_REUSE_MS = 40 * 60_000;
const DEVICE_TOKEN_RE = /^[0-9a-fA-F]{64,200}$/;
const TEN_CHARS = /^[A-Z0-9]{10}$/;

// reasons about this one request (its token, its payload): the caller's fault
const CALLER_FAULT_REASONS = new Set(["BadDeviceToken", "DeviceTokenNotForTopic", "MissingDeviceToken", "PayloadEmpty", "PayloadTooLarge", "BadCollapseId", "BadExpirationDate", "BadPriority"]);
// our provider token went stale between signing and sending: a new one is made and the send retried
const STALE_TOKEN_REASONS = new Set(["ExpiredProviderToken"]);

/** BadDeviceToken -> apns_bad_device_token */
export function apnsCode(reason: string): string {
  return `apns_${reason.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase()}`;
}

/** Classifies an APNs answer that is not 200: 410 unregistered, 429/5xx retryable, a bad token or payload the caller's fault. */
export function apnsFailure(status: number, headers: Record<string, string | string[] | undefined>, body: string): SendFailure {
  let reason = "";
  try {
    const parsed = JSON.parse(body) as { reason?: unknown };
    if (typeof parsed.reason === "string") reason = parsed.reason;
  } catch {
    /* no JSON: the status decides */
  }
  const code = reason ? apnsCode(reason) : `http_${status}`;
  const message = reason ? `APNs answered ${status} ${reason}` : `APNs answered HTTP ${status}`;
  const response = { status, body: reason ? { reason } : body.slice(0, 512), "apns-id": headers["apns-id"] };
  const retryable = status === 429 || status >= 500 || STALE_TOKEN_REASONS.has(reason);
  const retryAfter = headers["retry-after"];
  const f = failure(retryable, code, message, { response, retryAfterMs: retryable ? parseRetryAfter(Array.isArray(retryAfter) ? retryAfter[0] : retryAfter) : undefined });
  // 410: the token is no longer valid for the topic (app uninstalled): never send to it again
  if (status === 410 || reason === "Unregistered" || reason === "ExpiredToken") return unregistered(f);
  if (CALLER_FAULT_REASONS.has(reason)) return callerFault(f);
  return f;
}

// ---------------------------------------------------------------------------------------------
// Provider tokens, shared by every adapter instance of one key (Apple throttles token changes).

const tokens = new Map<string, { value: string; madeAt: number }>();

async function providerToken(teamId: string, keyId: string, pem: string, now = Date.now()): Promise<string> {
  const cacheKey = createHash("sha256").update(`${teamId}\0${keyId}\0${pem}`).digest("hex");
  const cached = tokens.get(cacheKey);
  if (cached && now - cached.madeAt < TOKEN_REUSE_MS) return cached.value;
  const key = await importPKCS8(pem, "ES256");
  const value = await new SignJWT({}).setProtectedHeader({ alg: "ES256", kid: keyId }).setIssuer(teamId).setIssuedAt(Math.floor(now / 1000)).sign(key);
  tokens.set(cacheKey, { value, madeAt: now });
  return value;
}

function forgetToken(teamId: string, keyId: string, pem: string): void {
  tokens.delete(createHash("sha256").update(`${teamId}\0${keyId}\0${pem}`).digest("hex"));
}

// ---------------------------------------------------------------------------------------------
// HTTP/2 sessions: one per origin (and trust settings), reused across sends as Apple asks.

const sessions = new Map<string, http2.ClientHttp2Session>();

function session(origin: string, tls: ProviderDeps["tls"]): http2.ClientHttp2Session {
  const key = `${origin}\0${tls?.servername ?? ""}\0${tls?.ca ? createHash("sha256").update(tls.ca).digest("hex") : ""}`;
  const existing = sessions.get(key);
  if (existing && !existing.closed && !existing.destroyed) return existing;
  const s = http2.connect(origin, tls ? { ca: tls.ca, servername: tls.servername } : {});
  const drop = () => {
    if (sessions.get(key) === s) sessions.delete(key);
  };
  s.on("error", drop);
  s.on("close", drop);
  s.on("goaway", drop);
  // an idle connection must not keep the process alive
  s.unref();
  sessions.set(key, s);
  return s;
}

/** Closes every kept APNs connection (tests, shutdown). */
export async function closeApnsSessions(): Promise<void> {
  const all = [...sessions.values()];
  sessions.clear();
  await Promise.all(all.map((s) => new Promise<void>((resolve) => (s.closed ? resolve() : s.close(() => resolve())))));
}

interface H2Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function post(origin: string, path: string, headers: Record<string, string>, body: string, deps: ProviderDeps, signal?: AbortSignal): Promise<{ ok: true; res: H2Answer } | { ok: false; failure: SendFailure }> {
  return new Promise((resolve) => {
    let settled = false;
    const done = (v: { ok: true; res: H2Answer } | { ok: false; failure: SendFailure }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      resolve(v);
    };
    let req: http2.ClientHttp2Stream | undefined;
    const timer = setTimeout(() => {
      req?.close(http2.constants.NGHTTP2_CANCEL);
      done({ ok: false, failure: failure(true, "timeout", "provider did not answer before the deadline") });
    }, deps.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    const onAbort = () => {
      req?.close(http2.constants.NGHTTP2_CANCEL);
      done({ ok: false, failure: failure(true, "aborted", "send was cancelled before the provider answered") });
    };
    if (signal?.aborted) return onAbort();
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      const s = session(origin, deps.tls);
      req = s.request({ ":method": "POST", ":path": path, ...headers });
      let status = 0;
      let answerHeaders: Record<string, string | string[] | undefined> = {};
      let text = "";
      req.setEncoding("utf8");
      req.on("response", (h) => {
        status = Number(h[":status"]);
        answerHeaders = h as Record<string, string | string[] | undefined>;
      });
      req.on("data", (chunk: string) => {
        if (text.length < 4096) text += chunk;
      });
      req.on("end", () => done({ ok: true, res: { status, headers: answerHeaders, body: text } }));
      req.on("error", (err) => {
        const e = err as { code?: string; message?: string };
        done({ ok: false, failure: isAbortError(err) ? failure(true, "aborted", "send was cancelled") : failure(true, "network_error", `could not reach APNs (${`${e.code ?? ""} ${e.message ?? ""}`.trim().slice(0, 200)})`) });
      });
      req.end(body);
    } catch (err) {
      done({ ok: false, failure: failure(true, "network_error", `could not reach APNs (${String((err as Error).message).slice(0, 200)})`) });
    }
  });
}

export class ApnsProvider implements Provider {
  readonly name = "apns";
  private readonly teamId: string;
  private readonly keyId: string;
  private readonly privateKey: string;
  private readonly topic: string;
  private readonly origin: string;
  private readonly pushType: string;

  constructor(config: ProviderConfig, private readonly deps: ProviderDeps) {
    this.teamId = stringSetting(config.credentials, "team_id");
    this.keyId = stringSetting(config.credentials, "key_id");
    this.privateKey = stringSetting(config.credentials, "private_key").replace(/\\n/g, "\n");
    this.topic = stringSetting(config.settings, "topic");
    this.pushType = stringSetting(config.settings, "push_type", "alert");
    const fallback = config.settings.environment === "development" ? APNS_DEVELOPMENT_URL : APNS_PRODUCTION_URL;
    this.origin = originOf(stringSetting(config.settings, "base_url", fallback), fallback);
  }

  buildPayload(msg: OutboundMessage): Record<string, unknown> {
    const { aps: _reserved, ...custom } = (msg.data ?? {}) as Record<string, unknown>;
    if (this.pushType === "background") return { ...custom, aps: { "content-available": 1 } };
    const alert: Record<string, string> = {};
    if (msg.title ?? msg.subject) alert.title = (msg.title ?? msg.subject)!;
    const body = msg.body ?? msg.content ?? msg.text;
    if (body) alert.body = body;
    return { ...custom, aps: { alert, sound: "default" } };
  }

  async send(msg: OutboundMessage, signal?: AbortSignal): Promise<SendResult> {
    const token = msg.to.trim();
    if (!DEVICE_TOKEN_RE.test(token)) {
      return callerFault(failure(false, "apns_bad_device_token", "the recipient is not an APNs device token (64 or more hexadecimal characters)"));
    }
    const payload = this.buildPayload(msg);
    if (this.pushType !== "background" && Object.keys((payload.aps as { alert: object }).alert).length === 0) {
      return failure(false, "empty_content", "push has neither title nor body");
    }
    const attempt = async () => {
      let jwt: string;
      try {
        jwt = await providerToken(this.teamId, this.keyId, this.privateKey);
      } catch (err) {
        return { ok: false as const, failure: failure(false, "invalid_private_key", `the .p8 key cannot sign an ES256 token (${String((err as Error).message).slice(0, 120)})`) };
      }
      return post(
        this.origin,
        `/3/device/${token}`,
        {
          authorization: `bearer ${jwt}`,
          "apns-topic": this.pushType === "voip" ? `${this.topic}.voip` : this.topic,
          "apns-push-type": this.pushType,
          "apns-priority": this.pushType === "background" ? "5" : "10",
          "apns-expiration": "0",
          // our id, so the answer and Apple's feedback name the notification
          "apns-id": msg.notificationId,
          "content-type": "application/json",
        },
        JSON.stringify(payload),
        this.deps,
        signal,
      );
    };
    let call = await attempt();
    if (call.ok && call.res.status === 403 && call.res.body.includes("ExpiredProviderToken")) {
      // the cached token outlived Apple's hour (a clock jump): make a new one and try once more
      forgetToken(this.teamId, this.keyId, this.privateKey);
      call = await attempt();
    }
    if (!call.ok) return call.failure;
    const res = call.res;
    if (res.status === 200) {
      const id = typeof res.headers["apns-id"] === "string" ? res.headers["apns-id"] : msg.notificationId;
      return { ok: true, providerMessageId: id, response: { status: 200, "apns-id": id } };
    }
    return apnsFailure(res.status, res.headers, res.body);
  }
}

function originOf(url: string, fallback: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return fallback; // validate() refuses such a base_url; create() must not throw
  }
}

function p8Problem(pem: string): string | null {
  try {
    const key = createPrivateKey(pem.replace(/\\n/g, "\n"));
    return key.asymmetricKeyType === "ec" && key.asymmetricKeyDetails?.namedCurve === "prime256v1" ? null : "must be an ES256 (P-256) key";
  } catch {
    return "must be the .p8 authentication key from Apple (-----BEGIN PRIVATE KEY-----)";
  }
}

export const apnsDefinition: ProviderDefinition = {
  name: "apns",
  channels: ["push"],
  defaultRateLimitPerSecond: 500,
  credentialFields: [
    { name: "team_id", required: true, description: "Apple Developer Team ID (10 characters)", type: "string" },
    { name: "key_id", required: true, description: "Key ID of the APNs authentication key (10 characters)", type: "string" },
    { name: "private_key", required: true, description: "the .p8 authentication key (PEM, ES256)", type: "string" },
  ],
  settingFields: [
    { name: "topic", required: true, description: "the app's bundle id, e.g. com.acme.app", type: "string" },
    { name: "environment", required: false, description: "production (default) or development (the APNs sandbox, for debug builds)", type: "string" },
    { name: "push_type", required: false, description: "alert (default), background or voip", type: "string" },
    { name: "base_url", required: false, description: `APNs origin (default ${APNS_PRODUCTION_URL}; ${APNS_DEVELOPMENT_URL} for development)`, type: "string" },
    { name: "rate_limit_per_second", required: false, description: "sends per second (default 500)", type: "number" },
  ],
  validate(credentials, settings) {
    const checks = new ConfigChecks(credentials, settings);
    const team = checks.requireString("credentials", "team_id");
    if (team !== undefined && !TEN_CHARS.test(team)) checks.add("credentials", "team_id", "must be the 10-character Team ID (upper-case letters and digits)");
    const kid = checks.requireString("credentials", "key_id");
    if (kid !== undefined && !TEN_CHARS.test(kid)) checks.add("credentials", "key_id", "must be the 10-character Key ID (upper-case letters and digits)");
    const pem = checks.requireString("credentials", "private_key");
    if (pem !== undefined) {
      const problem = p8Problem(pem);
      if (problem) checks.add("credentials", "private_key", problem);
    }
    const topic = checks.requireString("settings", "topic");
    if (topic !== undefined && !/^[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$/.test(topic)) checks.add("settings", "topic", "must be the app's bundle id, such as com.acme.app");
    const env = checks.optionalString("settings", "environment");
    if (env !== undefined && env !== "production" && env !== "development") checks.add("settings", "environment", "must be production or development");
    const type = checks.optionalString("settings", "push_type");
    if (type !== undefined && !["alert", "background", "voip"].includes(type)) checks.add("settings", "push_type", "must be alert, background or voip");
    checks.optionalUrl("settings", "base_url");
    const base = checks.optionalString("settings", "base_url");
    if (base !== undefined && base.startsWith("http:")) checks.add("settings", "base_url", "must be https: APNs speaks HTTP/2 over TLS only");
    checks.sharedSettings();
    return checks.errors;
  },
  create(config, deps = {}) {
    return new ApnsProvider(config, deps);
  },
};
