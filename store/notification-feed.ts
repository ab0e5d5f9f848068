// The activity feed's reads: notifications of a scope filtered by recipient, subscriber, template,
// workflow, status, channel and time, newest first, each filter served by its index (migration 0770);
// and the current status of a set of notifications (a workflow run's steps show them).
import { reader, sql, type Scope } from "./db";
import type { NotificationRow } from "./notifications";

export interface FeedFilter {
  /** an address exactly as stored (emails lower-case, phones E.164) */
  recipient?: string;
  subscriberId?: string;
  template?: string;
  workflow?: string;
  status?: string;
  channel?: string;
  createdAfter?: Date;
  createdBefore?: Date;
}

export type FeedRow = Pick<
  NotificationRow,
  "id" | "channel" | "recipient" | "status" | "template_slug" | "subscriber_id" | "idempotency_key" | "created_at" | "scheduled_for" | "attempt_count"
>;

const UNHAPPY = new Set(["failed", "bounced", "suppressed"]);

export interface FeedPage {
  limit: number;
  cursor: { t: string; id: string } | null;
}

/** `limit + 1` rows after the cursor (pass them to store/cursor.ts pageOf). */
export async function listNotificationFeed(scope: Scope, f: FeedFilter, page: FeedPage): Promise<FeedRow[]> {
  return reader()<FeedRow[]>`${feedQuery(scope, f, page)}`;
}

/**
 * PostgreSQL's plan of that read: EXPLAIN as JSON, or EXPLAIN ANALYZE as text lines with `analyze`
 * (docs/notifications.md shows them; a test pins the indexes).
 */
export async function explainNotificationFeed(scope: Scope, f: FeedFilter, page: FeedPage, opts: { analyze?: boolean } = {}): Promise<unknown> {
  if (opts.analyze) {
    const rows = await sql<{ "QUERY PLAN": string }[]>`explain (analyze, buffers off, costs off) ${feedQuery(scope, f, page)}`;
    return rows.map((r) => r["QUERY PLAN"]);
  }
  const [row] = await sql<{ "QUERY PLAN": unknown }[]>`explain (format json) ${feedQuery(scope, f, page)}`;
  return row!["QUERY PLAN"];
}

function feedQuery(scope: Scope, f: FeedFilter, page: FeedPage) {
  const { tenantId, environment } = scope;
  return sql`
    select id, channel, recipient, status, template_slug, subscriber_id, idempotency_key, created_at, scheduled_for, attempt_count from notifications
    where tenant_id = ${tenantId} and environment = ${environment}
      ${f.recipient !== undefined ? sql`and md5(recipient) = md5(${f.recipient}) and recipient = ${f.recipient}` : sql``}
      ${f.subscriberId !== undefined ? sql`and subscriber_id = ${f.subscriberId}::uuid` : sql``}
      ${f.template !== undefined ? sql`and template_slug = ${f.template}` : sql``}
      ${
        f.workflow !== undefined
          ? sql`and idempotency_key like 'wfrun:%' and split_part(idempotency_key, ':', 2) in (
                select r.id::text from workflow_runs r
                where r.tenant_id = ${tenantId} and r.environment = ${environment}
                  and r.workflow_id in (select w.id from workflows w where w.tenant_id = ${tenantId} and w.environment = ${environment} and w.slug = ${f.workflow}))`
          : sql``
      }
      ${
        f.status !== undefined
          ? // the literal list repeats the partial index's predicate so the planner may use it
            UNHAPPY.has(f.status)
            ? sql`and status in ('failed', 'bounced', 'suppressed') and status = ${f.status}`
            : f.status === "scheduled"
              ? // held by quiet hours (http/responses/notifications.ts heldByQuietHours): stored pending
                sql`and status = 'pending' and scheduled_for is not null and attempt_count = 0`
              : f.status === "pending"
                ? sql`and status = 'pending' and not (scheduled_for is not null and attempt_count = 0)`
                : sql`and status = ${f.status}`
          : sql``
      }
      ${f.channel !== undefined ? sql`and channel = ${f.channel}` : sql``}
      ${f.createdAfter ? sql`and created_at >= ${f.createdAfter}` : sql``}
      ${f.createdBefore ? sql`and created_at < ${f.createdBefore}` : sql``}
      ${page.cursor ? sql`and (created_at, id) < (${page.cursor.t}::timestamptz, ${page.cursor.id}::uuid)` : sql``}
    order by created_at desc, id desc
    limit ${page.limit + 1}`;
}

/** id -> current status of those notifications that exist in the scope. */
export async function notificationStatuses(scope: Scope, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await sql<{ id: string; status: string }[]>`
    select id, status from notifications
    where id = any(${[...ids]}::uuid[]) and tenant_id = ${scope.tenantId} and environment = ${scope.environment}`;
  return new Map(rows.map((r) => [r.id, r.status]));
}

/** The run and step a workflow step's notification belongs to, read from its key wfrun:<run>:step:<i>[:ch:<channel>]. */
export function workflowStepOf(idempotencyKey: string | null): { run_id: string; step: number } | null {
  const m = idempotencyKey ? /^wfrun:([0-9a-f-]{36}):step:(\d+)(?::ch:[a-z_]+)?$/.exec(idempotencyKey) : null;
  return m ? { run_id: m[1]!, step: Number(m[2]) } : null;
}
