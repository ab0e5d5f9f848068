// Retry policy as data plus pure functions: which outcomes are retried for which kind of
// request, and how long to wait (exponential back-off with jitter, Retry-After honoured).

export const RETRY = {
  initialDelayMs: 500,
  maxDelayMs: 8_000,
  /** A server asking for a longer pause than this gets the error instead of a stalled call. */
  maxRetryAfterMs: 60_000,
} as const;

/**
 * `safe`: GET, PUT, DELETE, side-effect-free POSTs (preview, validate, mark read) and POSTs that
 * carry an Idempotency-Key: a repeat cannot create a second record, so any transient failure is retried.
 * `unsafe`: other POSTs (import, rotate, channel test, invite ...): only a 429, which the server
 * answers before doing anything, is retried; a network error or 5xx may have done the work.
 */
export type RetryMode = "safe" | "unsafe";

export type Outcome =
  | { kind: "response"; status: number; code?: string }
  | { kind: "network" }
  | { kind: "timeout" };

export function isRetryable(mode: RetryMode, outcome: Outcome): boolean {
  if (outcome.kind !== "response") return mode === "safe";
  const { status, code } = outcome;
  if (status === 429) return true;
  if (mode === "unsafe") return false;
  // the same Idempotency-Key is still being processed by an earlier try: wait for its answer
  if (status === 409 && code === "idempotency_key_in_use") return true;
  return status === 408 || status >= 500;
}

/** Retry-After as seconds or an HTTP date, in ms; undefined when absent or unreadable. */
export function parseRetryAfter(header: string | null, now = Date.now()): number | undefined {
  if (header === null || header.trim() === "") return undefined;
  const value = header.trim();
  if (/^\d+(\.\d+)?$/.test(value)) return Math.round(Number(value) * 1000);
  if (!/[a-z]/i.test(value)) return undefined; // "-1" would parse as a date in year -1
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * Wait before retry number `retry` (0 = the first retry): the server's Retry-After when it sent
 * one (plus up to 10% so many clients do not return together), else 500 ms doubling to 8 s with
 * jitter over the upper half. Null when Retry-After asks for more than RETRY.maxRetryAfterMs.
 */
export function retryDelayMs(retry: number, retryAfterMs: number | undefined, random: () => number = Math.random): number | null {
  if (retryAfterMs !== undefined) {
    if (retryAfterMs > RETRY.maxRetryAfterMs) return null;
    return Math.ceil(retryAfterMs + retryAfterMs * 0.1 * random());
  }
  const ceiling = Math.min(RETRY.maxDelayMs, RETRY.initialDelayMs * 2 ** retry);
  return Math.round(ceiling / 2 + (ceiling / 2) * random());
}
