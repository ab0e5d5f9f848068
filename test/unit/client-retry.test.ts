// The client's retry policy (client/retry.ts): which outcomes each kind of request retries,
// Retry-After parsing, and the back-off bounds.
import { describe, expect, test } from "bun:test";
import { isRetryable, parseRetryAfter, RETRY, retryDelayMs } from "../../client/retry";

describe("isRetryable", () => {
  test("safe calls: network, timeout, 408, 429, 5xx and 409 idempotency_key_in_use; no other 4xx", () => {
    const safe = (o: Parameters<typeof isRetryable>[1]) => isRetryable("safe", o);
    expect(safe({ kind: "network" })).toBe(true);
    expect(safe({ kind: "timeout" })).toBe(true);
    for (const status of [408, 429, 500, 502, 503, 504]) expect(safe({ kind: "response", status })).toBe(true);
    expect(safe({ kind: "response", status: 409, code: "idempotency_key_in_use" })).toBe(true);
    for (const status of [400, 401, 403, 404, 413, 422]) expect(safe({ kind: "response", status })).toBe(false);
    expect(safe({ kind: "response", status: 409, code: "conflict" })).toBe(false);
  });

  test("unsafe POSTs: only 429, which the server answers before doing anything", () => {
    expect(isRetryable("unsafe", { kind: "response", status: 429 })).toBe(true);
    for (const status of [408, 500, 503]) expect(isRetryable("unsafe", { kind: "response", status })).toBe(false);
    expect(isRetryable("unsafe", { kind: "network" })).toBe(false);
    expect(isRetryable("unsafe", { kind: "timeout" })).toBe(false);
  });
});

describe("parseRetryAfter", () => {
  test("seconds, fractions, HTTP dates, garbage", () => {
    expect(parseRetryAfter("3")).toBe(3000);
    expect(parseRetryAfter("0.5")).toBe(500);
    expect(parseRetryAfter(" 0 ")).toBe(0);
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(parseRetryAfter("Thu, 01 Jan 2026 00:00:05 GMT", now)).toBe(5000);
    expect(parseRetryAfter("Wed, 31 Dec 2025 23:59:00 GMT", now)).toBe(0);
    expect(parseRetryAfter(null)).toBeUndefined();
    expect(parseRetryAfter("soon")).toBeUndefined();
    expect(parseRetryAfter("-1")).toBeUndefined();
  });
});

describe("retryDelayMs", () => {
  test("exponential from 500 ms, capped at 8 s, jittered over the upper half", () => {
    expect([0, 1, 2, 3, 4, 10].map((r) => retryDelayMs(r, undefined, () => 1))).toEqual([500, 1000, 2000, 4000, 8000, 8000]);
    expect([0, 1, 2, 3, 4, 10].map((r) => retryDelayMs(r, undefined, () => 0))).toEqual([250, 500, 1000, 2000, 4000, 4000]);
  });

  test("Retry-After wins, plus at most 10%; beyond the ceiling there is no retry", () => {
    expect(retryDelayMs(0, 2000, () => 0)).toBe(2000);
    expect(retryDelayMs(5, 2000, () => 1)).toBe(2200);
    expect(retryDelayMs(0, 0, () => 1)).toBe(0);
    expect(retryDelayMs(0, RETRY.maxRetryAfterMs, () => 0)).toBe(RETRY.maxRetryAfterMs);
    expect(retryDelayMs(0, RETRY.maxRetryAfterMs + 1)).toBeNull();
  });
});
