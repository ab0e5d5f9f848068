// The table-statistics job: when PostgreSQL's autovacuum is off, one process at a time (the named lease
// `table-stats`) analyzes and vacuums the tables that changed enough, as autovacuum would (store/table-stats.ts).
import { config } from "../config";
import { logger } from "../basics/log";
import { startLeasedLoop } from "../runtime";
import { analyzeTable, autovacuumOn, staleTables, tablesToVacuum, vacuumTable } from "../store/table-stats";
import { getRuntime } from "../store/runtime-handle";

const LEASE_MS = 120_000;
/** A run starts no vacuum after this long (well inside the lease); the next run, at once, goes on. */
const VACUUM_BUDGET_MS = 60_000;

export interface RunningTableStats {
  stop(): Promise<void>;
  runOnce(): Promise<void>;
  readonly runs: number;
}

/**
 * Without statistics the planner guesses, and a guess picks the wrong index once a table grows (a
 * look-up of 1,000 subscribers by external id walked all 200,000 of a tenant: 3.4 s instead of 1 ms).
 * With autovacuum on this job only checks the setting at each run and does nothing else.
 */
export function startTableStatsJob(opts: { everyMs?: number; firstRunInMs?: number } = {}): RunningTableStats {
  const log = logger.child({ component: "table-stats" });
  let warned = false;
  const loop = startLeasedLoop(
    getRuntime(),
    { name: "table statistics", lease: "table-stats", everyMs: opts.everyMs ?? config.lifecycle.tableStatsEveryMs, leaseTtlMs: LEASE_MS, firstRunInMs: opts.firstRunInMs ?? 10_000, log },
    async () => {
      if (await autovacuumOn()) return;
      if (!warned) {
        warned = true;
        log.warn("PostgreSQL's autovacuum is off: this service analyzes and vacuums its tables itself (turn autovacuum on in production)");
      }
      const runStarted = performance.now();
      const vacuumed = new Set<string>();
      for (const t of await tablesToVacuum()) {
        if (performance.now() - runStarted > VACUUM_BUDGET_MS) return true;
        const started = performance.now();
        try {
          await vacuumTable(t.table);
          vacuumed.add(t.table);
          log.info({ table: t.table, dead: t.dead, inserted: t.inserted, rows: t.rows, ms: Math.round(performance.now() - started) }, "vacuumed a table autovacuum would have");
        } catch (err) {
          // mostly a lock timeout (another vacuum, an operator, a partition drop holds it); the message says which
          const code = (err as { code?: string }).code;
          const why = code === "55P03" ? "lock timeout" : code === "42P01" ? "table gone" : "error";
          log.warn({ table: t.table, code, err: (err as Error).message }, `vacuum skipped a table (${why}); the next run tries again`);
        }
      }
      for (const t of await staleTables()) {
        if (vacuumed.has(t.table)) continue;
        const started = performance.now();
        await analyzeTable(t.table);
        log.info({ table: t.table, changed: t.changed, rows: t.rows, ms: Math.round(performance.now() - started) }, "analyzed a table autovacuum would have");
      }
    },
  );
  return {
    runOnce: () => loop.runOnce(),
    get runs() {
      return loop.runs;
    },
    stop: () => loop.stop(),
  };
}
