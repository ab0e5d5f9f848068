// Audience SQL (issue 22): the bulk trigger's lookups (the active workflow and many recipients'
// subscribers in two queries).
import { sql, type Scope, type Tx } from "./db";
import { isUuid } from "./ids";

export async function activeWorkflow(scope: Scope, slug: string, tx: Tx = sql): Promise<{ id: string; version: number; slug: string } | null> {
  const [row] = await tx<{ id: string; version: number; slug: string }[]>`
    select id, version, slug from workflows
    where tenant_id = ${scope.tenantId} and environment = ${scope.environment} and slug = ${slug} and active`;
  return row ?? null;
}

/**
 * The subscriber each recipient names, like a single trigger's lookup (store/workflow-runs.ts
 * triggerLookup): a live one by id or external_id (an id match first), else an erased one by the
 * hash of its former id or external_id; absent from the map for a literal address.
 */
export async function subscribersOfRecipients(scope: Scope, recipients: { value: string; hash: string }[]): Promise<Map<string, string>> {
  const values = [...new Set(recipients.map((r) => r.value))];
  const uuids = values.filter(isUuid);
  // two index lookups (an OR of them can be planned as a walk over the tenant's subscribers)
  const live = await sql<{ id: string; external_id: string }[]>`
    select id, external_id from subscribers
    where tenant_id = ${scope.tenantId} and environment = ${scope.environment} and deleted_at is null and external_id = any(${values}::text[])
    ${
      uuids.length
        ? sql`union select id, external_id from subscribers
            where id = any(${uuids}::uuid[]) and tenant_id = ${scope.tenantId} and environment = ${scope.environment} and deleted_at is null`
        : sql``
    }
    order by id`;
  const byId = new Set(live.map((r) => r.id));
  const byExternal = new Map<string, string>();
  for (const r of live) if (!byExternal.has(r.external_id)) byExternal.set(r.external_id, r.id);
  const out = new Map<string, string>();
  const missing: { value: string; hash: string }[] = [];
  for (const r of recipients) {
    const id = byId.has(r.value) ? r.value : byExternal.get(r.value);
    if (id) out.set(r.value, id);
    else missing.push(r);
  }
  if (missing.length) {
    const erased = await sql<{ identifier_hash: string; subscriber_id: string }[]>`
      select identifier_hash, subscriber_id from subscriber_erasures
      where tenant_id = ${scope.tenantId} and environment = ${scope.environment} and kind in ('id', 'external_id')
        and identifier_hash = any(${missing.map((m) => m.hash)}::text[])`;
    const byHash = new Map(erased.map((e) => [e.identifier_hash, e.subscriber_id]));
    for (const m of missing) {
      const id = byHash.get(m.hash);
      if (id) out.set(m.value, id);
    }
  }
  return out;
}
