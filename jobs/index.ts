// The periodic jobs this service runs (not actors: no stream, each a loop or a cron), by the Procfile
// kind that runs them; scripts/process-kinds.ts joins them with the actors of actors/index.ts.

export interface Running {
  stop(): Promise<void>;
}

// Loaded on demand: a process imports only the jobs of the kinds it runs (a restarted process starts sooner).
const periodic: Record<string, () => Promise<Running>> = {
  reconciler: async () => (await import("./reconciler")).startReconciler(),
  billing: async () => (await import("./billing-cron")).startBillingCron(),
  // expired history and offboardings left by a dead process (docs/operations.md#retention)
  // and the history tables' day partitions: created ahead, dropped whole once expired (#partitioning)
  // and, when PostgreSQL's autovacuum is off, the planner statistics autovacuum would keep (#table-statistics)
  retention: async () =>
    all((await import("./partitions")).startPartitionJob(), (await import("./retention")).startRetentionJob(), (await import("./table-stats")).startTableStatsJob()),
  // the same kind as the domain-health actor: one Procfile line runs the schedule and the checks
  "domain-health": async () => (await import("./domain-health-cron")).startDomainHealthCron(),
  // the relay from the outbox (and the repair scan) run beside the dispatcher they feed
  "webhook-dispatcher": async () => (await import("./webhook-relay")).startWebhookRelay(),
  // the scan that restarts stalled fan-outs runs beside the broadcast actor
  broadcast: async () => (await import("./broadcast-repair")).startBroadcastRepair(),
};

function all(...jobs: Running[]): Running {
  return { stop: async () => void (await Promise.all(jobs.map((j) => j.stop()))) };
}

export function jobKinds(): string[] {
  return Object.keys(periodic);
}

/** Starts the jobs of the named kinds (names without a job are ignored). */
export async function startJobs(names: string[]): Promise<Running> {
  const running: Running[] = [];
  for (const n of names) if (periodic[n]) running.push(await periodic[n]!());
  return {
    async stop() {
      for (const r of running.reverse()) await r.stop();
    },
  };
}
