// Seeds a tenant's history directly in SQL at chosen ages (notifications with attempts, events and
// engagement records; inbox items; webhook deliveries; workflow runs), for retention and offboarding tests.
import { sql } from "../../store/db";
import { newId } from "../../store/ids";

const DAY = 86_400_000;
export const daysAgo = (d: number) => new Date(Date.now() - d * DAY);

export async function seedNotification(
  tenantId: string,
  ageDays: number,
  opts: { status?: string; environment?: string; workflowRunId?: string | null } = {},
): Promise<string> {
  const id = newId();
  const at = daysAgo(ageDays);
  const env = opts.environment ?? "production";
  await sql.begin(async (tx) => {
    await tx`insert into notifications (id, tenant_id, environment, channel, recipient, status, workflow_run_id, created_at, updated_at)
             values (${id}, ${tenantId}, ${env}, 'email', 'a@example.com', ${opts.status ?? "delivered"}, ${opts.workflowRunId ?? null}, ${at}, ${at})`;
    await tx`insert into notification_attempts (id, notification_id, tenant_id, attempt_number, status, created_at)
             values (${newId()}, ${id}, ${tenantId}, 1, 'success', ${at})`;
    await tx`insert into notification_engagements (id, tenant_id, environment, notification_id, kind, source, created_at)
             values (${newId()}, ${tenantId}, ${env}, ${id}, 'open', 'pixel', ${at})`;
    await tx`insert into events (id, tenant_id, environment, type, data, created_at)
             values (${newId()}, ${tenantId}, ${env}, 'notification.delivered', ${tx.json({ notification: { id } })}, ${at})`;
  });
  return id;
}

/** Many notifications with one attempt each, in one statement (offboarding volume); UUID v7 ids of their
 *  moment, so they land in that day's partition when it exists, as real rows would. */
export async function seedManyNotifications(tenantId: string, n: number, ageDays = 1): Promise<void> {
  const at = daysAgo(ageDays);
  await sql`
    with ins as (
      insert into notifications (id, tenant_id, environment, channel, recipient, status, created_at, updated_at)
      select nms_uuid_v7_at(${at}), ${tenantId}, 'production', 'email', 'x' || g || '@example.com', 'delivered', ${at}, ${at}
      from generate_series(1, ${n}) g
      returning id)
    insert into notification_attempts (id, notification_id, tenant_id, attempt_number, status, created_at)
    select nms_uuid_v7_at(${at}), id, ${tenantId}, 1, 'success', ${at} from ins`;
  await sql`insert into events (id, tenant_id, environment, type, data, created_at)
            select nms_uuid_v7_at(${at}), ${tenantId}, 'production', 'notification.delivered', '{}'::jsonb, ${at} from generate_series(1, ${n})`;
}

export async function seedSubscriber(tenantId: string): Promise<string> {
  const id = newId();
  await sql`insert into subscribers (id, tenant_id, environment, external_id, email) values (${id}, ${tenantId}, 'production', ${`u-${id}`}, ${`${id}@example.com`})`;
  return id;
}

export async function seedInboxItem(tenantId: string, subscriberId: string, ageDays: number): Promise<string> {
  const id = newId();
  await sql`insert into inbox_items (id, tenant_id, environment, subscriber_id, title, created_at)
            values (${id}, ${tenantId}, 'production', ${subscriberId}, 'hello', ${daysAgo(ageDays)})`;
  return id;
}

export async function seedWebhookDelivery(tenantId: string, ageDays: number, status = "success"): Promise<string> {
  const id = newId();
  await sql`insert into webhook_deliveries (id, webhook_id, tenant_id, event_id, event_type, attempt, status, created_at)
            values (${id}, ${newId()}, ${tenantId}, ${newId()}, 'notification.delivered', 1, ${status}, ${daysAgo(ageDays)})`;
  return id;
}

export async function seedWorkflowRun(tenantId: string, ageDays: number, status: "running" | "completed"): Promise<string> {
  const wf = newId();
  await sql`insert into workflows (id, tenant_id, environment, lineage_id, slug, name, steps, version)
            values (${wf}, ${tenantId}, 'production', ${wf}, ${`wf-${wf}`}, 'wf', '[]'::jsonb, 1)`;
  const id = newId();
  const at = daysAgo(ageDays);
  await sql`insert into workflow_runs (id, tenant_id, environment, workflow_id, workflow_version, workflow_slug, recipient, status, started_at, updated_at, completed_at)
            values (${id}, ${tenantId}, 'production', ${wf}, 1, ${`wf-${wf}`}, 'a@example.com', ${status}, ${at}, ${at}, ${status === "running" ? null : at})`;
  return id;
}

/** The analytics rollups of one old hour (hourly and daily), as accept and delivery would have left them. */
export async function seedRollup(tenantId: string, ageDays: number, total: number): Promise<void> {
  const at = daysAgo(ageDays);
  await sql`insert into notification_stats_hourly (tenant_id, environment, hour, channel, template, shard, total, sent, delivered)
            values (${tenantId}, 'production', date_trunc('hour', ${at}::timestamptz), 'email', '', 0, ${total}, ${total}, ${total})`;
  await sql`insert into notification_stats_daily (tenant_id, environment, day, channel, template, shard, total, sent, delivered)
            values (${tenantId}, 'production', date_trunc('day', ${at}::timestamptz at time zone 'UTC') at time zone 'UTC', 'email', '', 0, ${total}, ${total}, ${total})`;
}
