// The webhook relay job: every dispatcher process moves committed outbox rows onto the dispatcher's
// stream (domain/webhooks/relay.ts), at once again while batches come back full; the repair job beside it.
import { logger } from "../basics/log";
import { relayOnce, RELAY_BATCH } from "../domain/webhooks/relay";
import { Loop, type Runtime } from "../runtime";
import { startWebhookRepair, type RepairLoopOptions, type RunningRepair } from "./webhook-repair";

export type { RepairLoopOptions };

/** Longest pause of an idle relay: the most a first event after a quiet spell waits in the outbox. */
export const RELAY_IDLE_MAX_MS = 1000;

export interface RunningRelay {
  stop(): Promise<void>;
  /** runs of the relay loop that failed (each is retried at the next tick) */
  readonly failures: number;
  /** the repair scan beside it, unless turned off */
  readonly repair: RunningRepair | null;
}

/**
 * The relay loop of one dispatcher process: every `everyMs` (at once again while batches come back
 * full) it moves committed outbox rows onto the dispatcher's stream. Several processes may run it
 * (rows are taken with SKIP LOCKED). The repair job (jobs/webhook-repair.ts) starts beside it unless
 * `repair` is false.
 */
export function startWebhookRelay(opts: { everyMs?: number; runtime?: Runtime; repair?: RepairLoopOptions | false } = {}): RunningRelay {
  const log = logger.child({ component: "webhook-relay" });
  const everyMs = opts.everyMs ?? 100;
  // Idle, the pause doubles up to RELAY_IDLE_MAX_MS (an idle process asks PostgreSQL once a second,
  // not ten times); the first row moved brings it back to everyMs.
  let pause = everyMs;
  const loop = new Loop({ name: "webhook relay", everyMs, alignMs: Math.max(everyMs, RELAY_IDLE_MAX_MS), runDeadlineMs: 30_000, log }, async () => {
    const moved = await relayOnce({ runtime: opts.runtime });
    if (moved >= RELAY_BATCH) return true;
    pause = moved > 0 ? everyMs : Math.min(Math.max(everyMs, RELAY_IDLE_MAX_MS), pause * 2);
    return pause;
  }).start();
  const repair = opts.repair === false ? null : startWebhookRepair({ runtime: opts.runtime, ...opts.repair });
  return {
    get failures() {
      return loop.failures;
    },
    repair,
    async stop() {
      await loop.stop();
      await repair?.stop();
    },
  };
}
