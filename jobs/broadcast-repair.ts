// The broadcast repair scan (issue 22): one process at a time (the runtime's named lease
// `broadcast-repair`) re-enqueues fan-outs untouched for a while, whose message Redis lost.
import { logger } from "../basics/log";
import { repairFanOuts } from "../domain/broadcasts/broadcasts";
import { startLeasedLoop } from "../runtime";
import { getRuntime } from "../store/runtime-handle";

export function startBroadcastRepair(opts: { everyMs?: number; staleAfterMs?: number } = {}) {
  const log = logger.child({ component: "broadcast-repair" });
  const staleMs = opts.staleAfterMs ?? 30_000;
  return startLeasedLoop(getRuntime(), { name: "broadcast repair", lease: "broadcast-repair", everyMs: opts.everyMs ?? 10_000, leaseTtlMs: 30_000, log }, async () => {
    const n = await repairFanOuts(staleMs);
    if (n) log.info({ requeued: n }, "broadcast repair re-enqueued stalled fan-outs");
  });
}
