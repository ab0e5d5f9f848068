// What the AWS adapters (ses, sns) share: their credentials and region read and checked, and SigV4
// signing by the maintained `aws4` library (Host and Content-Length left to fetch, same values).
import aws4 from "aws4";
import { type ConfigChecks, stringSetting } from "./config-checks";
import type { FieldSpec, ProviderConfig } from "./types";

const REGION_RE = /^[a-z]{2}(-gov|-iso[a-z]*)?-[a-z]+-\d$/;
const ACCESS_KEY_RE = /^(AKIA|ASIA)[A-Z0-9]{12,124}$/;

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

/** The credential fields of an AWS adapter; `action` names the IAM permission it needs. */
export function awsCredentialFields(action: string): FieldSpec[] {
  return [
    { name: "access_key_id", required: true, description: `IAM access key id (AKIA... or ASIA...) allowed ${action}`, type: "string" },
    { name: "secret_access_key", required: true, description: "the access key's secret", type: "string" },
    { name: "session_token", required: false, description: "session token of temporary (ASIA...) credentials", type: "string" },
  ];
}

/** credentials.access_key_id / secret_access_key / session_token and settings.region, into `checks`. */
export function checkAwsConfig(checks: ConfigChecks): void {
  const key = checks.requireString("credentials", "access_key_id");
  if (key !== undefined && !ACCESS_KEY_RE.test(key)) checks.add("credentials", "access_key_id", "must be an AWS access key id (AKIA... or ASIA..., upper-case letters and digits)");
  const secret = checks.requireString("credentials", "secret_access_key");
  if (secret !== undefined && secret.length < 16) checks.add("credentials", "secret_access_key", "is too short to be an AWS secret access key");
  const token = checks.optionalString("credentials", "session_token");
  if (key?.startsWith("ASIA") && token === undefined) checks.add("credentials", "session_token", "is required with temporary (ASIA...) credentials");
  const region = checks.requireString("settings", "region");
  if (region !== undefined && !REGION_RE.test(region)) checks.add("settings", "region", "must be an AWS region such as us-east-1 or eu-west-1");
}

/** The credentials and region of a validated configuration. */
export function awsConfig(config: ProviderConfig): { credentials: AwsCredentials; region: string } {
  const sessionToken = stringSetting(config.credentials, "session_token");
  return {
    credentials: {
      accessKeyId: stringSetting(config.credentials, "access_key_id"),
      secretAccessKey: stringSetting(config.credentials, "secret_access_key"),
      ...(sessionToken ? { sessionToken } : {}),
    },
    region: stringSetting(config.settings, "region", "us-east-1"),
  };
}
