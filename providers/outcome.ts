// Pure outcome classification shared by every adapter (DESIGN.md 7): network error, timeout,
// 429 and 5xx are retryable; any other 4xx is permanent. Retry-After becomes retryAfterMs.
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
  extra: { retryAfterMs?: number; response?: Record<string, unknown> } = {},
): SendFailure {
  const result: SendFailure = { ok: false, retryable, error: { code, message } };
  if (extra.retryAfterMs !== undefined) result.retryAfterMs = extra.retryAfterMs;
  if (extra.response !== undefined) result.response = extra.response;
  return result;
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
