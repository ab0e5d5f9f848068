// A local APNs: an HTTP/2 TLS server (test/support/tls certificate for receiver.test) answering
// POST /3/device/<token> as Apple does: checks the ES256 provider token, topic and device token.
import { generateKeyPairSync, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import http2 from "node:http2";
import { join } from "node:path";
import { decodeProtectedHeader, jwtVerify } from "jose";

const TLS_DIR = join(import.meta.dir, "tls");

export interface FakeApnsRequest {
  path: string;
  deviceToken: string;
  headers: Record<string, string>;
  payload: unknown;
  /** the provider token's claims and header, once verified */
  claims?: { iss?: unknown; iat?: unknown; kid?: unknown };
  receivedAt: number;
}

export type ApnsScript =
  | { kind: "success" }
  /** Apple's error: status and reason (BadDeviceToken, TooManyRequests ...), Retry-After when given */
  | { kind: "error"; status: number; reason: string; retryAfter?: number }
  /** no answer until stop() */
  | { kind: "hang" };

export interface FakeApns {
  /** https://127.0.0.1:<port> (pass as settings.base_url) */
  readonly url: string;
  /** ProviderDeps.tls that trusts this server */
  readonly tls: { ca: Buffer; servername: string };
  readonly teamId: string;
  readonly keyId: string;
  /** the .p8 authentication key (PKCS#8 PEM, P-256) */
  readonly privateKey: string;
  readonly topic: string;
  readonly requests: FakeApnsRequest[];
  /** the notifications Apple accepted (200) */
  readonly delivered: FakeApnsRequest[];
  /** a device token, as an app would register it (64 hex characters) */
  deviceToken(): string;
  /** the app was uninstalled: this token now gets 410 Unregistered */
  unregister(token: string): void;
  script(...answers: ApnsScript[]): void;
  reset(): void;
  stop(): Promise<void>;
}

export interface FakeApnsOptions {
  teamId?: string;
  keyId?: string;
  topic?: string;
}

export async function start(opts: FakeApnsOptions = {}): Promise<FakeApns> {
  const teamId = opts.teamId ?? "TEAM123456";
  const keyId = opts.keyId ?? "KEY1234567";
  const topic = opts.topic ?? "com.acme.app";
  const pair = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
  const privateKey = pair.privateKey.export({ type: "pkcs8", format: "pem" }).toString();
  const cert = readFileSync(join(TLS_DIR, "receiver.test.pem"));
  const requests: FakeApnsRequest[] = [];
  const delivered: FakeApnsRequest[] = [];
  const unregistered = new Map<string, number>();
  const queue: ApnsScript[] = [];
  const hanging = new Set<http2.ServerHttp2Stream>();

  const answer = (stream: http2.ServerHttp2Stream, status: number, apnsId: string, body?: Record<string, unknown>, extra: Record<string, string> = {}) => {
    if (stream.destroyed || stream.closed) return;
    stream.respond({ ":status": status, "apns-id": apnsId, ...(body ? { "content-type": "application/json" } : {}), ...extra });
    stream.end(body ? JSON.stringify(body) : undefined);
  };

  /** the reason Apple gives a provider token, or null when it is good */
  async function tokenProblem(authorization: string | undefined, rec: FakeApnsRequest): Promise<string | null> {
    const token = /^bearer (\S+)$/i.exec(authorization ?? "")?.[1];
    if (!token) return "MissingProviderToken";
    try {
      const header = decodeProtectedHeader(token);
      if (header.alg !== "ES256" || header.kid !== keyId) return "InvalidProviderToken";
      const { payload } = await jwtVerify(token, pair.publicKey, { algorithms: ["ES256"], issuer: teamId });
      rec.claims = { iss: payload.iss, iat: payload.iat, kid: header.kid };
      if (typeof payload.iat !== "number") return "InvalidProviderToken";
      if (Date.now() / 1000 - payload.iat > 3600) return "ExpiredProviderToken";
      return null;
    } catch {
      return "InvalidProviderToken";
    }
  }

  const server = http2.createSecureServer({ key: readFileSync(join(TLS_DIR, "receiver.test.key")), cert });
  server.on("stream", (s: http2.Http2Stream, headers: http2.IncomingHttpHeaders) => {
    const stream = s as http2.ServerHttp2Stream;
    let raw = "";
    stream.setEncoding("utf8");
    stream.on("data", (c: string) => (raw += c));
    stream.on("end", async () => {
      const path = String(headers[":path"] ?? "");
      const flat: Record<string, string> = {};
      for (const [k, v] of Object.entries(headers)) if (!k.startsWith(":") && v !== undefined) flat[k] = Array.isArray(v) ? v.join(",") : String(v);
      let payload: unknown;
      try {
        payload = JSON.parse(raw);
      } catch {
        payload = undefined;
      }
      const rec: FakeApnsRequest = { path, deviceToken: path.split("/")[3] ?? "", headers: flat, payload, receivedAt: Date.now() };
      requests.push(rec);
      const apnsId = flat["apns-id"] ?? randomUUID().toUpperCase();
      if (headers[":method"] !== "POST") return answer(stream, 405, apnsId, { reason: "MethodNotAllowed" });
      if (!/^\/3\/device\/[^/]+$/.test(path)) return answer(stream, 404, apnsId, { reason: "BadPath" });
      const problem = await tokenProblem(flat.authorization, rec);
      if (problem) return answer(stream, 403, apnsId, { reason: problem });
      if (!flat["apns-topic"]) return answer(stream, 400, apnsId, { reason: "MissingTopic" });
      if (flat["apns-topic"] !== topic && flat["apns-topic"] !== `${topic}.voip`) return answer(stream, 400, apnsId, { reason: "DeviceTokenNotForTopic" });
      if (!/^[0-9a-f]{64,200}$/i.test(rec.deviceToken)) return answer(stream, 400, apnsId, { reason: "BadDeviceToken" });
      if (payload === undefined || typeof payload !== "object") return answer(stream, 400, apnsId, { reason: "PayloadEmpty" });
      if (raw.length > 4096) return answer(stream, 413, apnsId, { reason: "PayloadTooLarge" });
      const gone = unregistered.get(rec.deviceToken.toLowerCase());
      if (gone !== undefined) return answer(stream, 410, apnsId, { reason: "Unregistered", timestamp: gone });
      const s = queue.shift();
      if (s?.kind === "hang") {
        hanging.add(stream);
        stream.on("close", () => hanging.delete(stream));
        return;
      }
      if (s?.kind === "error") return answer(stream, s.status, apnsId, { reason: s.reason }, s.retryAfter !== undefined ? { "retry-after": String(s.retryAfter) } : {});
      delivered.push(rec);
      return answer(stream, 200, apnsId);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const port = (server.address() as { port: number }).port;

  return {
    url: `https://127.0.0.1:${port}`,
    tls: { ca: cert, servername: "receiver.test" },
    teamId,
    keyId,
    privateKey,
    topic,
    requests,
    delivered,
    deviceToken: () => Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("hex"),
    unregister: (token) => unregistered.set(token.toLowerCase(), Date.now()),
    script: (...answers) => queue.push(...answers),
    reset() {
      requests.length = 0;
      delivered.length = 0;
      queue.length = 0;
      unregistered.clear();
    },
    async stop() {
      for (const s of hanging) s.close(http2.constants.NGHTTP2_CANCEL);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
