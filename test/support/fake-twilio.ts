// A local server answering as Twilio Programmable Messaging (POST .../Accounts/{sid}/Messages.json,
// form-encoded, basic auth): 201 with the Message resource, errors as {code,message,more_info,status};
// and Twilio's side of status callbacks: signed POSTs to each message's StatusCallback URL.
import { createHmac, randomBytes } from "node:crypto";
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
} from "./fake-http";

export interface FakeTwilioMessage {
  sid: string;
  to: string;
  from: string;
  body?: string;
  contentSid?: string;
  /** the StatusCallback URL the message was sent with, if any */
  statusCallback?: string;
  request: RecordedRequest;
}

/** How a callback reaches the service: fetch by default; tests pass app.handle to stay in-process. */
export type Deliver = (req: Request) => Promise<Response>;

export interface StatusCallbackOptions {
  /** ErrorCode of undelivered / failed, e.g. 30003 */
  errorCode?: number | string;
  /** sign with this token instead of the fake's own (a forged or foreign signature) */
  authToken?: string;
  /** post to this URL instead of the message's StatusCallback (the signature still covers the URL posted to) */
  url?: string;
  /** replace the computed X-Twilio-Signature (null: send none) */
  signature?: string | null;
  deliver?: Deliver;
}

export interface FakeTwilio extends FakeHttpHandle {
  /** the messages Twilio accepted (201), in order */
  readonly messages: FakeTwilioMessage[];
  /**
   * POSTs a status callback for an accepted message, as Twilio does: form-encoded MessageSid,
   * MessageStatus (and SmsSid, SmsStatus, AccountSid, From, To, ApiVersion, ErrorCode), signed with
   * X-Twilio-Signature under the account's auth token. Returns the service's answer.
   */
  sendStatus(sid: string, status: string, opts?: StatusCallbackOptions): Promise<Response>;
}

/**
 * Twilio's request signature as its security documentation states it ("Validating requests are
 * coming from Twilio"): take the full URL, append each POST parameter name followed by its value,
 * parameters sorted alphabetically by name (case-sensitive), sign with HMAC-SHA1 keyed by the auth
 * token, and base64-encode the digest.
 */
export function twilioSignature(authToken: string, url: string, params: Record<string, string>): string {
  let data = url;
  for (const name of Object.keys(params).sort()) data += name + params[name];
  return createHmac("sha1", authToken).update(data, "utf8").digest("base64");
}

export interface FakeTwilioOptions {
  port?: number;
  /** when both are set, other basic-auth credentials (or another account in the path) get 401 / 20003 */
  accountSid?: string;
  authToken?: string;
}

/** Twilio's error body; more_info points at the error's docs page as the real API does */
export function twilioError(status: number, code: number, message: string, headers: Record<string, string> = {}): Response {
  return json(status, { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status }, headers);
}

const PHONE_RE = /^(whatsapp:)?\+[1-9]\d{6,14}$/;
const PATH_RE = /^\/2010-04-01\/Accounts\/([^/]+)\/Messages\.json$/;
const started = new Set<FakeTwilio>();

export async function start(opts: FakeTwilioOptions = {}): Promise<FakeTwilio> {
  const messages: FakeTwilioMessage[] = [];
  const core = startFakeHttp(
    [
      postRoute("send", PATH_RE, async (rec, match, core) => {
        const sid = decodeURIComponent(match[1]!);
        if (opts.accountSid !== undefined && opts.authToken !== undefined) {
          const expected = `Basic ${Buffer.from(`${opts.accountSid}:${opts.authToken}`).toString("base64")}`;
          if (rec.headers.authorization !== expected || sid !== opts.accountSid) {
            return twilioError(401, 20003, "Authenticate");
          }
        }
        const form = rec.form ?? {};
        if (!form.To) return twilioError(400, 21604, "A 'To' phone number is required.");
        if (!PHONE_RE.test(form.To)) return twilioError(400, 21211, `The 'To' number ${form.To} is not a valid phone number.`);
        if (!form.From && !form.MessagingServiceSid) return twilioError(400, 21603, "A 'From' phone number is required.");
        if (!form.Body && !form.ContentSid) return twilioError(400, 21602, "Message body is required.");
        const whatsappTo = form.To.startsWith("whatsapp:");
        if (form.From && whatsappTo !== form.From.startsWith("whatsapp:")) {
          return twilioError(400, 63007, "Twilio could not find a Channel with the specified From address");
        }
        const pre = await scriptedPrelude(core, core.next("send"));
        if ("done" in pre) return pre.done;
        const s = pre.scripted;
        if (s?.kind === "rate_limit") {
          return twilioError(429, Number(s.code ?? 20429), s.message ?? "Too Many Requests", retryAfterHeader(s.retryAfter));
        }
        if (s?.kind === "server_error") {
          const status = s.status ?? 500;
          return twilioError(status, Number(s.code ?? (status === 503 ? 20503 : 20500)), s.message ?? "Internal Server Error", retryAfterHeader(s.retryAfter));
        }
        if (s?.kind === "error") {
          return twilioError(s.status, Number(s.code ?? 21211), s.message ?? "The request was refused.", s.headers);
        }
        const messageSid = `SM${randomBytes(16).toString("hex")}`;
        const now = new Date().toUTCString();
        const resource = {
          account_sid: sid,
          api_version: "2010-04-01",
          body: form.Body ?? "",
          date_created: now,
          date_sent: null,
          date_updated: now,
          direction: "outbound-api",
          error_code: null,
          error_message: null,
          from: form.From ?? null,
          messaging_service_sid: form.MessagingServiceSid ?? null,
          num_media: "0",
          num_segments: "1",
          price: null,
          price_unit: "USD",
          sid: messageSid,
          status: "queued",
          to: form.To,
          uri: `/2010-04-01/Accounts/${sid}/Messages/${messageSid}.json`,
        };
        messages.push({
          sid: messageSid,
          to: form.To,
          from: form.From ?? form.MessagingServiceSid!,
          body: form.Body,
          contentSid: form.ContentSid,
          statusCallback: form.StatusCallback,
          request: rec,
        });
        return successJson(s, 201, resource);
      }),
    ],
    { port: opts.port },
  );
  const sendStatus = async (sid: string, status: string, o: StatusCallbackOptions = {}): Promise<Response> => {
    const m = messages.find((x) => x.sid === sid);
    const url = o.url ?? m?.statusCallback;
    if (!url) throw new Error(`fake twilio: message ${sid} has no StatusCallback to post to`);
    const params: Record<string, string> = {
      AccountSid: opts.accountSid ?? "AC00000000000000000000000000000000",
      ApiVersion: "2010-04-01",
      From: m?.from ?? "+14155550100",
      MessageSid: sid,
      MessageStatus: status,
      SmsSid: sid,
      SmsStatus: status,
      To: m?.to ?? "+5511912345678",
    };
    if (o.errorCode !== undefined) params.ErrorCode = String(o.errorCode);
    const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded", "user-agent": "TwilioProxy/1.1" };
    const signature = o.signature !== undefined ? o.signature : twilioSignature(o.authToken ?? opts.authToken ?? "", url, params);
    if (signature !== null) headers["x-twilio-signature"] = signature;
    const req = new Request(url, { method: "POST", headers, body: new URLSearchParams(params).toString() });
    return await (o.deliver ?? ((r: Request) => fetch(r)))(req);
  };
  return track(Object.assign(handleOf(core, "send"), { messages, sendStatus }), started, () => (messages.length = 0));
}

export async function stop(handle?: FakeTwilio): Promise<void> {
  await stopStarted(started, handle);
}
