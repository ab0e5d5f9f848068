// A local server answering as the Vonage Messages API (POST /v1/messages): checks the application JWT
// (RS256) or basic auth, 202 {message_uuid}; RFC 7807 errors; and Vonage's JWT-signed status webhooks.
import { createHash, generateKeyPairSync, randomBytes, randomUUID } from "node:crypto";
import { jwtVerify, SignJWT } from "jose";
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

export interface FakeVonageMessage {
  messageUuid: string;
  body: Record<string, any>;
  /** "jwt" or "basic" */
  auth: string;
  request: RecordedRequest;
}

export interface StatusOptions {
  /** sign with another secret */
  secret?: string;
  /** replace the Authorization header (null: none) */
  authorization?: string | null;
  /** the JWT's payload_hash (default: the body's SHA-256) */
  payloadHash?: string;
  /** issued this many seconds ago */
  ageSeconds?: number;
  error?: { type?: string; title?: string; detail?: string };
  url?: string;
  deliver?: Deliver;
}

export interface FakeVonage extends FakeHttpHandle {
  readonly applicationId: string;
  /** the application's private key (PKCS#8 PEM), as Vonage lets you download it */
  readonly privateKey: string;
  readonly apiKey: string;
  readonly apiSecret: string;
  readonly signatureSecret: string;
  readonly messages: FakeVonageMessage[];
  /** POSTs a status for an accepted message to its webhook_url, as Vonage does: JSON, Bearer JWT (HS256) with payload_hash */
  sendStatus(messageUuid: string, status: string, opts?: StatusOptions): Promise<Response>;
}

const problem = (status: number, code: string, title: string, detail: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  json(status, { type: `https://developer.vonage.com/api-errors/messages#${code}`, title, detail, instance: randomUUID(), ...extra }, { ...headers, "content-type": "application/problem+json" });

const started = new Set<FakeVonage>();

export async function start(opts: { port?: number } = {}): Promise<FakeVonage> {
  const applicationId = randomUUID();
  const pair = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const privateKey = pair.privateKey.export({ type: "pkcs8", format: "pem" }).toString();
  const apiKey = randomBytes(4).toString("hex");
  const apiSecret = randomBytes(8).toString("base64url");
  const signatureSecret = randomBytes(24).toString("base64url");
  const messages: FakeVonageMessage[] = [];

  /** "jwt" / "basic" when the request is authenticated as this account, else null */
  async function authenticate(header: string | undefined): Promise<string | null> {
    if (!header) return null;
    if (header.startsWith("Basic ")) return header === `Basic ${Buffer.from(`${apiKey}:${apiSecret}`).toString("base64")}` ? "basic" : null;
    const token = /^Bearer (\S+)$/.exec(header)?.[1];
    if (!token) return null;
    try {
      const { payload } = await jwtVerify(token, pair.publicKey, { algorithms: ["RS256"], requiredClaims: ["iat", "jti", "application_id"] });
      return payload.application_id === applicationId ? "jwt" : null;
    } catch {
      return null;
    }
  }

  const core = startFakeHttp(
    [
      postRoute("send", /^\/v1\/messages$/, async (rec, _m, core) => {
        const auth = await authenticate(rec.headers.authorization);
        if (!auth) return problem(401, "1010", "Unauthorized", "You did not provide correct credentials.");
        const b = rec.json as Record<string, any> | undefined;
        const invalid: { name: string; reason: string }[] = [];
        if (!b || b.channel !== "sms" || b.message_type !== "text") invalid.push({ name: "channel", reason: "must be sms with message_type text" });
        if (typeof b?.to !== "string" || !/^[1-9]\d{6,14}$/.test(b.to)) invalid.push({ name: "to", reason: "Invalid phone number" });
        if (typeof b?.from !== "string" || b.from === "") invalid.push({ name: "from", reason: "Required" });
        if (typeof b?.text !== "string" || b.text === "") invalid.push({ name: "text", reason: "Required" });
        if (invalid.length > 0) return problem(422, "1150", "Invalid params", "The value of one or more parameters is invalid.", { invalid_parameters: invalid });
        const pre = await scriptedPrelude(core, core.next("send"));
        if ("done" in pre) return pre.done;
        const s = pre.scripted;
        if (s?.kind === "rate_limit") return problem(429, String(s.code ?? "1020"), "Throttled", s.message ?? "Rate limit hit. Please wait and try again.", {}, retryAfterHeader(s.retryAfter));
        if (s?.kind === "server_error") return problem(s.status ?? 500, String(s.code ?? "1000"), "Internal Error", s.message ?? "There was an error processing your request.", {}, retryAfterHeader(s.retryAfter));
        if (s?.kind === "error") return problem(s.status, String(s.code ?? "1150"), s.status === 402 ? "Low balance" : "Invalid params", s.message ?? "Request refused.", {}, s.headers);
        const messageUuid = randomUUID();
        messages.push({ messageUuid, body: b!, auth, request: rec });
        const extra = s?.kind === "success" ? s : undefined;
        return json(extra?.status ?? 202, extra?.body ?? { message_uuid: messageUuid }, extra?.headers);
      }),
    ],
    { port: opts.port },
  );

  const sendStatus = async (messageUuid: string, status: string, o: StatusOptions = {}) => {
    const m = messages.find((x) => x.messageUuid === messageUuid);
    const url = o.url ?? m?.body.webhook_url;
    if (!url) throw new Error(`fake vonage: message ${messageUuid} has no webhook_url`);
    const body = JSON.stringify({
      message_uuid: messageUuid,
      to: m?.body.to,
      from: m?.body.from,
      timestamp: new Date().toISOString(),
      status,
      channel: "sms",
      client_ref: m?.body.client_ref,
      ...(o.error ? { error: o.error } : {}),
      usage: { currency: "EUR", price: "0.0333" },
    });
    const iat = Math.floor(Date.now() / 1000) - (o.ageSeconds ?? 0);
    const token = await new SignJWT({ iss: "Vonage", api_key: apiKey, application_id: applicationId, payload_hash: o.payloadHash ?? createHash("sha256").update(body).digest("hex") })
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setIssuedAt(iat)
      .setJti(randomUUID())
      .sign(new TextEncoder().encode(o.secret ?? signatureSecret));
    const headers: Record<string, string> = { "content-type": "application/json" };
    const authorization = o.authorization !== undefined ? o.authorization : `Bearer ${token}`;
    if (authorization !== null) headers.authorization = authorization;
    return await (o.deliver ?? ((r: Request) => fetch(r)))(new Request(url, { method: "POST", headers, body }));
  };

  return track(
    Object.assign(handleOf(core, "send"), { applicationId, privateKey, apiKey, apiSecret, signatureSecret, messages, sendStatus }),
    started,
    () => (messages.length = 0),
  );
}

/** stop one fake, or every fake Vonage this module started */
export async function stop(handle?: FakeVonage): Promise<void> {
  await stopStarted(started, handle);
}
