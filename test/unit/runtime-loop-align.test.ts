// Loop alignMs (runtime/loop.ts): loops with one idle cadence end their pauses on its multiples of the
// process clock, so the loops of several hosts in one process wake together; aligning never lengthens a pause.
import { expect, test } from "bun:test";
import { silentLogger } from "../../runtime/actor";
import { alignedPause, Loop } from "../../runtime/loop";

test("an aligned pause ends on the next multiple of the cadence and is never longer than the cadence", () => {
  expect(alignedPause(1234, 1000)).toBe(766);
  expect(alignedPause(2000, 1000)).toBe(1000);
  // a run that ended just before a multiple (its timer fired early) was that multiple's run: the next is a period on
  expect(alignedPause(2999.5, 1000)).toBe(1000.5);
  expect(alignedPause(2997, 1000)).toBe(3);
  for (const now of [0, 1, 499, 500, 999, 12_345.678]) {
    const p = alignedPause(now, 500);
    expect(p).toBeGreaterThan(2);
    expect(p).toBeLessThanOrEqual(502);
    expect((now + p) % 500).toBeCloseTo(0, 6);
  }
});

test("two loops started apart plan their next runs on the same multiples of the cadence", async () => {
  const runs: Record<string, number> = { a: 0, b: 0 };
  const make = (name: string, alignMs?: number) => new Loop({ name, everyMs: 150, alignMs, log: silentLogger }, async () => void runs[name]!++);
  const a = make("a", 150).start(0);
  await Bun.sleep(70); // half a period apart
  const b = make("b", 150).start(0);
  try {
    while (runs.a! < 3 || runs.b! < 3) await Bun.sleep(20);
    // what each planned at the end of its last run (a plan, not a timer's firing: a loaded machine fires late)
    const offGrid = (t: number) => Math.min(t % 150, 150 - (t % 150));
    for (const loop of [a, b]) expect(offGrid(loop.plannedWakeAt)).toBeLessThan(1e-6);
    // at most a timer's early firing later than a plain loop would have run
    for (const loop of [a, b]) expect(loop.plannedWakeAt - loop.lastRunEnd).toBeLessThanOrEqual(152);
  } finally {
    await Promise.all([a.stop(), b.stop()]);
  }
});
