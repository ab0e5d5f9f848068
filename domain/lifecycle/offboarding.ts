// Tenant offboarding (DELETE /api/internal/tenants/:id): removes every record of the tenant in bounded
// batches, table by table, keeping the audit log (SPEC); progress lives in tenant_offboardings, so a
// process killed half-way loses nothing: the retention job resumes a run whose progress stopped moving.
import { config } from "../../config";
import { notFound } from "../../basics/errors";
import { logger } from "../../basics/log";
import { bumpAuthEpoch } from "../../store/api-keys";
import { writeAudit } from "../../store/audit";
import { sql } from "../../store/db";
import {
  deleteTenantBatch,
  deleteTenantRow,
  findOffboarding,
  insertOffboarding,
  markCompleted,
  recordBatch,
  staleOffboardings,
  tenantTables,
  type OffboardingRow,
} from "../../store/offboardings";
import { findTenant } from "../../store/tenants";
import { pauseAfterBatch, type Pause } from "./batch-pause";

const log = logger.child({ component: "offboarding" });

/** Starts (or finds) the tenant's offboarding; `started` is false when it was already under way or done. */
export async function requestOffboarding(tenantId: string): Promise<{ row: OffboardingRow; started: boolean }> {
  const existing = await findOffboarding(tenantId);
  if (existing) return { row: existing, started: false };
  const tenant = await findTenant(tenantId);
  if (!tenant) throw notFound("tenant_not_found", "No tenant with this id");
  const row = await sql.begin(async (tx) => {
    const created = await insertOffboarding(tx, tenantId, tenant.name);
    if (!created) return undefined; // a concurrent DELETE won
    await writeAudit(tx, {
      tenantId, actorType: "system", actorId: null, action: "tenant.offboarding_started", resourceType: "tenant", resourceId: tenantId,
      metadata: { name: tenant.name },
    });
    return created;
  });
  if (!row) return { row: (await findOffboarding(tenantId))!, started: false };
  log.info({ tenant_id: tenantId }, "tenant offboarding started");
  return { row, started: true };
}

export async function getOffboarding(tenantId: string): Promise<OffboardingRow> {
  const row = await findOffboarding(tenantId);
  if (!row) throw notFound("offboarding_not_found", "This tenant has no offboarding");
  return row;
}

export type OffboardingOutcome = "completed" | "busy" | "stopped" | "absent";

/**
 * Runs the offboarding until it completes. Each batch is one transaction that locks the progress row
 * (SKIP LOCKED: a second runner backs off with "busy"), deletes up to RETENTION_BATCH_ROWS rows of the
 * first table not done, and records the progress with them; so a crash repeats at most nothing.
 */
export async function runOffboarding(
  tenantId: string,
  opts: { batch?: number; pause?: Pause; shouldStop?: () => boolean } = {},
): Promise<OffboardingOutcome> {
  const batch = opts.batch ?? config.lifecycle.batchRows;
  const pause = opts.pause ?? ((ms: number) => pauseAfterBatch(ms));
  const tables = await tenantTables();
  let batches = 0;
  for (;;) {
    if (opts.shouldStop?.()) return "stopped";
    const t0 = performance.now();
    const step = await sql.begin(async (tx) => {
      const cur = await findOffboarding(tenantId, tx, true);
      if (!cur) return (await findOffboarding(tenantId)) ? ("busy" as const) : ("absent" as const);
      if (cur.status === "completed") return "completed" as const;
      const table = tables.find((t) => !cur.tables_done.includes(t));
      if (table) {
        const n = await deleteTenantBatch(tx, table, tenantId, batch);
        await recordBatch(tx, tenantId, table, n, n < batch);
        return { table, n, total: cur.rows_deleted + n };
      }
      // every table is empty: stragglers written meanwhile (a late event, an attempt) go with the tenant row
      let late = 0;
      for (const t of tables) late += await deleteTenantBatch(tx, t, tenantId, 1_000_000);
      await deleteTenantRow(tx, tenantId);
      await markCompleted(tx, tenantId, late);
      await writeAudit(tx, {
        tenantId, actorType: "system", actorId: null, action: "tenant.offboarded", resourceType: "tenant", resourceId: tenantId,
        metadata: { rows_deleted: cur.rows_deleted + late },
      });
      return "done" as const;
    });
    if (step === "done") {
      await bumpAuthEpoch();
      log.info({ tenant_id: tenantId }, "tenant offboarding completed");
      return "completed";
    }
    if (typeof step === "string") return step;
    // every process forgets the tenant's cached keys and sessions as soon as their rows are gone
    if (step.n < batch && (step.table === "api_keys" || step.table === "sessions")) await bumpAuthEpoch();
    if (++batches % 100 === 0 || step.n < batch) log.info({ tenant_id: tenantId, table: step.table, rows_deleted: step.total }, "tenant offboarding progress");
    await pause(performance.now() - t0);
  }
}

/** Runs it in the background of this process (the API's DELETE); a crash leaves it to the retention job. */
export function runOffboardingInBackground(tenantId: string): void {
  runOffboarding(tenantId).catch((err) => log.error({ err, tenant_id: tenantId }, "tenant offboarding failed; the retention job resumes it"));
}

/** Resumes offboardings whose progress stopped for OFFBOARDING_STALE_AFTER (their process died). */
export async function resumeStaleOffboardings(opts: { staleMs?: number; shouldStop?: () => boolean } = {}): Promise<number> {
  const ids = await staleOffboardings(new Date(Date.now() - (opts.staleMs ?? config.lifecycle.offboardingStaleMs)));
  let finished = 0;
  for (const id of ids) {
    log.info({ tenant_id: id }, "resuming an offboarding whose process stopped");
    if ((await runOffboarding(id, { shouldStop: opts.shouldStop })) === "completed") finished++;
  }
  return finished;
}
