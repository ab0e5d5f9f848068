// SPEC's webhook retry schedule (attempt 1 at once, then 5 min, 30 min, 2 h, 6 h, then discarded)
// as data plus one pure function, times TIME_SCALE, with Retry-After honoured within its bounds.
import { describe, expect, test } from "bun:test";
import { WEBHOOK_MAX_ATTEMPTS, WEBHOOK_RETRY_SCHEDULE_MS, webhookRetryDelayMs } from "../../domain/webhooks/retry-schedule";

const MIN = 60_000;

describe("webhookRetryDelayMs", () => {
  test("the schedule is SPEC's: five attempts, waits of 5 min, 30 min, 2 h and 6 h after the first", () => {
    expect(WEBHOOK_MAX_ATTEMPTS).toBe(5);
    expect(WEBHOOK_RETRY_SCHEDULE_MS).toEqual([0, 5 * MIN, 30 * MIN, 120 * MIN, 360 * MIN]);
    expect([1, 2, 3, 4].map((a) => webhookRetryDelayMs(a))).toEqual([5 * MIN, 30 * MIN, 120 * MIN, 360 * MIN]);
  });

  test("after the fifth attempt (or a nonsense one) the event is discarded", () => {
    expect(webhookRetryDelayMs(5)).toBeNull();
    expect(webhookRetryDelayMs(9)).toBeNull();
    expect(webhookRetryDelayMs(0)).toBeNull();
  });

  test("TIME_SCALE multiplies every wait", () => {
    expect(webhookRetryDelayMs(1, { timeScale: 0.001 })).toBe(300);
    expect(webhookRetryDelayMs(4, { timeScale: 0.001 })).toBe(21_600);
  });

  test("Retry-After pushes the wait later, never earlier, and never past the longest wait (6 h)", () => {
    expect(webhookRetryDelayMs(1, { retryAfterMs: 10_000 })).toBe(5 * MIN); // sooner than the schedule: the schedule wins
    expect(webhookRetryDelayMs(1, { retryAfterMs: 60 * MIN })).toBe(60 * MIN); // later: honoured
    expect(webhookRetryDelayMs(2, { retryAfterMs: 48 * 60 * MIN })).toBe(360 * MIN); // two days: capped at 6 h
    expect(webhookRetryDelayMs(1, { retryAfterMs: 1000, timeScale: 0.0001 })).toBe(1000); // bounds scale, Retry-After is real time
    expect(webhookRetryDelayMs(5, { retryAfterMs: 1000 })).toBeNull(); // the last attempt stays the last
  });
});
