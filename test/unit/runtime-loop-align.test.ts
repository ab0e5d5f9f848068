// Loop alignMs (runtime/loop.ts): loops with one idle cadence end their pauses on its multiples of the
// process clock, so the loops of several hosts in one process wake together; aligning never lengthens a pause.
import { expect, test } from "bun:test";
import { silentLogger } from "../../runtime/actor";
import { alignedPause, Loop } from "../../runtime/loop";

test("an aligned pause ends on the next multiple of the cadence and is never longer than the cadence", () => {
  expect(alignedPause(1234, 1000)).toBe(766);
  expect(alignedPause(2000, 1000)).toBe(1000);
  expect(alignedPause(2999.5, 1000)).toBe(1); // at least 1 ms
  for (const now of [0, 1, 499, 500, 999, 12_345.678]) {
    const p = alignedPause(now, 500);
    expect(p).toBeGreaterThan(0);
    expect(p).toBeLessThanOrEqual(500);
    expect((now + p) % 500).toBeCloseTo(0, 6);
  }
});

test("two loops started apart run together from their second run on", async () => {
  const at: Record<string, number[]> = { a: [], b: [] };
  const make = (name: string, alignMs?: number) =>
    new Loop({ name, everyMs: 150, alignMs, log: silentLogger }, async () => void at[name]!.push(performance.now()));
  const a = make("a", 150).start(0);
  await Bun.sleep(70); // half a period apart
  const b = make("b", 150).start(0);
  try {
    while (at.a!.length < 4 || at.b!.length < 4) await Bun.sleep(20);
  } finally {
    await Promise.all([a.stop(), b.stop()]);
  }
  // the third runs of the aligned loops fall on the same multiple of 150 ms (timers may fire late on a loaded machine)
  expect(Math.abs(at.a![2]! - at.b![2]!)).toBeLessThan(40);
  expect(Math.round(at.a![2]! / 150)).toBe(Math.round(at.b![2]! / 150));
});
