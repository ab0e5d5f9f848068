// Pure outcome classification shared by every adapter (DESIGN.md 7): network error, timeout,
// 429 and 5xx are retryable; any other 4xx is permanent (callerFault when the request itself was at fault).
import type { SendFailure } from "./types";

/** true when an HTTP status is worth retrying (429, 408 and every 5xx) */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status === 408 || status >= 500;
}

/**
 * Retry-After is either delta-seconds or an HTTP-date (RFC 9110 10.2.3).
 * Returns undefined for a missing or unreadable value; a date in the past gives 0.
 */
export function parseRetryAfter(value: string | null | undefined, now: number = Date.now()): number | undefined {
  if (value == null) return undefined;
  const text = value.trim();
  if (text === "") return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  // an HTTP-date always names its month; this keeps "-5" or "2026" from parsing as a year
  if (!/[a-z]{3}/i.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}

/** SendGrid-style X-RateLimit-Reset: epoch seconds at which the window reopens */
export function parseRateLimitReset(value: string | null | undefined, now: number = Date.now()): number | undefined {
  if (value == null || !/^\d+$/.test(value.trim())) return undefined;
  return Math.max(0, Number(value.trim()) * 1000 - now);
}

export function failure(
  retryable: boolean,
  code: string,
  message: string,
  extra: { retryAfterMs?: number; response?: Record<string, unknown>; recipientUnregistered?: boolean; callerFault?: boolean } = {},
): SendFailure {
  const result: SendFailure = { ok: false, retryable, error: { code, message } };
  if (extra.retryAfterMs !== undefined) result.retryAfterMs = extra.retryAfterMs;
  if (extra.response !== undefined) result.response = extra.response;
  if (extra.recipientUnregistered) result.recipientUnregistered = true;
  if (extra.callerFault) result.callerFault = true;
  return result;
}

/**
 * Marks a failure as the caller's fault (invalid recipient, rejected content): permanent, and not
 * counted against the provider's health (SendFailure.callerFault).
 */
export function callerFault(f: SendFailure): SendFailure {
  const { retryAfterMs: _dropped, ...rest } = f;
  return { ...rest, retryable: false, callerFault: true };
}

/** Marks a failure as "this recipient no longer exists" (FCM UNREGISTERED, Web Push 404/410). */
export function unregistered(f: SendFailure): SendFailure {
  return { ...f, retryable: false, recipientUnregistered: true };
}

/** The error code used when a provider body gives none: "http_429", "http_503" ... */
export function httpStatusCode(status: number): string {
  return `http_${status}`;
}

export function isAbortError(err: unknown): boolean {
  const name = (err as { name?: string } | null)?.name;
  return name === "AbortError" || name === "TimeoutError";
}

/** Which failure a thrown fetch error is: our deadline, the caller's cancellation, or the network. */
export function failureFromFetchError(err: unknown, timedOut: boolean): SendFailure {
  if (timedOut) return failure(true, "timeout", "provider did not answer before the deadline");
  if (isAbortError(err)) return failure(true, "aborted", "send was cancelled before the provider answered");
  const e = err as { code?: string; message?: string } | null;
  const detail = e?.code ? `${e.code}: ${e?.message ?? ""}` : (e?.message ?? String(err));
  return failure(true, "network_error", `could not reach provider (${detail.slice(0, 200)})`);
}

// fields of a Google service account key that are public identifiers, not secrets: redacting
// "service_account" or the project id would mangle every FCM answer
const PUBLIC_CREDENTIAL_FIELDS = new Set([
  "type",
  "project_id",
  "client_id",
  "auth_uri",
  "token_uri",
  "auth_provider_x509_cert_url",
  "client_x509_cert_url",
  "universe_domain",
]);

/** every string leaf of a credentials object (service_account JSON included) worth hiding */
export function secretValues(credentials: Record<string, unknown> | undefined, minLength = 6): string[] {
  const out = new Set<string>();
  const walk = (v: unknown, key?: string) => {
    if (key !== undefined && PUBLIC_CREDENTIAL_FIELDS.has(key)) return;
    if (typeof v === "string") {
      if (v.length >= minLength) out.add(v);
      // a service account may arrive as JSON text: hide its fields too
      if (v.startsWith("{")) {
        try {
          walk(JSON.parse(v));
        } catch {
          /* not JSON: the whole string is already hidden */
        }
      }
    } else if (v && typeof v === "object") {
      for (const [k, x] of Object.entries(v)) walk(x, Array.isArray(v) ? undefined : k);
    }
  };
  walk(credentials);
  // longest first, so a secret that contains another is replaced whole
  return [...out].sort((a, b) => b.length - a.length);
}

/**
 * Deep copy with every occurrence of a secret replaced by "[redacted]": provider bodies echo
 * identifiers such as Twilio's account_sid (in `account_sid` and `uri`), and error messages may quote a user.
 */
export function redactSecrets<T>(value: T, secrets: readonly string[]): T {
  if (secrets.length === 0) return value;
  const scrub = (v: unknown): unknown => {
    if (typeof v === "string") {
      let s = v;
      for (const secret of secrets) if (s.includes(secret)) s = s.split(secret).join("[redacted]");
      return s;
    }
    if (Array.isArray(v)) return v.map(scrub);
    if (v && typeof v === "object") {
      // fromEntries defines own keys: a provider's "__proto__" key stays a key (assignment would set the prototype)
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, scrub(x)]));
    }
    return v;
  };
  return scrub(value) as T;
}
