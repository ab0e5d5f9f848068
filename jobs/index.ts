// The periodic jobs this service runs (not actors: no stream, each a loop or a cron), by the Procfile
// kind that runs them; scripts/process-kinds.ts joins them with the actors of actors/index.ts.
import { startBillingCron } from "./billing-cron";
import { startDomainHealthCron } from "./domain-health-cron";
import { startReconciler } from "./reconciler";
import { startPartitionJob } from "./partitions";
import { startRetentionJob } from "./retention";
import { startWebhookRelay } from "./webhook-relay";
import { startBroadcastRepair } from "./broadcast-repair";

export interface Running {
  stop(): Promise<void>;
}

const periodic: Record<string, () => Running> = {
  reconciler: () => startReconciler(),
  billing: () => startBillingCron(),
  // expired history and offboardings left by a dead process (docs/operations.md#retention), and the
  // history tables' day partitions: created ahead, dropped whole once expired (#partitioning)
  retention: () => both(startPartitionJob(), startRetentionJob()),
  // the same kind as the domain-health actor: one Procfile line runs the schedule and the checks
  "domain-health": () => startDomainHealthCron(),
  // the relay from the outbox (and the repair scan) run beside the dispatcher they feed
  "webhook-dispatcher": () => startWebhookRelay(),
  // the scan that restarts stalled fan-outs runs beside the broadcast actor
  broadcast: () => startBroadcastRepair(),
};

function both(a: Running, b: Running): Running {
  return { stop: async () => void (await Promise.all([a.stop(), b.stop()])) };
}

export function jobKinds(): string[] {
  return Object.keys(periodic);
}

/** Starts the jobs of the named kinds (names without a job are ignored). */
export function startJobs(names: string[]): Running {
  const running = names.filter((n) => periodic[n]).map((n) => periodic[n]!());
  return {
    async stop() {
      for (const r of running.reverse()) await r.stop();
    },
  };
}
