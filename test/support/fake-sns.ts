// A local server answering as Amazon SNS's query API for SMS (POST / Action=Publish&PhoneNumber=...):
// checks the SigV4 signature with the same secret, answers PublishResponse XML; errors as <ErrorResponse>.
import { randomUUID } from "node:crypto";
import { checkSigV4 } from "./aws-sigv4";
import { handleOf, retryAfterHeader, scriptedPrelude, startFakeHttp, stopStarted, track, type FakeHttpHandle, type RecordedRequest } from "./fake-http";

export interface FakeSnsOptions {
  port?: number;
  accessKeyId?: string;
  secretAccessKey?: string;
  region?: string;
}

export interface FakeSns extends FakeHttpHandle {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly region: string;
  /** published SMS: MessageId, the form (PhoneNumber, Message, MessageAttributes.entry.N...) */
  readonly published: { messageId: string; form: Record<string, string>; attributes: Record<string, string>; request: RecordedRequest }[];
}

const NS = "https://sns.amazonaws.com/doc/2010-03-31/";
const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

export function snsError(status: number, code: string, message: string, type: "Sender" | "Receiver" = status >= 500 ? "Receiver" : "Sender", headers: Record<string, string> = {}): Response {
  const xml = `<ErrorResponse xmlns="${NS}">\n  <Error>\n    <Type>${type}</Type>\n    <Code>${code}</Code>\n    <Message>${esc(message)}</Message>\n  </Error>\n  <RequestId>${randomUUID()}</RequestId>\n</ErrorResponse>\n`;
  return new Response(xml, { status, headers: { "content-type": "text/xml", ...headers } });
}

function attributesOf(form: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 1; form[`MessageAttributes.entry.${i}.Name`]; i++) out[form[`MessageAttributes.entry.${i}.Name`]!] = form[`MessageAttributes.entry.${i}.Value.StringValue`] ?? "";
  return out;
}

const started = new Set<FakeSns>();

export async function start(opts: FakeSnsOptions = {}): Promise<FakeSns> {
  const accessKeyId = opts.accessKeyId ?? "AKIAFAKESNS000000001";
  const secretAccessKey = opts.secretAccessKey ?? "fake/sns/secret+key/0123456789abcdefghij";
  const region = opts.region ?? "eu-west-1";
  const published: FakeSns["published"] = [];
  const core = startFakeHttp([
    async (req, rec, core) => {
      if (req.method !== "POST" || rec.path !== "/") return undefined;
      rec.kind = "publish";
      const problem = checkSigV4(rec, { accessKeyId, secretAccessKey, region, service: "sns" });
      if (problem) return snsError(403, problem.type === "UnrecognizedClientException" ? "InvalidClientTokenId" : problem.type, problem.message);
      const form = rec.form ?? {};
      if (form.Action !== "Publish") return snsError(400, "InvalidAction", `The action ${form.Action ?? ""} is not valid for this web service.`);
      if (!form.PhoneNumber || !/^\+[1-9]\d{6,14}$/.test(form.PhoneNumber)) return snsError(400, "InvalidParameter", `Invalid parameter: PhoneNumber Reason: ${form.PhoneNumber ?? ""} is not valid to publish to`);
      if (!form.Message) return snsError(400, "InvalidParameter", "Invalid parameter: Message Reason: Empty message");
      const pre = await scriptedPrelude(core, core.next("publish"));
      if ("done" in pre) return pre.done;
      const s = pre.scripted;
      if (s?.kind === "rate_limit") return snsError(400, String(s.code ?? "Throttling"), s.message ?? "Rate exceeded", "Sender", retryAfterHeader(s.retryAfter));
      if (s?.kind === "server_error") return snsError(s.status ?? 500, String(s.code ?? "InternalError"), s.message ?? "Internal service error", "Receiver", retryAfterHeader(s.retryAfter));
      if (s?.kind === "error") return snsError(s.status, String(s.code ?? "InvalidParameter"), s.message ?? "Invalid parameter", "Sender", s.headers);
      const messageId = randomUUID();
      published.push({ messageId, form, attributes: attributesOf(form), request: rec });
      const xml = `<PublishResponse xmlns="${NS}">\n  <PublishResult>\n    <MessageId>${messageId}</MessageId>\n  </PublishResult>\n  <ResponseMetadata>\n    <RequestId>${randomUUID()}</RequestId>\n  </ResponseMetadata>\n</PublishResponse>\n`;
      return new Response(xml, { status: 200, headers: { "content-type": "text/xml" } });
    },
  ], { port: opts.port });
  return track(Object.assign(handleOf(core, "publish"), { accessKeyId, secretAccessKey, region, published }), started, () => (published.length = 0));
}

/** stop one fake, or every fake SNS this module started */
export async function stop(handle?: FakeSns): Promise<void> {
  await stopStarted(started, handle);
}
