// The retention job: one process at a time (the named lease `retention`) removes expired history
// (domain/lifecycle/retention.ts) within a time budget per run, and resumes offboardings that stopped.
import { config } from "../config";
import { logger } from "../basics/log";
import { resumeStaleOffboardings } from "../domain/lifecycle/offboarding";
import { sweepRetention } from "../domain/lifecycle/retention";
import { startLeasedLoop } from "../runtime";
import { getRuntime } from "../store/runtime-handle";

const LEASE_MS = 60_000;
/** A run stops starting batches after this long (well inside the lease), and the next run continues. */
const RUN_BUDGET_MS = 20_000;

export interface RunningRetention {
  stop(): Promise<void>;
  runOnce(): Promise<void>;
  readonly failures: number;
  readonly runs: number;
}

export function startRetentionJob(opts: { everyMs?: number; offboardingStaleMs?: number; firstRunInMs?: number } = {}): RunningRetention {
  const log = logger.child({ component: "retention" });
  let resumeFrom: string | null = null;
  let stopping = false;
  const loop = startLeasedLoop(
    getRuntime(),
    {
      name: "retention sweep",
      lease: "retention",
      everyMs: opts.everyMs ?? config.lifecycle.retentionEveryMs,
      leaseTtlMs: LEASE_MS,
      firstRunInMs: opts.firstRunInMs,
      log,
    },
    async () => {
      const deadline = Date.now() + RUN_BUDGET_MS;
      const shouldStop = () => stopping || Date.now() > deadline;
      await resumeStaleOffboardings({ staleMs: opts.offboardingStaleMs, shouldStop });
      const r = await sweepRetention({ resumeFrom, shouldStop });
      resumeFrom = r.resumeFrom;
      // a pass cut short by the budget continues at once (the loop renews the lease first)
      return resumeFrom !== null && !stopping;
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
    async stop() {
      stopping = true;
      await loop.stop();
    },
  };
}
