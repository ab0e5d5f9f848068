// A local server answering as Amazon SES v2 SendEmail (POST /v2/email/outbound-emails): checks the
// SigV4 signature with the same secret, 200 {MessageId}; errors as x-amzn-ErrorType + {message}; and
// SNS's side of SES events: signed notifications, the signing certificate and subscription confirmation.
import { randomBytes, sign } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
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

export interface SnsPostOptions {
  /** sign with another key (PEM) than the certificate's */
  privateKey?: string;
  /** replace the signature */
  signature?: string;
  /** SigningCertURL (default: this fake's certificate) */
  certUrl?: string;
  topicArn?: string;
  /** "1" (SHA1withRSA) or "2" (SHA256withRSA, default) */
  signatureVersion?: "1" | "2";
  /** SNS MessageId (a redelivery keeps its id) */
  messageId?: string;
  deliver?: (req: Request) => Promise<Response>;
}

export interface FakeSes extends FakeHttpHandle {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly region: string;
  /** the emails SES accepted, in order */
  readonly accepted: { messageId: string; body: Record<string, any>; request: RecordedRequest }[];
  /** the SNS topic SES events are published to */
  readonly topicArn: string;
  /** where SNS serves its signing certificate (this fake) */
  readonly certUrl: string;
  /** subscription confirmations received (their Token) */
  readonly confirmations: string[];
  /** an SES event (eventType Delivery, Bounce, Complaint, Open, Click ...) for an accepted email */
  event(messageId: string, eventType: string, fields?: Record<string, unknown>): Record<string, unknown>;
  /** POSTs the event inside an SNS Notification, signed as SNS signs, as text/plain */
  postNotification(url: string, event: Record<string, unknown>, opts?: SnsPostOptions): Promise<Response>;
  /** POSTs an SNS SubscriptionConfirmation whose SubscribeURL is this fake */
  postSubscriptionConfirmation(url: string, opts?: SnsPostOptions): Promise<Response>;
}

const TLS_DIR = join(import.meta.dir, "tls");

/** SNS's string to sign, per its documentation: fixed fields as "Name\nvalue\n", in order, Subject only when present */
export function snsSigningString(m: Record<string, string>): string {
  const names = m.Type === "Notification" ? ["Message", "MessageId", "Subject", "Timestamp", "TopicArn", "Type"] : ["Message", "MessageId", "SubscribeURL", "Timestamp", "Token", "TopicArn", "Type"];
  return names.filter((n) => m[n] !== undefined).map((n) => `${n}\n${m[n]}\n`).join("");
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
  const confirmations: string[] = [];
  const certPem = readFileSync(join(TLS_DIR, "receiver.test.pem"), "utf8");
  const certKey = readFileSync(join(TLS_DIR, "receiver.test.key"), "utf8");
  const core = startFakeHttp(
    [
      (req, rec) => {
        if (req.method !== "GET") return undefined;
        if (/^\/SimpleNotificationService-[A-Za-z0-9]+\.pem$/.test(rec.path)) return new Response(certPem, { headers: { "content-type": "application/x-x509-ca-cert" } });
        if (rec.path === "/" && rec.query.Action === "ConfirmSubscription" && rec.query.Token) {
          confirmations.push(rec.query.Token);
          return new Response(`<ConfirmSubscriptionResponse><ConfirmSubscriptionResult><SubscriptionArn>${topicArn}:${crypto.randomUUID()}</SubscriptionArn></ConfirmSubscriptionResult></ConfirmSubscriptionResponse>`, { headers: { "content-type": "text/xml" } });
        }
        return undefined;
      },
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
  const topicArn = `arn:aws:sns:${region}:123456789012:ses-events`;
  const certUrl = `${core.url}/SimpleNotificationService-${randomBytes(8).toString("hex")}.pem`;
  const event = (messageId: string, eventType: string, fields: Record<string, unknown> = {}) => {
    const sent = accepted.find((a) => a.messageId === messageId);
    const now = new Date().toISOString();
    const to: string[] = sent?.body.Destination?.ToAddresses ?? ["recipient@example.com"];
    const base: Record<string, unknown> = {
      eventType,
      mail: {
        timestamp: now,
        source: sent?.body.FromEmailAddress,
        messageId,
        destination: to,
        tags: Object.fromEntries(((sent?.body.EmailTags ?? []) as { Name: string; Value: string }[]).map((t) => [t.Name, [t.Value]])),
      },
    };
    if (eventType === "Delivery") base.delivery = { timestamp: now, recipients: to, smtpResponse: "250 2.6.0 Message received", processingTimeMillis: 512 };
    if (eventType === "Bounce") {
      base.bounce = { bounceType: "Permanent", bounceSubType: "General", bouncedRecipients: [{ emailAddress: to[0], action: "failed", status: "5.1.1", diagnosticCode: "smtp; 550 5.1.1 user unknown" }], timestamp: now, feedbackId: randomBytes(8).toString("hex") };
    }
    if (eventType === "Complaint") base.complaint = { complainedRecipients: [{ emailAddress: to[0] }], timestamp: now, feedbackId: randomBytes(8).toString("hex"), complaintFeedbackType: "abuse" };
    if (eventType === "Open") base.open = { timestamp: now, ipAddress: "198.51.100.7", userAgent: "Mozilla/5.0" };
    if (eventType === "Click") base.click = { timestamp: now, ipAddress: "198.51.100.7", userAgent: "Mozilla/5.0", link: "https://acme.test/offer" };
    return { ...base, ...fields };
  };
  const post = async (url: string, m: Record<string, string>, o: SnsPostOptions) => {
    const algorithm = m.SignatureVersion === "1" ? "RSA-SHA1" : "RSA-SHA256";
    m.Signature = o.signature ?? sign(algorithm, Buffer.from(snsSigningString(m)), o.privateKey ?? certKey).toString("base64");
    const headers = { "content-type": "text/plain; charset=UTF-8", "x-amz-sns-message-type": m.Type!, "x-amz-sns-message-id": m.MessageId!, "x-amz-sns-topic-arn": m.TopicArn!, "user-agent": "Amazon Simple Notification Service Agent" };
    return await (o.deliver ?? ((r: Request) => fetch(r)))(new Request(url, { method: "POST", headers, body: JSON.stringify(m) }));
  };
  const common = (o: SnsPostOptions) => ({
    MessageId: o.messageId ?? crypto.randomUUID(),
    TopicArn: o.topicArn ?? topicArn,
    Timestamp: new Date().toISOString(),
    SignatureVersion: o.signatureVersion ?? "2",
    SigningCertURL: o.certUrl ?? certUrl,
  });
  const postNotification = (url: string, ev: Record<string, unknown>, o: SnsPostOptions = {}) =>
    post(url, { Type: "Notification", ...common(o), Message: JSON.stringify(ev), UnsubscribeURL: `${core.url}/?Action=Unsubscribe&SubscriptionArn=${topicArn}:x` }, o);
  const postSubscriptionConfirmation = (url: string, o: SnsPostOptions = {}) => {
    const token = randomBytes(32).toString("hex");
    return post(url, { Type: "SubscriptionConfirmation", ...common(o), Token: token, Message: `You have chosen to subscribe to the topic ${topicArn}.`, SubscribeURL: `${core.url}/?Action=ConfirmSubscription&TopicArn=${encodeURIComponent(topicArn)}&Token=${token}` }, o);
  };
  return track(
    Object.assign(handleOf(core, "send"), { accessKeyId, secretAccessKey, region, accepted, topicArn, certUrl, confirmations, event, postNotification, postSubscriptionConfirmation }),
    started,
    () => {
      accepted.length = 0;
      confirmations.length = 0;
    },
  );
}

/** stop one fake, or every fake SES this module started */
export async function stop(handle?: FakeSes): Promise<void> {
  await stopStarted(started, handle);
}
