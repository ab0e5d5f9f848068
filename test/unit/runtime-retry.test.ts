// Retry back-off policies (data + one pure function: the runtime's handler retries and the channel
// sender's attempts) and the handler concurrency semaphore.
import { describe, expect, test } from "bun:test";
import { DELIVERY_RETRY_POLICY } from "../../domain/delivery/policy";
import { DEFAULT_RETRY_POLICY, retryDelayFor } from "../../runtime/retry";
import { Semaphore } from "../../runtime/semaphore";

describe("retryDelayFor(deliveries)", () => {
  const noJitter = { ...DEFAULT_RETRY_POLICY, jitter: 0 };

  test("doubles from baseMs after each failed delivery", () => {
    expect([1, 2, 3, 4].map((n) => retryDelayFor(n, noJitter))).toEqual([200, 400, 800, 1600]);
  });

  test("is capped at maxMs", () => {
    expect(retryDelayFor(30, noJitter)).toBe(30_000);
    expect(retryDelayFor(30, DEFAULT_RETRY_POLICY, () => 1)).toBe(30_000);
  });

  test("jitter stays within ±jitter of the raw delay", () => {
    expect(retryDelayFor(2, DEFAULT_RETRY_POLICY, () => 0)).toBe(320);
    expect(retryDelayFor(2, DEFAULT_RETRY_POLICY, () => 1)).toBe(480);
    expect(retryDelayFor(2, DEFAULT_RETRY_POLICY, () => 0.5)).toBe(400);
  });

  test("never negative, even for deliveries < 1", () => {
    expect(retryDelayFor(0, noJitter)).toBe(200);
  });

  test("the sender's attempts: 30 s doubling before attempts 2 to 5 (DESIGN.md 7), never jittered, capped at the last", () => {
    expect([1, 2, 3, 4].map((n) => retryDelayFor(n, DELIVERY_RETRY_POLICY, () => 0))).toEqual([30_000, 60_000, 120_000, 240_000]);
    expect([1, 2, 3, 4].map((n) => retryDelayFor(n, DELIVERY_RETRY_POLICY, () => 1))).toEqual([30_000, 60_000, 120_000, 240_000]);
    expect(retryDelayFor(5, DELIVERY_RETRY_POLICY)).toBe(240_000);
    expect(retryDelayFor(0, DELIVERY_RETRY_POLICY)).toBe(30_000);
  });
});

describe("Semaphore", () => {
  test("admits `limit` at once and hands each released slot to the next waiter in order", async () => {
    const s = new Semaphore(2);
    expect(s.tryAcquire()).toBe(true);
    expect(s.tryAcquire()).toBe(true);
    expect(s.tryAcquire()).toBe(false);
    const order: number[] = [];
    const a = s.wait().then(() => order.push(1));
    const b = s.wait().then(() => order.push(2));
    s.release();
    await a;
    expect(order).toEqual([1]);
    expect(s.inUse).toBe(2);
    s.release();
    await b;
    expect(order).toEqual([1, 2]);
    s.release();
    s.release();
    expect(s.inUse).toBe(0);
  });
});
