// The partition job: one process at a time (the named lease `partitions`) keeps the history tables'
// day partitions ready ahead and drops expired days (domain/lifecycle/partitions.ts).
import { config } from "../config";
import { logger } from "../basics/log";
import { maintainPartitions } from "../domain/lifecycle/partitions";
import { startLeasedLoop } from "../runtime";
import { getRuntime } from "../store/runtime-handle";

const LEASE_MS = 120_000;

export interface RunningPartitions {
  stop(): Promise<void>;
  runOnce(): Promise<void>;
  readonly failures: number;
  readonly runs: number;
}

export function startPartitionJob(opts: { everyMs?: number; firstRunInMs?: number } = {}): RunningPartitions {
  const log = logger.child({ component: "partitions" });
  const loop = startLeasedLoop(
    getRuntime(),
    {
      name: "partition maintenance",
      lease: "partitions",
      everyMs: opts.everyMs ?? config.lifecycle.partitionEveryMs,
      leaseTtlMs: LEASE_MS,
      // soon after a start: a machine that was down for days finds today's partition missing
      firstRunInMs: opts.firstRunInMs ?? 5_000,
      log,
    },
    async () => {
      await maintainPartitions();
    },
  );
  return {
    runOnce: () => loop.runOnce(),
    get failures() {
      return loop.failures;
    },
    get runs() {
      return loop.runs;
    },
    stop: () => loop.stop(),
  };
}
