// The pause between two batches of a long removal (the retention sweep, a tenant offboarding): at least
// RETENTION_BATCH_PAUSE_MS, and RETENTION_BATCH_PAUSE_RATIO times what the batch itself took, so a slow disk slows the removal, not the accepts.
import { config } from "../../config";

/** The wait between two batches, given what the batch took (a caller or a test may pass its own). */
export type Pause = (batchMs: number) => Promise<void>;

/** Waits after a batch that took `batchMs`; `fixedMs` overrides RETENTION_BATCH_PAUSE_MS (0 with ratio 0: no pause). */
export async function pauseAfterBatch(batchMs: number, fixedMs = config.lifecycle.batchPauseMs, ratio = config.lifecycle.batchPauseRatio): Promise<void> {
  const ms = Math.max(fixedMs, ratio * batchMs);
  if (ms > 0) await Bun.sleep(ms);
}
