// The counts billing compares with a plan's limits: production notifications of a period (seeding
// the quota counter, never per request) and the resources a plan limits (webhooks, domains, members, subscribers).
import type { LimitedResource } from "../schemas/billing";
import { sql, type Tx } from "./db";
import { keyDays } from "./history-keys";

/** Production notifications created in [start, end): an index range scan of notifications_list_by_time. */
export async function countProductionNotifications(tenantId: string, start: Date, end: Date, tx: Tx = sql): Promise<number> {
  const [r] = await tx<{ n: string }[]>`
    select count(*) as n from notifications
    where tenant_id = ${tenantId} and environment = 'production' and created_at >= ${start} and created_at < ${end}`;
  return Number(r!.n);
}

/** Which of these notification ids exist (a reservation whose row exists was committed). */
export async function existingNotifications(tenantId: string, ids: string[], tx: Tx = sql): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await tx<{ id: string }[]>`select id from notifications where tenant_id = ${tenantId} and id = any(${ids}::uuid[]) ${keyDays("id", ids)}`;
  return new Set(rows.map((r) => r.id));
}

/** The tenant's production resources of one kind (team members: all of them; erased subscribers do not count). */
export async function countResource(tx: Tx, tenantId: string, resource: LimitedResource): Promise<number> {
  let rows: { n: string }[];
  switch (resource) {
    case "webhooks":
      rows = await tx`select count(*) as n from webhooks where tenant_id = ${tenantId} and environment = 'production'`;
      break;
    case "domains":
      rows = await tx`select count(*) as n from sending_domains where tenant_id = ${tenantId} and environment = 'production'`;
      break;
    case "team_members":
      rows = await tx`select count(*) as n from users where tenant_id = ${tenantId}`;
      break;
    case "subscribers":
      rows = await tx`select count(*) as n from subscribers where tenant_id = ${tenantId} and environment = 'production' and deleted_at is null`;
      break;
  }
  return Number(rows[0]!.n);
}

/**
 * Locks the tenant row: resource creations of one tenant then check their limit one after another.
 * FOR NO KEY UPDATE, not FOR UPDATE: the resource rows inserted before it hold FOR KEY SHARE on the
 * tenant (their foreign key), which FOR UPDATE would wait for in a circle (a deadlock).
 */
export async function lockTenant(tx: Tx, tenantId: string): Promise<void> {
  await tx`select id from tenants where id = ${tenantId} for no key update`;
}
