// A periodic job that one process of many runs at a time: a Loop whose every run first holds (takes
// or renews) a named lease, and skips the run when another process holds it. The lease goes on stop.
import { createLease, type NamedLease } from "./lease";
import { Loop } from "./loop";
import type { RuntimeLogger } from "./actor";
import type { Runtime } from "./types";

export interface LeasedLoopOptions {
  /** The loop's name in log lines and the lease's name (`<prefix>:lease:{<lease>}`). */
  name: string;
  lease: string;
  /** Pause between runs; a run that returns true runs again at once. */
  everyMs: number;
  /** How long the lease outlives a holder that died: a successor takes over after this. */
  leaseTtlMs: number;
  /** A run still unsettled after this long is logged and left behind (default: the lease's ttl). */
  runDeadlineMs?: number;
  /** The first run's delay (default: one period). */
  firstRunInMs?: number;
  log: RuntimeLogger;
}

export interface LeasedLoop {
  readonly lease: NamedLease;
  /** Runs that threw, rejected or missed their deadline (each is retried at the next tick). */
  readonly failures: number;
  /** Runs made by this process while it held the lease. */
  readonly runs: number;
  /** One run now (while holding the lease); the cadence continues after it. */
  runOnce(): Promise<void>;
  /** The next run at once, or right after the one in progress (runOnce would join that one). */
  wake(): void;
  /** Stops the cadence, waits for a run in progress, and gives the lease back. */
  stop(): Promise<void>;
}

/** `run` returns true to run again at once, or the pause (ms) before its next run. */
export function startLeasedLoop(runtime: Runtime, opts: LeasedLoopOptions, run: () => Promise<boolean | number | void>): LeasedLoop {
  // one process at a time on a job: a holder proven dead (kill -9) hands it over at once, not after the ttl
  const lease = createLease(runtime, opts.lease, { ttlMs: opts.leaseTtlMs, takeFromDead: true });
  let runs = 0;
  const loop = new Loop({ name: opts.name, everyMs: opts.everyMs, runDeadlineMs: opts.runDeadlineMs ?? opts.leaseTtlMs, log: opts.log }, async () => {
    if (!(await lease.hold())) return;
    runs++;
    return await run();
  }).start(opts.firstRunInMs ?? opts.everyMs);
  return {
    lease,
    get failures() {
      return loop.failures;
    },
    get runs() {
      return runs;
    },
    runOnce: () => loop.runOnce(),
    wake: () => loop.wakeIn(0),
    async stop() {
      await loop.stop();
      await lease.release().catch(() => {});
    },
  };
}
