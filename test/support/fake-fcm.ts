// A local server answering as Google's OAuth token endpoint (JWT-bearer grant, signature checked)
// and FCM HTTP v1 messages:send (Bearer token checked), with Google's error shapes and FcmError codes.
import { randomBytes, randomUUID } from "node:crypto";
import { decodeJwt, exportPKCS8, generateKeyPair, jwtVerify, type CryptoKey } from "jose";
import {
  handleOf,
  json,
  postRoute,
  retryAfterHeader,
  scriptedPrelude,
  startFakeHttp,
  stopStarted,
  successJson,
  track,
  type FakeHttpHandle,
  type RecordedRequest,
  type ScriptedResponse,
} from "./fake-http";

export interface FakeFcmMessage {
  name: string;
  projectId: string;
  message: Record<string, any>;
  request: RecordedRequest;
}

export interface FakeFcm extends FakeHttpHandle {
  /** pass as settings.token_url */
  readonly tokenUrl: string;
  readonly messages: FakeFcmMessage[];
  /** access tokens issued so far (token requests that succeeded) */
  readonly issuedTokens: string[];
  /** queue answers for the token endpoint (script()/always() drive messages:send) */
  scriptToken(...responses: ScriptedResponse[]): void;
  /** generate an RSA key pair and return a service account whose JWTs this fake accepts */
  createServiceAccount(opts?: { projectId?: string; clientEmail?: string }): Promise<ServiceAccountJson>;
  /** make every issued access token invalid (FCM then answers 401 UNAUTHENTICATED) */
  revokeTokens(): void;
}

export interface ServiceAccountJson {
  type: "service_account";
  project_id: string;
  private_key_id: string;
  private_key: string;
  client_email: string;
  client_id: string;
  token_uri: string;
}

export interface FakeFcmOptions {
  port?: number;
  /** expires_in of issued tokens (default 3600) */
  tokenTtlSeconds?: number;
}

const FCM_ERROR_STATUS: Record<string, { http: number; status: string }> = {
  UNREGISTERED: { http: 404, status: "NOT_FOUND" },
  INVALID_ARGUMENT: { http: 400, status: "INVALID_ARGUMENT" },
  SENDER_ID_MISMATCH: { http: 403, status: "PERMISSION_DENIED" },
  THIRD_PARTY_AUTH_ERROR: { http: 401, status: "UNAUTHENTICATED" },
  QUOTA_EXCEEDED: { http: 429, status: "RESOURCE_EXHAUSTED" },
  UNAVAILABLE: { http: 503, status: "UNAVAILABLE" },
  INTERNAL: { http: 500, status: "INTERNAL" },
};

/** FCM v1 error body with the FcmError detail the real API attaches */
export function fcmError(errorCode: string, message: string, opts: { http?: number; headers?: Record<string, string> } = {}): Response {
  const mapped = FCM_ERROR_STATUS[errorCode] ?? { http: opts.http ?? 400, status: errorCode };
  const http = opts.http ?? mapped.http;
  return json(
    http,
    {
      error: {
        code: http,
        message,
        status: mapped.status,
        details: [{ "@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", errorCode }],
      },
    },
    opts.headers,
  );
}

function oauthError(status: number, error: string, description: string, headers: Record<string, string> = {}): Response {
  return json(status, { error, error_description: description }, headers);
}

const SEND_RE = /^\/v1\/projects\/([^/]+)\/messages:send$/;
const started = new Set<FakeFcm>();

export async function start(opts: FakeFcmOptions = {}): Promise<FakeFcm> {
  const messages: FakeFcmMessage[] = [];
  const issuedTokens: string[] = [];
  const liveTokens = new Map<string, number>(); // token -> expiry ms
  const trustedKeys = new Map<string, CryptoKey>(); // client_email -> public key
  const ttl = opts.tokenTtlSeconds ?? 3600;

  const tokenRoute = postRoute("token", /^\/token$/, async (rec, _match, core) => {
    const form = rec.form ?? {};
    if (form.grant_type !== "urn:ietf:params:oauth:grant-type:jwt-bearer") {
      return oauthError(400, "unsupported_grant_type", "Invalid grant_type: " + (form.grant_type ?? ""));
    }
    if (!form.assertion) return oauthError(400, "invalid_request", "Missing required parameter: assertion");
    let iss: string | undefined;
    try {
      iss = decodeJwt(form.assertion).iss;
    } catch {
      return oauthError(400, "invalid_grant", "Invalid JWT: Token must be a short-lived token and in a reasonable timeframe.");
    }
    const key = iss ? trustedKeys.get(iss) : undefined;
    if (!key) return oauthError(400, "invalid_grant", "Invalid grant: account not found");
    try {
      const { payload, protectedHeader } = await jwtVerify(form.assertion, key, {
        audience: `${core.url}/token`,
        issuer: iss,
        algorithms: ["RS256"],
        maxTokenAge: "1h",
      });
      rec.extra = { claims: payload, header: protectedHeader };
      if (typeof payload.scope !== "string" || !payload.scope.split(" ").includes("https://www.googleapis.com/auth/firebase.messaging")) {
        return oauthError(400, "invalid_scope", "Invalid OAuth scope or ID token audience provided.");
      }
    } catch (err) {
      return oauthError(400, "invalid_grant", `Invalid JWT Signature. (${(err as Error).message})`);
    }
    const pre = await scriptedPrelude(core, core.next("token"));
    if ("done" in pre) return pre.done;
    const s = pre.scripted;
    if (s?.kind === "rate_limit") return oauthError(429, "rate_limit_exceeded", s.message ?? "Rate limit exceeded", retryAfterHeader(s.retryAfter));
    if (s?.kind === "server_error") return oauthError(s.status ?? 500, "internal_failure", s.message ?? "Backend Error", retryAfterHeader(s.retryAfter));
    if (s?.kind === "error") return oauthError(s.status, String(s.code ?? "invalid_grant"), s.message ?? "Invalid grant", s.headers);
    const token = `ya29.fake-${randomBytes(18).toString("base64url")}`;
    const expiresIn = s?.kind === "success" && typeof (s.body as any)?.expires_in === "number" ? (s.body as any).expires_in : ttl;
    liveTokens.set(token, Date.now() + expiresIn * 1000);
    issuedTokens.push(token);
    return json(200, { access_token: token, expires_in: expiresIn, token_type: "Bearer" });
  });

  const sendRoute = postRoute("send", SEND_RE, async (rec, match, core) => {
    const auth = rec.headers.authorization ?? "";
    const token = auth.startsWith("Bearer ") ? auth.slice(7) : "";
    const expiry = liveTokens.get(token);
    if (expiry === undefined || expiry < Date.now()) {
      return json(401, {
        error: {
          code: 401,
          message: "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.",
          status: "UNAUTHENTICATED",
        },
      });
    }
    const message = (rec.json as { message?: Record<string, any> } | undefined)?.message;
    if (!message || typeof message.token !== "string" || message.token === "") {
      return fcmError("INVALID_ARGUMENT", "Request contains an invalid argument.");
    }
    if (message.data && Object.values(message.data).some((v) => typeof v !== "string")) {
      return fcmError("INVALID_ARGUMENT", "Invalid value at 'message.data': values must be strings");
    }
    const pre = await scriptedPrelude(core, core.next("send"));
    if ("done" in pre) return pre.done;
    const s = pre.scripted;
    if (s?.kind === "rate_limit") {
      return fcmError(String(s.code ?? "QUOTA_EXCEEDED"), s.message ?? "Quota exceeded for quota metric 'Send requests'.", {
        http: 429,
        headers: retryAfterHeader(s.retryAfter),
      });
    }
    if (s?.kind === "server_error") {
      const status = s.status ?? 503;
      return fcmError(String(s.code ?? (status === 500 ? "INTERNAL" : "UNAVAILABLE")), s.message ?? "The service is currently unavailable.", {
        http: status,
        headers: retryAfterHeader(s.retryAfter),
      });
    }
    if (s?.kind === "error") {
      return fcmError(String(s.code ?? "UNREGISTERED"), s.message ?? "Requested entity was not found.", { http: s.status, headers: s.headers });
    }
    const projectId = decodeURIComponent(match[1]!);
    const name = `projects/${projectId}/messages/${randomUUID()}`;
    messages.push({ name, projectId, message, request: rec });
    return successJson(s, 200, { name });
  });

  const core = startFakeHttp([tokenRoute, sendRoute], { port: opts.port });
  const handle = Object.assign(handleOf(core, "send"), {
    messages,
    issuedTokens,
    get tokenUrl() {
      return `${core.url}/token`;
    },
    scriptToken: (...responses: ScriptedResponse[]) => core.script("token", responses),
    revokeTokens: () => liveTokens.clear(),
    async createServiceAccount(o: { projectId?: string; clientEmail?: string } = {}): Promise<ServiceAccountJson> {
      const { publicKey, privateKey } = await generateKeyPair("RS256", { extractable: true, modulusLength: 2048 });
      const projectId = o.projectId ?? "demo-project";
      const clientEmail = o.clientEmail ?? `sender-${randomBytes(4).toString("hex")}@${projectId}.iam.gserviceaccount.com`;
      trustedKeys.set(clientEmail, publicKey);
      return {
        type: "service_account",
        project_id: projectId,
        private_key_id: randomBytes(20).toString("hex"),
        private_key: await exportPKCS8(privateKey),
        client_email: clientEmail,
        client_id: String(100000000000000000000n + BigInt(Math.floor(Math.random() * 1e9))),
        token_uri: `${core.url}/token`,
      };
    },
  }) as FakeFcm;
  return track(handle, started, () => {
    messages.length = 0;
    issuedTokens.length = 0;
  });
}

export async function stop(handle?: FakeFcm): Promise<void> {
  await stopStarted(started, handle);
}
