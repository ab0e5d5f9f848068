// The pause between two batches of a long removal (domain/lifecycle/batch-pause.ts): the fixed pause,
// or the ratio times what the batch took when that is longer (only lower bounds: a busy machine only lengthens a sleep).
import { describe, expect, test } from "bun:test";
import { pauseAfterBatch } from "../../domain/lifecycle/batch-pause";

async function waited(f: () => Promise<void>): Promise<number> {
  const t0 = performance.now();
  await f();
  return performance.now() - t0;
}

describe("pauseAfterBatch", () => {
  test("a slow batch earns a pause as long as it took, times the ratio", async () => {
    expect(await waited(() => pauseAfterBatch(40, 0, 1))).toBeGreaterThanOrEqual(39);
    expect(await waited(() => pauseAfterBatch(15, 0, 3))).toBeGreaterThanOrEqual(44);
  });

  test("a quick batch still gets the fixed pause", async () => {
    expect(await waited(() => pauseAfterBatch(1, 30, 1))).toBeGreaterThanOrEqual(29);
  });
});
