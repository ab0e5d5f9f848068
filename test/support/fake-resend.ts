// A local server answering as Resend's POST /emails (Bearer key, Idempotency-Key honoured for 24 h):
// 200 {id}; errors {statusCode, name, message} with ratelimit-* headers; and its Svix-signed webhooks.
import { createHmac, randomBytes, randomUUID } from "node:crypto";
import {
  handleOf,
  json,
  postRoute,
  retryAfterHeader,
  scriptedPrelude,
  startFakeHttp,
  stopStarted,
  track,
  type FakeHttpHandle,
  type RecordedRequest,
} from "./fake-http";

export type Deliver = (req: Request) => Promise<Response>;

export interface FakeResendOptions {
  port?: number;
  apiKey?: string;
}

export interface SvixPostOptions {
  /** Unix seconds; now by default */
  timestamp?: number;
  /** sign with another secret */
  secret?: string;
  /** replace svix-signature (null: none) */
  signature?: string | null;
  /** svix-id (a redelivery keeps its id); a new msg_ id by default */
  id?: string;
  deliver?: Deliver;
}

export interface FakeResend extends FakeHttpHandle {
  readonly apiKey: string;
  /** the webhook's signing secret as Resend shows it (whsec_ + base64) */
  readonly webhookSecret: string;
  readonly accepted: { id: string; body: Record<string, any>; request: RecordedRequest }[];
  /** an event as Resend posts it for an accepted email (email.delivered, email.bounced ...) */
  event(emailId: string, type: string, data?: Record<string, unknown>): Record<string, unknown>;
  /** POSTs an event signed the Svix way: svix-id, svix-timestamp, svix-signature "v1,<base64 HMAC>" */
  postEvent(url: string, event: Record<string, unknown>, opts?: SvixPostOptions): Promise<Response>;
}

/** Svix's signature as documented: base64 HMAC-SHA256 under the secret's decoded bytes of `${id}.${timestamp}.${body}` */
export function svixSignature(secret: string, id: string, timestamp: string, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
  return createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64");
}

const resendError = (status: number, name: string, message: string, headers: Record<string, string> = {}) => json(status, { statusCode: status, name, message }, headers);
const ADDRESS = /^(?:[^<>]*<)?[^@\s<>]+@[^@\s<>]+\.[^@\s<>]+>?$/;

function invalid(b: any): Response | null {
  if (!b || typeof b !== "object") return resendError(422, "validation_error", "Invalid JSON body.");
  if (!b.from) return resendError(422, "missing_required_field", "Missing `from` field.");
  if (!ADDRESS.test(b.from)) return resendError(422, "invalid_from_address", "Invalid `from` field. The email address needs to follow the `email@example.com` or `Name <email@example.com>` format.");
  const to = Array.isArray(b.to) ? b.to : [b.to];
  if (to.length === 0 || to.some((a: unknown) => typeof a !== "string" || !ADDRESS.test(a))) {
    return resendError(422, "validation_error", "Invalid `to` field. The email address needs to follow the `email@example.com` or `Name <email@example.com>` format.");
  }
  if (!b.template && !b.subject) return resendError(422, "missing_required_field", "Missing `subject` field.");
  if (!b.template && !b.html && !b.text) return resendError(422, "validation_error", "Missing `html` or `text` field.");
  return null;
}

const started = new Set<FakeResend>();

export async function start(opts: FakeResendOptions = {}): Promise<FakeResend> {
  const apiKey = opts.apiKey ?? `re_${randomBytes(12).toString("hex")}`;
  const webhookSecret = `whsec_${randomBytes(24).toString("base64")}`;
  const accepted: FakeResend["accepted"] = [];
  const idempotent = new Map<string, { body: string; id: string }>();
  const limits = (remaining: number) => ({ "ratelimit-limit": "2", "ratelimit-remaining": String(remaining), "ratelimit-reset": "1" });
  const core = startFakeHttp(
    [
      postRoute("send", /^\/emails$/, async (rec, _m, core) => {
        const auth = rec.headers.authorization;
        if (!auth) return resendError(401, "missing_api_key", "Missing API key in the authorization header. Include the following header in the request: Authorization: Bearer YOUR_API_KEY");
        if (auth !== `Bearer ${apiKey}`) return resendError(403, "invalid_api_key", "API key is invalid");
        const bad = invalid(rec.json);
        if (bad) return bad;
        const key = rec.headers["idempotency-key"];
        const seen = key ? idempotent.get(key) : undefined;
        if (seen) {
          if (seen.body !== rec.body) return resendError(409, "invalid_idempotent_request", "Same idempotency key used with a different request payload. Change your idempotency key or payload.");
          return json(200, { id: seen.id }, limits(1));
        }
        const pre = await scriptedPrelude(core, core.next("send"));
        if ("done" in pre) return pre.done;
        const s = pre.scripted;
        if (s?.kind === "rate_limit") {
          return resendError(429, String(s.code ?? "rate_limit_exceeded"), s.message ?? "Too many requests. You can only make 2 requests per second.", { ...limits(0), ...retryAfterHeader(s.retryAfter) });
        }
        if (s?.kind === "server_error") {
          return resendError(s.status ?? 500, String(s.code ?? "internal_server_error"), s.message ?? "An unexpected error occurred.", retryAfterHeader(s.retryAfter));
        }
        if (s?.kind === "error") return resendError(s.status, String(s.code ?? "validation_error"), s.message ?? "Invalid request.", s.headers);
        const id = randomUUID();
        if (key) idempotent.set(key, { body: rec.body, id });
        accepted.push({ id, body: rec.json as Record<string, any>, request: rec });
        const extra = s?.kind === "success" ? s : undefined;
        return json(extra?.status ?? 200, extra?.body ?? { id }, { ...limits(1), ...extra?.headers });
      }),
    ],
    { port: opts.port },
  );
  const event = (emailId: string, type: string, data: Record<string, unknown> = {}) => {
    const sent = accepted.find((a) => a.id === emailId);
    return {
      type,
      created_at: new Date().toISOString(),
      data: {
        email_id: emailId,
        created_at: new Date().toISOString(),
        from: sent?.body.from,
        to: sent?.body.to,
        subject: sent?.body.subject,
        tags: Object.fromEntries(((sent?.body.tags ?? []) as { name: string; value: string }[]).map((t) => [t.name, t.value])),
        ...data,
      },
    };
  };
  const postEvent = async (url: string, ev: Record<string, unknown>, o: SvixPostOptions = {}) => {
    const body = JSON.stringify(ev);
    const id = o.id ?? `msg_${randomBytes(14).toString("base64url")}`;
    const timestamp = String(o.timestamp ?? Math.floor(Date.now() / 1000));
    const headers: Record<string, string> = { "content-type": "application/json", "svix-id": id, "svix-timestamp": timestamp };
    const signature = o.signature !== undefined ? o.signature : `v1,${svixSignature(o.secret ?? webhookSecret, id, timestamp, body)}`;
    if (signature !== null) headers["svix-signature"] = signature;
    return await (o.deliver ?? ((r: Request) => fetch(r)))(new Request(url, { method: "POST", headers, body }));
  };
  return track(
    Object.assign(handleOf(core, "send"), { apiKey, webhookSecret, accepted, event, postEvent }),
    started,
    () => {
      accepted.length = 0;
      idempotent.clear();
    },
  );
}

/** stop one fake, or every fake Resend this module started */
export async function stop(handle?: FakeResend): Promise<void> {
  await stopStarted(started, handle);
}
