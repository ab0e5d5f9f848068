// A local server answering as SendGrid v3 Mail Send: 202 + X-Message-Id on success, errors as
// {errors:[{message,field,help}]}, 401 for a wrong key, 429 with X-RateLimit-* (+ Retry-After when scripted);
// and SendGrid's side of the signed Event Webhook: its own P-256 key pair and signed event batches.
import { generateKeyPairSync, randomBytes, sign, type KeyObject } from "node:crypto";
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

/** How a callback reaches the service: fetch by default; tests pass app.handle to stay in-process. */
export type Deliver = (req: Request) => Promise<Response>;

export interface EventPostOptions {
  /** X-Twilio-Email-Event-Webhook-Timestamp (Unix seconds); now by default */
  timestamp?: number;
  /** sign with another key (a forged or foreign signature) */
  privateKey?: KeyObject;
  /** replace the computed signature (null: send none) */
  signature?: string | null;
  deliver?: Deliver;
}

export interface FakeSendgrid extends FakeHttpHandle {
  /** the successfully accepted mail bodies, in order */
  readonly accepted: { messageId: string; body: Record<string, unknown>; request: RecordedRequest }[];
  /** the "Verification Key" SendGrid shows for the signed Event Webhook: base64 DER (SPKI), P-256 */
  readonly eventWebhookPublicKey: string;
  /**
   * An event as SendGrid's Event Webhook reports it for an accepted message: sg_message_id is the
   * X-Message-Id plus SendGrid's filter suffix, the message's custom_args are top-level fields.
   */
  event(messageId: string, event: string, fields?: Record<string, unknown>): Record<string, unknown>;
  /** POSTs a batch as SendGrid does: JSON + CRLF, ECDSA-signed over timestamp + body. Returns the answer. */
  postEvents(url: string, events: Record<string, unknown>[], opts?: EventPostOptions): Promise<Response>;
}

/**
 * SendGrid's Event Webhook signature as its documentation states it: ECDSA over the P-256 curve with
 * SHA-256, of the timestamp header's value followed by the request body, base64 of the DER signature.
 */
export function sendgridEventSignature(privateKey: KeyObject, timestamp: string, body: string): string {
  return sign("sha256", Buffer.concat([Buffer.from(timestamp, "utf8"), Buffer.from(body, "utf8")]), privateKey).toString("base64");
}

export interface FakeSendgridOptions {
  port?: number;
  /** when set, any other Bearer key gets SendGrid's 401 */
  apiKey?: string;
}

function errors(status: number, list: { message: string; field?: string | null }[], headers: Record<string, string> = {}) {
  return json(status, { errors: list.map((e) => ({ message: e.message, field: e.field ?? null, help: null })) }, headers);
}

/** the 400s SendGrid gives for a malformed request, checked before any scripted outcome */
function validateMail(body: unknown): { message: string; field: string }[] {
  const b = body as Record<string, any> | undefined;
  const problems: { message: string; field: string }[] = [];
  if (!b || typeof b !== "object") return [{ message: "Bad Request", field: "" }];
  const to = b.personalizations?.[0]?.to?.[0]?.email;
  if (!Array.isArray(b.personalizations) || typeof to !== "string") {
    problems.push({ message: "The personalizations field is required and must have at least one personalization.", field: "personalizations" });
  }
  if (typeof b.from?.email !== "string") {
    problems.push({ message: "The from object must be provided for every email send.", field: "from" });
  }
  if (!b.template_id) {
    if (!b.subject && !b.personalizations?.[0]?.subject) {
      problems.push({ message: "The subject is required. You can get around this requirement if you use a template with a subject defined or if every personalization has a subject defined.", field: "subject" });
    }
    if (!Array.isArray(b.content) || b.content.length === 0 || b.content.some((c: any) => !c?.value)) {
      problems.push({ message: "Unless a valid template_id is provided, the content parameter is required.", field: "content" });
    }
  }
  return problems;
}

const started = new Set<FakeSendgrid>();

export async function start(opts: FakeSendgridOptions = {}): Promise<FakeSendgrid> {
  const accepted: FakeSendgrid["accepted"] = [];
  const core = startFakeHttp(
    [
      postRoute("send", /^\/v3\/mail\/send$/, async (rec, _match, core) => {
        if (opts.apiKey !== undefined && rec.headers.authorization !== `Bearer ${opts.apiKey}`) {
          return errors(401, [{ message: "The provided authorization grant is invalid, expired, or revoked" }]);
        }
        const problems = validateMail(rec.json);
        if (problems.length > 0) return errors(400, problems);
        const pre = await scriptedPrelude(core, core.next("send"));
        if ("done" in pre) return pre.done;
        const s = pre.scripted;
        const reset = String(Math.floor(Date.now() / 1000) + 60);
        if (s?.kind === "rate_limit") {
          return errors(429, [{ message: s.message ?? "too many requests" }], {
            "x-ratelimit-limit": "600",
            "x-ratelimit-remaining": "0",
            "x-ratelimit-reset": reset,
            ...retryAfterHeader(s.retryAfter),
          });
        }
        if (s?.kind === "server_error") {
          return errors(s.status ?? 500, [{ message: s.message ?? "internal server error" }], retryAfterHeader(s.retryAfter));
        }
        if (s?.kind === "error") {
          return errors(s.status, [{ message: s.message ?? "Bad Request", field: s.code === undefined ? null : String(s.code) }], s.headers);
        }
        const messageId = randomBytes(16).toString("base64url").slice(0, 22);
        accepted.push({ messageId, body: rec.json as Record<string, unknown>, request: rec });
        const headers = { "x-message-id": messageId, ...(s?.kind === "success" ? s.headers : {}) };
        const status = s?.kind === "success" && s.status ? s.status : 202;
        if (s?.kind === "success" && s.body !== undefined) return json(status, s.body, headers);
        return new Response(null, { status, headers });
      }),
    ],
    { port: opts.port },
  );
  const keys = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
  const eventWebhookPublicKey = keys.publicKey.export({ format: "der", type: "spki" }).toString("base64");
  const event = (messageId: string, name: string, fields: Record<string, unknown> = {}) => {
    const sent = accepted.find((a) => a.messageId === messageId);
    const personalization = (sent?.body.personalizations as { to?: { email?: string }[] }[] | undefined)?.[0];
    return {
      email: personalization?.to?.[0]?.email ?? "recipient@example.com",
      timestamp: Math.floor(Date.now() / 1000),
      "smtp-id": `<${messageId}@ismtpd0001p1iad2.sendgrid.net>`,
      event: name,
      sg_event_id: randomBytes(16).toString("base64url"),
      sg_message_id: `${messageId}.filterdrecv-8546f7f7b8-2xsm6-1-${randomBytes(4).toString("hex").toUpperCase()}-3.0`,
      ...((sent?.body.custom_args as Record<string, unknown> | undefined) ?? {}),
      ...fields,
    };
  };
  const postEvents = async (url: string, events: Record<string, unknown>[], o: EventPostOptions = {}) => {
    const body = `${JSON.stringify(events)}\r\n`;
    const timestamp = String(o.timestamp ?? Math.floor(Date.now() / 1000));
    const headers: Record<string, string> = { "content-type": "application/json", "user-agent": "SendGrid Event API" };
    const signature = o.signature !== undefined ? o.signature : sendgridEventSignature(o.privateKey ?? keys.privateKey, timestamp, body);
    if (signature !== null) headers["x-twilio-email-event-webhook-signature"] = signature;
    headers["x-twilio-email-event-webhook-timestamp"] = timestamp;
    return await (o.deliver ?? ((r: Request) => fetch(r)))(new Request(url, { method: "POST", headers, body }));
  };
  return track(
    Object.assign(handleOf(core, "send"), { accepted, eventWebhookPublicKey, event, postEvents }),
    started,
    () => (accepted.length = 0),
  );
}

/** stop one fake, or every fake SendGrid this module started */
export async function stop(handle?: FakeSendgrid): Promise<void> {
  await stopStarted(started, handle);
}
