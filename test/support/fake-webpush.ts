// A local RFC 8030 push service: checks the VAPID Authorization (RFC 8292) and decrypts the
// aes128gcm payload (RFC 8291) with subscriptions it created from real P-256 key pairs and auth secrets.
import { createDecipheriv, createECDH, hkdfSync, randomBytes, randomUUID, type ECDH } from "node:crypto";
import { decodeProtectedHeader, importJWK, jwtVerify } from "jose";
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

export interface PushSubscriptionJson {
  endpoint: string;
  expirationTime: null;
  keys: { p256dh: string; auth: string };
}

export interface FakePushDelivery {
  subscriptionId: string;
  /** decrypted payload text */
  payload: string;
  /** VAPID JWT claims (aud, exp, sub) after signature verification */
  vapid: Record<string, unknown>;
  /** the k= VAPID public key the sender presented */
  vapidPublicKey: string;
  ttl: string | undefined;
  request: RecordedRequest;
}

export interface FakeWebpush extends FakeHttpHandle {
  readonly deliveries: FakePushDelivery[];
  /** a browser-like subscription on this push service (real P-256 key pair, 16-byte auth secret) */
  createSubscription(): PushSubscriptionJson;
  /** the subscription is gone: the push service answers 410 from now on */
  expireSubscription(subscription: PushSubscriptionJson | string): void;
}

interface SubscriptionKeys {
  ecdh: ECDH;
  auth: Buffer;
  expired: boolean;
}

/** autopush-style error body */
function pushError(status: number, errno: number, message: string, headers: Record<string, string> = {}): Response {
  const error = status === 410 ? "Gone" : status === 404 ? "Not Found" : status === 429 ? "Too Many Requests" : status >= 500 ? "Server Error" : status === 401 ? "Unauthorized" : "Bad Request";
  return json(status, { code: status, errno, error, message, more_info: "http://autopush.readthedocs.io/en/latest/http.html#error-codes" }, headers);
}

/** RFC 8291 decryption of one aes128gcm record with the user agent's keys */
export function decryptAes128gcm(body: Buffer, ua: ECDH, authSecret: Buffer): string {
  const salt = body.subarray(0, 16);
  const rs = body.readUInt32BE(16);
  const idlen = body[20]!;
  const asPublic = body.subarray(21, 21 + idlen);
  const ciphertext = body.subarray(21 + idlen);
  if (ciphertext.length > rs) throw new Error("multi-record payloads are not produced by web-push");
  const ecdhSecret = ua.computeSecret(asPublic);
  const keyInfo = Buffer.concat([Buffer.from("WebPush: info\0"), ua.getPublicKey(), asPublic]);
  const ikm = Buffer.from(hkdfSync("sha256", ecdhSecret, authSecret, keyInfo, 32));
  const cek = Buffer.from(hkdfSync("sha256", ikm, salt, Buffer.from("Content-Encoding: aes128gcm\0"), 16));
  const nonce = Buffer.from(hkdfSync("sha256", ikm, salt, Buffer.from("Content-Encoding: nonce\0"), 12));
  const decipher = createDecipheriv("aes-128-gcm", cek, nonce);
  decipher.setAuthTag(ciphertext.subarray(ciphertext.length - 16));
  const padded = Buffer.concat([decipher.update(ciphertext.subarray(0, ciphertext.length - 16)), decipher.final()]);
  // last record: content, then a 0x02 delimiter, then zero padding
  let end = padded.length - 1;
  while (end >= 0 && padded[end] === 0) end--;
  if (padded[end] !== 2) throw new Error("bad padding delimiter");
  return padded.subarray(0, end).toString("utf8");
}

/** RFC 8292: Authorization: vapid t=<JWT ES256>, k=<base64url P-256 public key> */
async function verifyVapid(header: string | undefined, audience: string): Promise<{ claims: Record<string, unknown>; k: string } | string> {
  const m = /^vapid\s+t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(header ?? "");
  if (!m) return "missing or malformed vapid Authorization";
  const [, jwt, k] = m;
  const raw = Buffer.from(k!, "base64url");
  if (raw.length !== 65 || raw[0] !== 4) return "k is not an uncompressed P-256 point";
  try {
    if (decodeProtectedHeader(jwt!).alg !== "ES256") return "JWT alg must be ES256";
    const key = await importJWK(
      { kty: "EC", crv: "P-256", x: raw.subarray(1, 33).toString("base64url"), y: raw.subarray(33).toString("base64url") },
      "ES256",
    );
    const { payload } = await jwtVerify(jwt!, key, { audience });
    if (typeof payload.exp !== "number" || payload.exp > Date.now() / 1000 + 24 * 3600) return "exp must be within 24 hours";
    if (typeof payload.sub !== "string" || !/^(mailto:|https:)/.test(payload.sub)) return "sub must be mailto: or https:";
    return { claims: payload as Record<string, unknown>, k: k! };
  } catch (err) {
    return `invalid VAPID JWT: ${(err as Error).message}`;
  }
}

const PUSH_RE = /^\/push\/([^/]+)$/;
const started = new Set<FakeWebpush>();

export async function start(opts: { port?: number } = {}): Promise<FakeWebpush> {
  const deliveries: FakePushDelivery[] = [];
  const subscriptions = new Map<string, SubscriptionKeys>();
  const core = startFakeHttp(
    [
      postRoute("send", PUSH_RE, async (rec, match, core) => {
        const id = match[1]!;
        const sub = subscriptions.get(id);
        if (!sub) return pushError(404, 102, "Request did not validate invalid token");
        if (sub.expired) return pushError(410, 103, "Request did not validate Subscription expired");
        const vapid = await verifyVapid(rec.headers.authorization, core.url);
        if (typeof vapid === "string") return pushError(401, 109, vapid);
        if (rec.headers.ttl === undefined) return pushError(400, 111, "Missing TTL header");
        if (rec.headers["content-encoding"] !== "aes128gcm") return pushError(400, 110, "Unsupported Content-Encoding");
        let payload: string;
        try {
          payload = decryptAes128gcm(Buffer.from(rec.rawBody), sub.ecdh, sub.auth);
        } catch (err) {
          return pushError(400, 110, `payload could not be decrypted: ${(err as Error).message}`);
        }
        rec.extra = { payload, vapid: vapid.claims };
        const pre = await scriptedPrelude(core, core.next("send"));
        if ("done" in pre) return pre.done;
        const s = pre.scripted;
        if (s?.kind === "rate_limit") return pushError(429, 999, s.message ?? "Too many requests", retryAfterHeader(s.retryAfter));
        if (s?.kind === "server_error") return pushError(s.status ?? 503, 201, s.message ?? "Service unavailable", retryAfterHeader(s.retryAfter));
        if (s?.kind === "error") return pushError(s.status, Number(s.code ?? 103), s.message ?? "Request refused", s.headers);
        deliveries.push({ subscriptionId: id, payload, vapid: vapid.claims, vapidPublicKey: vapid.k, ttl: rec.headers.ttl, request: rec });
        const extra = s?.kind === "success" ? s : undefined;
        return new Response(extra?.body === undefined ? null : JSON.stringify(extra.body), {
          status: extra?.status ?? 201,
          headers: { location: `${core.url}/m/${randomUUID()}`, ...extra?.headers },
        });
      }),
    ],
    { port: opts.port },
  );
  const handle = Object.assign(handleOf(core, "send"), {
    deliveries,
    createSubscription(): PushSubscriptionJson {
      const ecdh = createECDH("prime256v1");
      ecdh.generateKeys();
      const auth = randomBytes(16);
      const id = randomBytes(12).toString("base64url");
      subscriptions.set(id, { ecdh, auth, expired: false });
      return {
        endpoint: `${core.url}/push/${id}`,
        expirationTime: null,
        keys: { p256dh: ecdh.getPublicKey().toString("base64url"), auth: auth.toString("base64url") },
      };
    },
    expireSubscription(subscription: PushSubscriptionJson | string) {
      const endpoint = typeof subscription === "string" ? subscription : subscription.endpoint;
      const id = PUSH_RE.exec(new URL(endpoint).pathname)?.[1];
      const sub = id ? subscriptions.get(id) : undefined;
      if (sub) sub.expired = true;
    },
  }) as FakeWebpush;
  return track(handle, started, () => (deliveries.length = 0));
}

export async function stop(handle?: FakeWebpush): Promise<void> {
  await stopStarted(started, handle);
}
