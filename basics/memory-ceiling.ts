// Keeps a process's resident memory near its working set after bulk requests (1,000-item imports,
// member adds, bulk triggers): a full collection once the RSS passes a soft ceiling, at most 4 a second.
//
// Why: JavaScriptCore collects when its heap has grown by a share of what the machine has; on a large
// machine, four concurrent 1,000-item requests leave 100-200 MB of garbage resident before that
// happens (the api peaked at 333-339 MB while a million-member topic was built; docs/topics.md).
// The ceiling adapts: when a collection cannot bring the RSS under it (a process whose live set is
// that big), the next one waits until the RSS has grown another MEMORY_HEADROOM_MB past what the
// collection left, so a big process never collects after every request.
import { config } from "../config";

const MB = 1024 * 1024;

export type CeilingOptions = {
  limitMb: number;
  headroomMb: number;
  minIntervalMs: number;
  rss?: () => number;
  collect?: () => void;
  now?: () => number;
};

/** A check to call after bulk work: collects when the RSS is over the ceiling (limitMb 0: never). */
export function memoryCeiling(o: CeilingOptions): () => boolean {
  const rss = o.rss ?? (() => process.memoryUsage.rss());
  const collect = o.collect ?? (() => Bun.gc(true));
  const now = o.now ?? (() => performance.now());
  let threshold = o.limitMb * MB;
  let lastRun = -Infinity;
  return () => {
    if (o.limitMb <= 0) return false;
    const t = now();
    if (t - lastRun < o.minIntervalMs || rss() < threshold) return false;
    lastRun = t;
    collect();
    threshold = Math.max(o.limitMb * MB, rss() + o.headroomMb * MB);
    return true;
  };
}

/** The api's check, from MEMORY_SOFT_LIMIT_MB and MEMORY_HEADROOM_MB; bulk routes call it after their response. */
export const releaseBulkGarbage: () => boolean = memoryCeiling({
  limitMb: config.memorySoftLimitMb,
  headroomMb: config.memoryHeadroomMb,
  minIntervalMs: 250,
});
