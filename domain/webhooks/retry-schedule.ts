// SPEC's webhook retry schedule as data plus one pure function: the wait before each automatic
// attempt, scaled by TIME_SCALE, with a receiver's Retry-After honoured within the schedule's bounds.

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** Wait before attempt n+1 is WEBHOOK_RETRY_SCHEDULE_MS[n] (attempt 1 at once); after the last, the event is discarded. */
export const WEBHOOK_RETRY_SCHEDULE_MS: readonly number[] = [0, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 6 * HOUR];
export const WEBHOOK_MAX_ATTEMPTS = WEBHOOK_RETRY_SCHEDULE_MS.length;
const LONGEST_WAIT_MS = Math.max(...WEBHOOK_RETRY_SCHEDULE_MS);

/**
 * Milliseconds (real time) to wait after failed attempt `failedAttempt` before the next one, or
 * null when it was the last (the event is discarded). `retryAfterMs` (a 429 or 503 with
 * Retry-After, real time) can push the wait later than the schedule, never earlier and never past
 * the schedule's longest wait; the schedule's waits are multiplied by `timeScale`.
 */
export function webhookRetryDelayMs(failedAttempt: number, opts: { retryAfterMs?: number | null; timeScale?: number } = {}): number | null {
  if (!(failedAttempt >= 1) || failedAttempt >= WEBHOOK_MAX_ATTEMPTS) return null;
  const scale = opts.timeScale ?? 1;
  const scheduled = WEBHOOK_RETRY_SCHEDULE_MS[failedAttempt]! * scale;
  const ra = opts.retryAfterMs;
  if (ra === undefined || ra === null || !Number.isFinite(ra)) return Math.round(scheduled);
  return Math.round(Math.min(Math.max(ra, scheduled), LONGEST_WAIT_MS * scale));
}
