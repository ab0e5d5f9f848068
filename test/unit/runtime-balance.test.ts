// Lease balancing rules without Redis: the target per host, preference order, and what to
// take or give back as hosts join and leave.
import { describe, expect, test } from "bun:test";
import { leaseTarget, planLeases, preferenceOrder } from "../../runtime/balance";

describe("leaseTarget: each host aims for ceil(P / live)", () => {
  test("two hosts split 16 as 8/8; three as at most 6; one takes all", () => {
    expect(leaseTarget(16, 1)).toBe(16);
    expect(leaseTarget(16, 2)).toBe(8);
    expect(leaseTarget(16, 3)).toBe(6);
    expect(leaseTarget(16, 16)).toBe(1);
    expect(leaseTarget(16, 40)).toBe(1);
  });

  test("never divides by zero when the registry is empty", () => {
    expect(leaseTarget(16, 0)).toBe(16);
  });
});

describe("preferenceOrder", () => {
  test("is a permutation of the partitions, stable per host id", () => {
    const order = preferenceOrder("host-a", 16);
    expect([...order].sort((a, b) => a - b)).toEqual(Array.from({ length: 16 }, (_, i) => i));
    expect(preferenceOrder("host-a", 16)).toEqual(order);
  });

  test("different hosts usually start at different partitions", () => {
    const starts = new Set(Array.from({ length: 20 }, (_, i) => preferenceOrder(`host-${i}`, 16)[0]));
    expect(starts.size).toBeGreaterThan(5);
  });
});

describe("planLeases", () => {
  const order = Array.from({ length: 16 }, (_, i) => i);

  test("a host with all 16 gives back its 8 least preferred when a second host appears", () => {
    const plan = planLeases({ owned: order, free: [], target: 8, order });
    expect(plan.acquire).toEqual([]);
    expect(plan.release.sort((a, b) => a - b)).toEqual([8, 9, 10, 11, 12, 13, 14, 15]);
  });

  test("a host below target takes free partitions, most preferred first, up to the target", () => {
    const rotated = [5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4];
    const plan = planLeases({ owned: [], free: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], target: 8, order: rotated });
    expect(plan.release).toEqual([]);
    expect(plan.acquire).toEqual([5, 6, 7, 8, 9, 10, 11, 0]);
  });

  test("the survivor of two takes every free partition (target = P)", () => {
    const plan = planLeases({ owned: [0, 1, 2, 3, 4, 5, 6, 7], free: [8, 9, 10, 11, 12, 13, 14, 15], target: 16, order });
    expect(plan.acquire).toEqual([8, 9, 10, 11, 12, 13, 14, 15]);
  });

  test("at target nothing moves; free partitions already owned are ignored", () => {
    expect(planLeases({ owned: [1, 2], free: [1, 3], target: 2, order })).toEqual({ acquire: [], release: [] });
    expect(planLeases({ owned: [1], free: [1, 3], target: 2, order })).toEqual({ acquire: [3], release: [] });
  });
});
