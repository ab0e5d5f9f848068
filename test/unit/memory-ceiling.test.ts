// The memory ceiling of bulk requests (basics/memory-ceiling.ts): when it collects, how often, and how
// its threshold adapts to a process whose live set sits above the limit; and that a real collection runs.
import { describe, expect, test } from "bun:test";
import { memoryCeiling } from "../../basics/memory-ceiling";

const MB = 1024 * 1024;

function harness(limitMb: number) {
  const state = { rss: 0, t: 0, collections: 0, afterCollect: 0 };
  const check = memoryCeiling({
    limitMb,
    headroomMb: 40,
    minIntervalMs: 250,
    rss: () => state.rss,
    now: () => state.t,
    collect: () => {
      state.collections++;
      state.rss = state.afterCollect;
    },
  });
  return { state, check };
}

describe("memory ceiling", () => {
  test("collects only above the limit, at most once per interval", () => {
    const { state, check } = harness(160);
    state.rss = 150 * MB;
    expect(check()).toBe(false);
    state.rss = 170 * MB;
    state.afterCollect = 120 * MB;
    expect(check()).toBe(true);
    expect(state.collections).toBe(1);
    state.rss = 200 * MB;
    state.t = 100;
    expect(check()).toBe(false); // within 250 ms of the last one
    state.t = 300;
    expect(check()).toBe(true);
    expect(state.collections).toBe(2);
  });

  test("a live set above the limit raises the threshold to what a collection left plus the headroom", () => {
    const { state, check } = harness(160);
    state.rss = 230 * MB;
    state.afterCollect = 200 * MB; // the collection could not get under 160
    expect(check()).toBe(true);
    state.t = 1000;
    state.rss = 235 * MB; // under 200 + 40
    expect(check()).toBe(false);
    state.rss = 241 * MB;
    expect(check()).toBe(true);
    expect(state.collections).toBe(2);
    // a collection that gets well under brings the threshold back to the limit itself
    state.t = 2000;
    state.afterCollect = 100 * MB;
    state.rss = 300 * MB;
    expect(check()).toBe(true);
    state.t = 3000;
    state.rss = 165 * MB;
    expect(check()).toBe(true);
  });

  test("a limit of 0 never collects", () => {
    const { state, check } = harness(0);
    state.rss = 10_000 * MB;
    expect(check()).toBe(false);
    expect(state.collections).toBe(0);
  });

  test("the default collector frees garbage for real", () => {
    const check = memoryCeiling({ limitMb: 1, headroomMb: 8, minIntervalMs: 0 });
    const { heapStats } = require("bun:jsc") as typeof import("bun:jsc");
    // The garbage is made and dropped in helpers, so no pointer to it stays in this frame: JavaScriptCore
    // scans stacks conservatively, and a local that once held the array kept it alive through the
    // collection now and then (heap 117 MB before, 121 MB after, on a machine with two CPU hogs).
    const holder: { junk: unknown[] | null } = { junk: null };
    const fill = () => void (holder.junk = Array.from({ length: 200_000 }, (_, i) => ({ i, s: `item ${i}` })));
    const size = () => holder.junk?.length ?? 0;
    fill();
    expect(size()).toBe(200_000);
    const before = heapStats().heapSize;
    holder.junk = null;
    expect(check()).toBe(true);
    expect(heapStats().heapSize).toBeLessThan(before);
  });
});
