// A local server answering as Mailgun's Messages API (POST /v3/{domain}/messages, basic auth api:key):
// 200 {id, message}; errors {message} or "Forbidden"; and Mailgun's side of its HMAC-signed webhooks.
import { createHmac, randomBytes } from "node:crypto";
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

export interface FakeMailgunOptions {
  port?: number;
  apiKey?: string;
  /** the only domain this account has (others: 404 Domain not found) */
  domain?: string;
  /** the HTTP webhook signing key webhooks are signed with */
  webhookSigningKey?: string;
}

export interface WebhookPostOptions {
  /** Unix seconds as text; now by default */
  timestamp?: string;
  /** sign with another key */
  signingKey?: string;
  /** replace the computed signature (null: leave the signature object out) */
  signature?: string | null;
  deliver?: Deliver;
}

export interface FakeMailgun extends FakeHttpHandle {
  readonly apiKey: string;
  readonly domain: string;
  readonly webhookSigningKey: string;
  /** accepted messages: the Message-Id (no <>) and the form */
  readonly accepted: { messageId: string; form: Record<string, string>; request: RecordedRequest }[];
  /** Mailgun's event-data for an accepted message (event: delivered, failed, opened ...); fields override */
  event(messageId: string, event: string, fields?: Record<string, unknown>): Record<string, unknown>;
  /** POSTs {signature, event-data} as Mailgun does, signed HMAC-SHA256(key, timestamp + token) */
  postEvent(url: string, eventData: Record<string, unknown>, opts?: WebhookPostOptions): Promise<Response>;
}

/** Mailgun's webhook signature as documented: hex HMAC-SHA256 of timestamp + token under the signing key */
export function mailgunSignature(key: string, timestamp: string, token: string): string {
  return createHmac("sha256", key).update(timestamp + token).digest("hex");
}

function badParameter(form: Record<string, string> | undefined): string | null {
  if (!form) return "Content-Type must be application/x-www-form-urlencoded or multipart/form-data";
  if (!form.from) return "from parameter is missing";
  if (!form.to) return "to parameter is missing";
  if (!/^[^@\s<>]+@[^@\s<>]+\.[^@\s<>]+$/.test(form.to)) return "to parameter is not a valid address. please check documentation";
  if (!form.text && !form.html && !form.template) return "Need at least one of 'text', 'html' or 'template' parameters specified";
  return null;
}

const started = new Set<FakeMailgun>();

export async function start(opts: FakeMailgunOptions = {}): Promise<FakeMailgun> {
  const apiKey = opts.apiKey ?? `key-${randomBytes(16).toString("hex")}`;
  const domain = opts.domain ?? "mg.acme.test";
  const webhookSigningKey = opts.webhookSigningKey ?? randomBytes(16).toString("hex");
  const accepted: FakeMailgun["accepted"] = [];
  const core = startFakeHttp(
    [
      postRoute("send", /^\/v3\/([^/]+)\/messages$/, async (rec, match, core) => {
        if (rec.headers.authorization !== `Basic ${Buffer.from(`api:${apiKey}`).toString("base64")}`) {
          return new Response("Forbidden", { status: 401, headers: { "content-type": "text/plain" } });
        }
        if (decodeURIComponent(match[1]!) !== domain) return json(404, { message: `Domain not found: ${decodeURIComponent(match[1]!)}` });
        const bad = badParameter(rec.form);
        if (bad) return json(400, { message: bad });
        const pre = await scriptedPrelude(core, core.next("send"));
        if ("done" in pre) return pre.done;
        const s = pre.scripted;
        if (s?.kind === "rate_limit") {
          return json(429, { message: s.message ?? "Too many requests", ...(typeof s.retryAfter === "number" ? { "retry-seconds": s.retryAfter } : {}) });
        }
        if (s?.kind === "server_error") return json(s.status ?? 500, { message: s.message ?? "Internal Server Error" }, retryAfterHeader(s.retryAfter));
        if (s?.kind === "error") return json(s.status, { message: s.message ?? "Bad Request" }, s.headers);
        const stamp = new Date().toISOString().replace(/\D/g, "").slice(0, 14);
        const messageId = `${stamp}.${randomBytes(4).toString("hex")}.${randomBytes(6).toString("hex").toUpperCase()}@${domain}`;
        accepted.push({ messageId, form: rec.form!, request: rec });
        const extra = s?.kind === "success" ? s : undefined;
        return json(extra?.status ?? 200, extra?.body ?? { id: `<${messageId}>`, message: "Queued. Thank you." }, extra?.headers);
      }),
    ],
    { port: opts.port },
  );
  const event = (messageId: string, name: string, fields: Record<string, unknown> = {}) => {
    const sent = accepted.find((a) => a.messageId === messageId);
    const vars = Object.fromEntries(Object.entries(sent?.form ?? {}).filter(([k]) => k.startsWith("v:")).map(([k, v]) => [k.slice(2), v]));
    return {
      id: randomBytes(11).toString("base64url"),
      timestamp: Date.now() / 1000,
      "log-level": name === "failed" ? "error" : "info",
      event: name,
      recipient: sent?.form.to ?? "recipient@example.com",
      "recipient-domain": (sent?.form.to ?? "recipient@example.com").split("@")[1],
      message: { headers: { "message-id": messageId, from: sent?.form.from, to: sent?.form.to, subject: sent?.form.subject }, size: 1024 },
      "user-variables": vars,
      tags: [],
      ...fields,
    };
  };
  const postEvent = async (url: string, eventData: Record<string, unknown>, o: WebhookPostOptions = {}) => {
    const timestamp = o.timestamp ?? String(Math.floor(Date.now() / 1000));
    const token = randomBytes(25).toString("hex");
    const signature = o.signature !== undefined ? o.signature : mailgunSignature(o.signingKey ?? webhookSigningKey, timestamp, token);
    const body = JSON.stringify({ ...(signature === null ? {} : { signature: { timestamp, token, signature } }), "event-data": eventData });
    const req = new Request(url, { method: "POST", headers: { "content-type": "application/json", "user-agent": "mailgun/treq-16.12.0" }, body });
    return await (o.deliver ?? ((r: Request) => fetch(r)))(req);
  };
  return track(
    Object.assign(handleOf(core, "send"), { apiKey, domain, webhookSigningKey, accepted, event, postEvent }),
    started,
    () => (accepted.length = 0),
  );
}

/** stop one fake, or every fake Mailgun this module started */
export async function stop(handle?: FakeMailgun): Promise<void> {
  await stopStarted(started, handle);
}
