// Workflow versions repository: insert a lineage's first version, the next version (deactivating
// the previous one), soft delete, look-ups by id, the paged list. Scoped reads; the trigger's look-up
// of the active version by slug is store/workflow-runs.ts triggerLookup.
import { sql, type Scope, type Tx } from "./db";
import { newId } from "./ids";
import { iso } from "./time";

export interface WorkflowStepDef {
  type: "send" | "delay" | "fallback" | "digest" | "throttle";
  channel?: string;
  template?: string;
  duration?: string;
  channels?: string[];
  condition?: string;
  /** delay: the next local time "HH:MM" to wait for (instead of duration) */
  until?: string;
  /** digest and throttle: the window, a duration */
  window?: string;
  /** digest and throttle: a Liquid expression over the trigger data splitting digests/throttles */
  key?: string;
  /** digest: closes the digest early at this many events */
  max_events?: number;
  /** throttle: runs passing per window */
  limit?: number;
  /** any step: a JSON Logic rule; false skips the step */
  if?: Record<string, unknown>;
  /** send and fallback: the preference category of its notifications (issue 28) */
  category?: string;
  /** send and fallback: the notifications' sender lane (absent: normal) */
  priority?: "high" | "normal" | "low";
  /** send and fallback: its notifications ignore quiet hours and frequency caps (docs/delivery-policy.md) */
  critical?: boolean;
}

export interface WorkflowRow {
  id: string;
  tenant_id: string;
  environment: string;
  lineage_id: string;
  slug: string;
  name: string;
  steps: WorkflowStepDef[];
  version: number;
  active: boolean;
  inserted_at: Date;
  updated_at: Date;
}

export interface WorkflowFields {
  slug: string;
  name: string;
  steps: WorkflowStepDef[];
}

/** Raised when another active workflow of the scope has the slug (the partial unique index). */
export class WorkflowSlugTakenError extends Error {
  constructor(readonly slug: string) {
    super(`slug '${slug}' is already taken`);
  }
}

function isSlugViolation(err: unknown): boolean {
  const e = err as { code?: string; constraint_name?: string; constraint?: string };
  return e?.code === "23505" && (e.constraint_name ?? e.constraint) === "workflows_active_slug";
}

async function insertVersion(tx: Tx, scope: Scope, f: WorkflowFields, lineage: { id: string; version: number } | null): Promise<WorkflowRow> {
  const id = newId();
  try {
    const [row] = await tx<WorkflowRow[]>`
      insert into workflows (id, tenant_id, environment, lineage_id, slug, name, steps, version, active)
      values (${id}, ${scope.tenantId}, ${scope.environment}, ${lineage?.id ?? id}, ${f.slug}, ${f.name},
              ${JSON.stringify(f.steps)}::text::jsonb, ${lineage ? lineage.version + 1 : 1}, true)
      returning *`;
    return row!;
  } catch (err) {
    if (isSlugViolation(err)) throw new WorkflowSlugTakenError(f.slug);
    throw err;
  }
}

/** Version 1 of a new workflow. */
export async function insertWorkflow(scope: Scope, f: WorkflowFields): Promise<WorkflowRow> {
  return await insertVersion(sql, scope, f, null);
}

export type VersionOutcome = { ok: true; row: WorkflowRow } | { ok: false; reason: "not_found" | "not_active" };

/**
 * The next version of the workflow whose active version is `id`: the previous row is deactivated
 * and the new one inserted in one transaction (a concurrent PUT of the same version finds it
 * inactive). Without a slug the previous version's is kept. `f === null` only deactivates (soft delete).
 */
export async function replaceActiveVersion(
  scope: Scope,
  id: string,
  f: (Omit<WorkflowFields, "slug"> & { slug?: string }) | null,
): Promise<VersionOutcome> {
  return await sql.begin(async (tx) => {
    const [prev] = await tx<WorkflowRow[]>`
      update workflows set active = false, updated_at = now()
      where id = ${id} and tenant_id = ${scope.tenantId} and environment = ${scope.environment} and active
      returning *`;
    if (!prev) {
      const [exists] = await tx`select 1 from workflows where id = ${id} and tenant_id = ${scope.tenantId} and environment = ${scope.environment}`;
      return { ok: false as const, reason: exists ? ("not_active" as const) : ("not_found" as const) };
    }
    if (!f) return { ok: true as const, row: prev };
    // versions count per lineage: the latest one, not necessarily this row (always this row today)
    const [latest] = await tx<{ version: number }[]>`select max(version)::int as version from workflows where lineage_id = ${prev.lineage_id}`;
    const row = await insertVersion(tx, scope, { ...f, slug: f.slug ?? prev.slug }, { id: prev.lineage_id, version: latest!.version });
    return { ok: true as const, row };
  });
}

export async function findWorkflow(scope: Scope, id: string): Promise<WorkflowRow | null> {
  const [row] = await sql<WorkflowRow[]>`select * from workflows
    where id = ${id} and tenant_id = ${scope.tenantId} and environment = ${scope.environment}`;
  return row ?? null;
}

/** The steps of a version, by id alone (a run's engine; versions never change). */
export async function stepsOfVersion(id: string): Promise<WorkflowStepDef[] | null> {
  const [row] = await sql<{ steps: WorkflowStepDef[] }[]>`select steps from workflows where id = ${id}`;
  return row?.steps ?? null;
}

/** A version's steps and its lineage (the first version's id), for the engine. */
export async function versionForRun(id: string): Promise<{ steps: WorkflowStepDef[]; lineage_id: string } | null> {
  const [row] = await sql<{ steps: WorkflowStepDef[]; lineage_id: string }[]>`select steps, lineage_id from workflows where id = ${id}`;
  return row ?? null;
}

/** Newest first (ids are UUID v7); `limit + 1` rows for the page meta. */
export async function listWorkflows(
  scope: Scope,
  q: { limit: number; afterId: string | null; slug?: string; includeInactive: boolean },
): Promise<WorkflowRow[]> {
  return await sql<WorkflowRow[]>`
    select * from workflows
    where tenant_id = ${scope.tenantId} and environment = ${scope.environment}
      ${q.includeInactive ? sql`` : sql`and active`}
      ${q.slug !== undefined ? sql`and slug = ${q.slug}` : sql``}
      ${q.afterId ? sql`and id < ${q.afterId}::uuid` : sql``}
    order by id desc
    limit ${q.limit + 1}`;
}

