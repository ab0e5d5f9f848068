// A local server answering as Amazon SES v2 SendEmail (POST /v2/email/outbound-emails): checks the
// SigV4 signature with the same secret, 200 {MessageId}; errors as x-amzn-ErrorType + {message}.
import { randomBytes } from "node:crypto";
import { checkSigV4 } from "./aws-sigv4";
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

export interface FakeSesOptions {
  port?: number;
  accessKeyId?: string;
  secretAccessKey?: string;
  sessionToken?: string;
  region?: string;
}

export interface FakeSes extends FakeHttpHandle {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly region: string;
  /** the emails SES accepted, in order */
  readonly accepted: { messageId: string; body: Record<string, any>; request: RecordedRequest }[];
}

/** SES v2's error answer: the type in x-amzn-ErrorType (with its Coral namespace) and {message} in the body */
export function sesError(status: number, type: string, message: string, headers: Record<string, string> = {}): Response {
  return json(status, { message }, { "x-amzn-errortype": `${type}:http://internal.amazon.com/coral/com.amazonaws.sesv2/`, "x-amzn-requestid": crypto.randomUUID(), ...headers });
}

/** the 400 BadRequestException SES gives a malformed SendEmail, before anything else */
function malformed(body: any): string | null {
  if (!body || typeof body !== "object") return "Request body must be JSON";
  if (typeof body.FromEmailAddress !== "string" || body.FromEmailAddress === "") return "Missing required parameter FromEmailAddress";
  const to = body.Destination?.ToAddresses;
  if (!Array.isArray(to) || to.length === 0) return "Missing final '@domain'";
  for (const a of to) if (typeof a !== "string" || !/^[^@\s]+@[^@\s]+$/.test(a)) return `Illegal address ${JSON.stringify(a)}`;
  const c = body.Content;
  if (c?.Simple) {
    if (typeof c.Simple.Subject?.Data !== "string") return "Missing required parameter Content.Simple.Subject";
    if (!c.Simple.Body?.Text && !c.Simple.Body?.Html) return "Missing required parameter Content.Simple.Body";
  } else if (c?.Template) {
    if (!c.Template.TemplateName && !c.Template.TemplateArn) return "Missing required parameter Content.Template.TemplateName";
  } else if (!c?.Raw) {
    return "Missing required parameter Content";
  }
  return null;
}

const started = new Set<FakeSes>();

export async function start(opts: FakeSesOptions = {}): Promise<FakeSes> {
  const accessKeyId = opts.accessKeyId ?? "AKIAFAKESES000000001";
  const secretAccessKey = opts.secretAccessKey ?? "fake/ses/secret+key/0123456789abcdefghij";
  const region = opts.region ?? "eu-west-1";
  const accepted: FakeSes["accepted"] = [];
  const core = startFakeHttp(
    [
      postRoute("send", /^\/v2\/email\/outbound-emails$/, async (rec, _m, core) => {
        const problem = checkSigV4(rec, { accessKeyId, secretAccessKey, region, service: "ses", sessionToken: opts.sessionToken });
        if (problem) return sesError(403, problem.type, problem.message);
        const bad = malformed(rec.json);
        if (bad) return sesError(400, "BadRequestException", bad);
        const pre = await scriptedPrelude(core, core.next("send"));
        if ("done" in pre) return pre.done;
        const s = pre.scripted;
        if (s?.kind === "rate_limit") {
          return sesError(429, String(s.code ?? "TooManyRequestsException"), s.message ?? "Maximum sending rate exceeded.", retryAfterHeader(s.retryAfter));
        }
        if (s?.kind === "server_error") {
          const status = s.status ?? 500;
          return sesError(status, String(s.code ?? (status === 503 ? "ServiceUnavailable" : "InternalFailure")), s.message ?? "Service is unavailable", retryAfterHeader(s.retryAfter));
        }
        if (s?.kind === "error") return sesError(s.status, String(s.code ?? "MessageRejected"), s.message ?? "Email address is not verified.", s.headers);
        const messageId = `0102018f${randomBytes(12).toString("hex")}-${crypto.randomUUID()}-000000`;
        accepted.push({ messageId, body: rec.json as Record<string, any>, request: rec });
        const extra = s?.kind === "success" ? s : undefined;
        return json(extra?.status ?? 200, extra?.body ?? { MessageId: messageId }, { "x-amzn-requestid": crypto.randomUUID(), ...extra?.headers });
      }),
    ],
    { port: opts.port },
  );
  return track(Object.assign(handleOf(core, "send"), { accessKeyId, secretAccessKey, region, accepted }), started, () => (accepted.length = 0));
}

/** stop one fake, or every fake SES this module started */
export async function stop(handle?: FakeSes): Promise<void> {
  await stopStarted(started, handle);
}
