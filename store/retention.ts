// Retention repository: a tenant's windows (table retention_settings, no row = defaults) and the
// bounded DELETEs the retention sweep runs (domain/lifecycle/retention.ts), one batch per statement.
import { sql, type Tx } from "./db";
import { keyDays } from "./history-keys";

export interface RetentionDays {
  notifications_days: number;
  inbox_days: number;
  webhook_deliveries_days: number;
}

export const RETENTION_DEFAULTS: RetentionDays = { notifications_days: 30, inbox_days: 365, webhook_deliveries_days: 30 };

export interface RetentionSettingsRow extends RetentionDays {
  /** null while the tenant never changed them (the defaults apply). */
  updated_at: Date | null;
}

export async function findRetentionSettings(tenantId: string, tx: Tx = sql): Promise<RetentionSettingsRow> {
  const rows = await tx<RetentionSettingsRow[]>`
    select notifications_days, inbox_days, webhook_deliveries_days, updated_at from retention_settings where tenant_id = ${tenantId}`;
  return rows[0] ?? { ...RETENTION_DEFAULTS, updated_at: null };
}

export async function upsertRetentionSettings(tx: Tx, tenantId: string, d: RetentionDays): Promise<RetentionSettingsRow> {
  const rows = await tx<RetentionSettingsRow[]>`
    insert into retention_settings (tenant_id, notifications_days, inbox_days, webhook_deliveries_days)
    values (${tenantId}, ${d.notifications_days}, ${d.inbox_days}, ${d.webhook_deliveries_days})
    on conflict (tenant_id) do update set notifications_days = excluded.notifications_days, inbox_days = excluded.inbox_days,
      webhook_deliveries_days = excluded.webhook_deliveries_days, updated_at = now()
    returning notifications_days, inbox_days, webhook_deliveries_days, updated_at`;
  return rows[0]!;
}

/** Every tenant with its stored windows (defaults filled in), a page at a time by id (from `fromId`, itself included or not). */
export async function tenantsForRetention(fromId: string | null, inclusive: boolean, limit: number): Promise<(RetentionDays & { tenant_id: string })[]> {
  return sql<(RetentionDays & { tenant_id: string })[]>`
    select t.id as tenant_id,
           coalesce(r.notifications_days, ${RETENTION_DEFAULTS.notifications_days})::int as notifications_days,
           coalesce(r.inbox_days, ${RETENTION_DEFAULTS.inbox_days})::int as inbox_days,
           coalesce(r.webhook_deliveries_days, ${RETENTION_DEFAULTS.webhook_deliveries_days})::int as webhook_deliveries_days
    from tenants t left join retention_settings r on r.tenant_id = t.id
    where ${fromId === null ? sql`true` : inclusive ? sql`t.id >= ${fromId}` : sql`t.id > ${fromId}`}
    order by t.id limit ${limit}`;
}

/**
 * One batch of a tenant's expired notifications, oldest first, with their attempts, engagement
 * records and idempotency keys (deleted here: the partitioned tables have no foreign keys between
 * them, migration 0860). Kept: pending notifications (still to be sent) and those of a workflow run
 * that is still running (the run may wait on their outcome). Whole days every tenant's window has
 * passed leave earlier as partitions (domain/lifecycle/partitions.ts); this is for shorter windows.
 * Two statements: the batch's ids are chosen first (that read plans every partition once), then the
 * DELETEs carry the days of those ids as literal bounds of each table's partition key
 * (store/history-keys.ts), so they plan and visit only those days' partitions: a DELETE with an IN
 * list alone joined the list against every partition (measured ~4 ms per row at 72 partitions).
 * The DELETE repeats the conditions, so a row that changed in between stays (the batch then counts
 * short and the sweep stops there; the next sweep goes on).
 */
export async function deleteExpiredNotifications(tenantId: string, environment: string, before: Date, limit: number): Promise<number> {
  const batch = (
    await sql<{ id: string }[]>`
      select n.id from notifications n
      where n.tenant_id = ${tenantId} and n.environment = ${environment} and n.created_at < ${before} and n.status <> 'pending'
        and (n.workflow_run_id is null
             or not exists (select 1 from workflow_runs r where r.id = n.workflow_run_id and r.status = 'running'))
      order by n.created_at limit ${limit}`
  ).map((r) => r.id);
  if (batch.length === 0) return 0;
  const rows = await sql`
    with del as (
      delete from notifications n where n.id = any(${batch}::uuid[]) ${keyDays("id", batch)}
        and n.tenant_id = ${tenantId} and n.environment = ${environment} and n.created_at < ${before} and n.status <> 'pending'
        and (n.workflow_run_id is null
             or not exists (select 1 from workflow_runs r where r.id = n.workflow_run_id and r.status = 'running'))
      returning id
    ), attempts as (
      delete from notification_attempts where notification_id in (select id from del) ${keyDays("notification_id", batch)}
    ), engagements as (
      delete from notification_engagements where notification_id in (select id from del) ${keyDays("notification_id", batch)}
    ), keys as (
      delete from notification_idempotency_keys where notification_id in (select id from del)
    )
    select 1 from del`;
  return rows.length;
}

/** One batch of a tenant's events (notification.*, workflow.*, inbox.*) older than `before`; chosen, then deleted in their days (above). */
export async function deleteExpiredEvents(tenantId: string, environment: string, before: Date, limit: number): Promise<number> {
  const batch = (
    await sql<{ id: string }[]>`
      select id from events where tenant_id = ${tenantId} and environment = ${environment} and created_at < ${before}
      order by created_at limit ${limit}`
  ).map((r) => r.id);
  if (batch.length === 0) return 0;
  const rows = await sql`
    delete from events where id = any(${batch}::uuid[]) ${keyDays("id", batch)}
      and tenant_id = ${tenantId} and environment = ${environment} and created_at < ${before}
    returning 1`;
  return rows.length;
}

/** One batch of a tenant's finished workflow runs completed before `before`; a running run is never touched. */
export async function deleteExpiredRuns(tenantId: string, before: Date, limit: number): Promise<number> {
  // the closed digests these runs led go with them (their members' rows cascade): migration 0700
  const rows = await sql`
    with del as (
      delete from workflow_runs where id in (
        select id from workflow_runs where tenant_id = ${tenantId} and status <> 'running' and completed_at < ${before}
        order by completed_at limit ${limit})
        and status <> 'running'
      returning id
    ), digests as (
      delete from workflow_digests where leader_run_id in (select id from del) and status = 'closed'
    )
    select 1 from del`;
  return rows.length;
}

export async function deleteExpiredInboxItems(tenantId: string, before: Date, limit: number): Promise<number> {
  const rows = await sql`
    delete from inbox_items where id in (
      select id from inbox_items where tenant_id = ${tenantId} and created_at < ${before} order by created_at limit ${limit})
    returning 1`;
  return rows.length;
}

/** One batch of delivery attempts to a tenant's webhooks; a pending one (a retry still due) stays. Chosen, then deleted in their events' days (above). */
export async function deleteExpiredWebhookDeliveries(tenantId: string, before: Date, limit: number): Promise<number> {
  const batch = await sql<{ id: string; event_id: string }[]>`
    select id, event_id from webhook_deliveries where tenant_id = ${tenantId} and created_at < ${before} and status <> 'pending'
    order by created_at limit ${limit}`;
  if (batch.length === 0) return 0;
  const rows = await sql`
    delete from webhook_deliveries where id = any(${batch.map((r) => r.id)}::uuid[]) ${keyDays("event_id", batch.map((r) => r.event_id))}
      and tenant_id = ${tenantId} and created_at < ${before} and status <> 'pending'
    returning 1`;
  return rows.length;
}
