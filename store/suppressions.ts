// The suppression list of a tenant's environment: addresses that hard-bounced, complained or are no
// longer registered (push), with the notification that put them there. Read by the sender's check.
import { sql, type Scope, type Tx } from "./db";
import { newId } from "./ids";
import { iso } from "./time";

export type SuppressionListReason = "bounced" | "complained" | "unregistered";

export interface SuppressionRow {
  id: string;
  tenant_id: string;
  environment: string;
  address: string;
  channel: string;
  reason: SuppressionListReason;
  notification_id: string | null;
  created_at: Date;
}

/** Adds an address (already normalised); an address already listed keeps its first reason. Returns true when added. */
export async function addSuppression(
  tx: Tx,
  s: Scope & { address: string; channel: string; reason: SuppressionListReason; notificationId: string | null },
): Promise<boolean> {
  const rows = await tx`
    insert into suppressions (id, tenant_id, environment, address, channel, reason, notification_id)
    values (${newId()}, ${s.tenantId}, ${s.environment}, ${s.address}, ${s.channel}, ${s.reason}, ${s.notificationId})
    on conflict (tenant_id, environment, address) do nothing
    returning id`;
  return rows.length > 0;
}

/** Newest first (id desc, UUID v7); `limit + 1` rows for pageOf. */
export async function listSuppressions(
  scope: Scope,
  q: { limit: number; afterId: string | null; address?: string; reason?: string; channel?: string },
): Promise<SuppressionRow[]> {
  return await sql<SuppressionRow[]>`
    select * from suppressions
    where tenant_id = ${scope.tenantId} and environment = ${scope.environment}
      ${q.address !== undefined ? sql`and address = ${q.address}` : sql``}
      ${q.reason ? sql`and reason = ${q.reason}` : sql``}
      ${q.channel ? sql`and channel = ${q.channel}` : sql``}
      ${q.afterId ? sql`and id < ${q.afterId}::uuid` : sql``}
    order by id desc
    limit ${q.limit + 1}`;
}

/** Lifts one address; returns the row it removed, or null when it was not listed. */
export async function deleteSuppression(tx: Tx, scope: Scope, address: string): Promise<SuppressionRow | null> {
  const rows = await tx<SuppressionRow[]>`
    delete from suppressions where tenant_id = ${scope.tenantId} and environment = ${scope.environment} and address = ${address}
    returning *`;
  return rows[0] ?? null;
}

/** Erasure: the rows of these addresses and those the given notifications created. */
export async function deleteSuppressionsFor(tx: Tx, scope: Scope, q: { addresses: string[]; notificationIds: string[] }): Promise<number> {
  if (q.addresses.length === 0 && q.notificationIds.length === 0) return 0;
  const rows = await tx`
    delete from suppressions where tenant_id = ${scope.tenantId} and environment = ${scope.environment}
      and (address = any(${q.addresses}::text[]) or notification_id = any(${q.notificationIds}::uuid[]))
    returning 1`;
  return rows.length;
}

