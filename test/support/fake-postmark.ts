// A local server answering as Postmark's Email API (POST /email, /email/withTemplate with
// X-Postmark-Server-Token): 200 {MessageID, ErrorCode: 0}; errors {ErrorCode, Message}; and its webhooks.
import { randomUUID } from "node:crypto";
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

export interface FakePostmarkOptions {
  port?: number;
  serverToken?: string;
}

export interface FakePostmark extends FakeHttpHandle {
  readonly serverToken: string;
  readonly accepted: { messageId: string; body: Record<string, any>; request: RecordedRequest }[];
  /** a webhook body as Postmark posts it for an accepted message (RecordType Delivery, Bounce, Open ...) */
  webhook(messageId: string, recordType: string, fields?: Record<string, unknown>): Record<string, unknown>;
  /**
   * POSTs a webhook as Postmark does for a URL with credentials (https://user:pass@host/...): the
   * credentials become the Authorization: Basic header. `auth` null sends none.
   */
  postWebhook(url: string, body: Record<string, unknown>, auth: { username: string; password: string } | null, deliver?: Deliver): Promise<Response>;
}

const pmError = (status: number, code: number, message: string, headers: Record<string, string> = {}) => json(status, { ErrorCode: code, Message: message }, headers);

function invalid(body: any, template: boolean): Response | null {
  if (!body || typeof body !== "object") return pmError(422, 402, "Received invalid JSON input.");
  if (typeof body.From !== "string" || body.From === "") return pmError(422, 300, "Invalid 'From' address: ''.");
  if (typeof body.To !== "string" || !/^[^@\s<>]+@[^@\s<>]+\.[^@\s<>]+$/.test(body.To)) return pmError(422, 300, `Invalid 'To' address: '${body.To ?? ""}'.`);
  if (template) {
    if (body.TemplateId === undefined && body.TemplateAlias === undefined) return pmError(422, 1101, "The 'TemplateId' or 'TemplateAlias' must be specified.");
  } else if (!body.TextBody && !body.HtmlBody) {
    return pmError(422, 300, "Provide either email TextBody or HtmlBody or both.");
  }
  return null;
}

const started = new Set<FakePostmark>();

export async function start(opts: FakePostmarkOptions = {}): Promise<FakePostmark> {
  const serverToken = opts.serverToken ?? randomUUID();
  const accepted: FakePostmark["accepted"] = [];
  const core = startFakeHttp(
    [
      postRoute("send", /^\/email(\/withTemplate)?$/, async (rec, match, core) => {
        if (rec.headers["x-postmark-server-token"] !== serverToken) {
          return pmError(401, 10, "Request does not contain a valid Server token.");
        }
        if (!(rec.headers["content-type"] ?? "").includes("application/json")) return pmError(415, 409, "JSON data required.");
        const bad = invalid(rec.json, match[1] !== undefined);
        if (bad) return bad;
        const pre = await scriptedPrelude(core, core.next("send"));
        if ("done" in pre) return pre.done;
        const s = pre.scripted;
        if (s?.kind === "rate_limit") return pmError(429, Number(s.code ?? 429), s.message ?? "Rate limit exceeded.", retryAfterHeader(s.retryAfter));
        if (s?.kind === "server_error") return pmError(s.status ?? 500, Number(s.code ?? 0), s.message ?? "Internal server error.", retryAfterHeader(s.retryAfter));
        if (s?.kind === "error") return pmError(s.status, Number(s.code ?? 300), s.message ?? "Invalid email request.", s.headers);
        const messageId = randomUUID();
        const body = rec.json as Record<string, any>;
        accepted.push({ messageId, body, request: rec });
        const extra = s?.kind === "success" ? s : undefined;
        return json(
          extra?.status ?? 200,
          extra?.body ?? { To: body.To, SubmittedAt: new Date().toISOString(), MessageID: messageId, ErrorCode: 0, Message: "OK" },
          extra?.headers,
        );
      }),
    ],
    { port: opts.port },
  );
  let nextId = 1000;
  const webhook = (messageId: string, recordType: string, fields: Record<string, unknown> = {}) => {
    const sent = accepted.find((a) => a.messageId === messageId);
    const now = new Date().toISOString();
    const common = { RecordType: recordType, MessageID: messageId, ServerID: 23, MessageStream: sent?.body.MessageStream ?? "outbound", Tag: "", Metadata: sent?.body.Metadata ?? {} };
    switch (recordType) {
      case "Delivery":
        return { ...common, Recipient: sent?.body.To, DeliveredAt: now, Details: "smtp;250 2.0.0 OK", ...fields };
      case "Bounce":
      case "SpamComplaint":
        return {
          ...common,
          ID: nextId++,
          Type: recordType === "SpamComplaint" ? "SpamComplaint" : "HardBounce",
          TypeCode: recordType === "SpamComplaint" ? 512 : 1,
          Name: recordType === "SpamComplaint" ? "Spam complaint" : "Hard bounce",
          Description: "The server was unable to deliver your message (ex: unknown user, mailbox not found).",
          Details: "smtp;550 5.1.1 The email account that you tried to reach does not exist.",
          Email: sent?.body.To,
          From: sent?.body.From,
          BouncedAt: now,
          DumpAvailable: false,
          Inactive: true,
          CanActivate: true,
          Subject: sent?.body.Subject ?? "",
          ...fields,
        };
      case "Open":
        return { ...common, FirstOpen: true, Recipient: sent?.body.To, ReceivedAt: now, Platform: "Desktop", UserAgent: "Mozilla/5.0", Geo: { IP: "198.51.100.7" }, ...fields };
      case "Click":
        return { ...common, Recipient: sent?.body.To, ReceivedAt: now, ClickLocation: "HTML", OriginalLink: "https://acme.test/offer", UserAgent: "Mozilla/5.0", Geo: { IP: "198.51.100.7" }, ...fields };
      default:
        return { ...common, ...fields };
    }
  };
  const postWebhook = async (url: string, body: Record<string, unknown>, auth: { username: string; password: string } | null, deliver?: Deliver) => {
    const headers: Record<string, string> = { "content-type": "application/json", "user-agent": "Postmark" };
    if (auth) headers.authorization = `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString("base64")}`;
    return await (deliver ?? ((r: Request) => fetch(r)))(new Request(url, { method: "POST", headers, body: JSON.stringify(body) }));
  };
  return track(Object.assign(handleOf(core, "send"), { serverToken, accepted, webhook, postWebhook }), started, () => (accepted.length = 0));
}

/** stop one fake, or every fake Postmark this module started */
export async function stop(handle?: FakePostmark): Promise<void> {
  await stopStarted(started, handle);
}
