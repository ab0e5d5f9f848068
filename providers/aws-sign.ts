// AWS Signature Version 4 for the AWS adapters (ses, sns), by the maintained `aws4` library: the
// headers one POST needs, Host and Content-Length left to fetch (which sends the same values).
import aws4 from "aws4";

export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  /** temporary credentials only */
  sessionToken?: string;
}

/** Signs a POST of `body` to `url` for an AWS service and region; returns the headers to send with it. */
export function signAwsPost(url: URL, body: string, contentType: string, service: string, region: string, credentials: AwsCredentials): Record<string, string> {
  const opts: aws4.Request = {
    // host with its port: the Host header fetch sends is exactly this, and it is signed
    host: url.host,
    method: "POST",
    path: url.pathname + url.search,
    service,
    region,
    body,
    headers: { "content-type": contentType },
  };
  aws4.sign(opts, {
    accessKeyId: credentials.accessKeyId,
    secretAccessKey: credentials.secretAccessKey,
    ...(credentials.sessionToken ? { sessionToken: credentials.sessionToken } : {}),
  });
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(opts.headers ?? {})) {
    if (v === undefined || /^(host|content-length)$/i.test(k)) continue;
    headers[k.toLowerCase()] = String(v);
  }
  return headers;
}
