// AWS Signature Version 4 checked the way AWS checks it, written from the published algorithm
// (independent of the `aws4` library the adapters sign with): fake-ses and fake-sns verify with it.
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import type { RecordedRequest } from "./fake-http";

export interface SigV4Expect {
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  service: string;
  /** required as X-Amz-Security-Token when set (temporary credentials) */
  sessionToken?: string;
  /** how far X-Amz-Date may be from now (AWS: 15 minutes) */
  maxSkewMs?: number;
  now?: number;
}

/** null when the request is correctly signed; otherwise AWS's error type and message */
export type SigV4Problem = { type: "MissingAuthenticationToken" | "IncompleteSignature" | "UnrecognizedClientException" | "InvalidSignatureException" | "SignatureDoesNotMatch"; message: string };

const hex = (data: string | Uint8Array) => createHash("sha256").update(data).digest("hex");
const hmac = (key: string | Buffer, data: string) => createHmac("sha256", key).update(data, "utf8").digest();

/** RFC 3986 unreserved characters stay, everything else is %XX (upper case), as SigV4 requires */
export function rfc3986(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** The SigV4 signing key: HMAC chain over date, region, service and "aws4_request". */
export function signingKey(secret: string, date: string, region: string, service: string): Buffer {
  return hmac(hmac(hmac(hmac(`AWS4${secret}`, date), region), service), "aws4_request");
}

/** The canonical request of a recorded request, for the signed header names given. */
export function canonicalRequest(rec: RecordedRequest, signedHeaders: string[]): string {
  // every service but S3 encodes each path segment twice
  const path = rec.path.split("/").map((seg) => rfc3986(rfc3986(decodeURIComponent(seg)))).join("/") || "/";
  const query = Object.entries(rec.query)
    .map(([k, v]) => [rfc3986(k), rfc3986(v)] as const)
    .sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join("&");
  const headers = signedHeaders.map((h) => `${h}:${(rec.headers[h] ?? "").trim().replace(/\s+/g, " ")}\n`).join("");
  const payloadHash = rec.headers["x-amz-content-sha256"] ?? hex(rec.rawBody);
  return [rec.method, path, query, headers, signedHeaders.join(";"), payloadHash].join("\n");
}

/** Checks Authorization: AWS4-HMAC-SHA256 Credential=..., SignedHeaders=..., Signature=... of one request. */
export function checkSigV4(rec: RecordedRequest, expect: SigV4Expect): SigV4Problem | null {
  const auth = rec.headers.authorization;
  if (!auth) return { type: "MissingAuthenticationToken", message: "Missing Authentication Token" };
  const m = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/.exec(auth);
  if (!m) return { type: "IncompleteSignature", message: "Authorization header requires 'Credential', 'SignedHeaders' and 'Signature' parameters." };
  const [, keyId, date, region, service, signed, signature] = m as unknown as string[];
  if (keyId !== expect.accessKeyId) return { type: "UnrecognizedClientException", message: "The security token included in the request is invalid." };
  if (region !== expect.region || service !== expect.service) {
    return { type: "SignatureDoesNotMatch", message: `Credential should be scoped to a valid region and service: '${expect.region}/${expect.service}'.` };
  }
  const signedHeaders = signed!.split(";");
  if (!signedHeaders.includes("host") || !signedHeaders.includes("x-amz-date")) {
    return { type: "SignatureDoesNotMatch", message: "'Host' and 'X-Amz-Date' must be signed." };
  }
  const amzDate = rec.headers["x-amz-date"] ?? "";
  const dm = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate);
  if (!dm || amzDate.slice(0, 8) !== date) return { type: "IncompleteSignature", message: "X-Amz-Date must match the credential scope's date." };
  const at = Date.UTC(+dm[1]!, +dm[2]! - 1, +dm[3]!, +dm[4]!, +dm[5]!, +dm[6]!);
  if (Math.abs((expect.now ?? Date.now()) - at) > (expect.maxSkewMs ?? 15 * 60_000)) {
    return { type: "InvalidSignatureException", message: `Signature expired: ${amzDate} is now earlier than the allowed window.` };
  }
  if (expect.sessionToken !== undefined && rec.headers["x-amz-security-token"] !== expect.sessionToken) {
    return { type: "UnrecognizedClientException", message: "The security token included in the request is invalid." };
  }
  if (rec.headers["x-amz-content-sha256"] && rec.headers["x-amz-content-sha256"] !== hex(rec.rawBody)) {
    return { type: "SignatureDoesNotMatch", message: "The provided 'x-amz-content-sha256' header does not match what was computed." };
  }
  const canonical = canonicalRequest(rec, signedHeaders);
  const stringToSign = ["AWS4-HMAC-SHA256", amzDate, `${date}/${region}/${service}/aws4_request`, hex(canonical)].join("\n");
  const expected = createHmac("sha256", signingKey(expect.secretAccessKey, date!, region!, service!)).update(stringToSign, "utf8").digest();
  const given = Buffer.from(signature!, "hex");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return {
      type: "SignatureDoesNotMatch",
      message: "The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method.",
    };
  }
  return null;
}
