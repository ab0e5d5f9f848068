// A local server answering as Twilio Programmable Messaging (POST .../Accounts/{sid}/Messages.json,
// form-encoded, basic auth): 201 with the Message resource, errors as {code,message,more_info,status}.
import { randomBytes } from "node:crypto";
import {
  handleOf,
  json,
  retryAfterHeader,
  scriptedPrelude,
  startFakeHttp,
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
  request: RecordedRequest;
}

export interface FakeTwilio extends FakeHttpHandle {
  /** the messages Twilio accepted (201), in order */
  readonly messages: FakeTwilioMessage[];
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
      async (req, rec, core) => {
        const match = PATH_RE.exec(rec.path);
        if (req.method !== "POST" || !match) return undefined;
        rec.kind = "send";
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
        messages.push({ sid: messageSid, to: form.To, from: form.From ?? form.MessagingServiceSid!, body: form.Body, contentSid: form.ContentSid, request: rec });
        const extra = s?.kind === "success" ? s : undefined;
        return json(extra?.status ?? 201, extra?.body ?? resource, extra?.headers);
      },
    ],
    { port: opts.port },
  );
  return track(Object.assign(handleOf(core, "send"), { messages }), started, () => (messages.length = 0));
}

export async function stop(handle?: FakeTwilio): Promise<void> {
  for (const h of handle ? [handle] : [...started]) await h.stop();
}
