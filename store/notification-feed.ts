// The activity feed's reads: notifications of a scope filtered by recipient, subscriber, template,
// workflow, status, channel and time, newest first, each filter served by its index (migration 0770);
// and the current status of a set of notifications (a workflow run's steps show them).
import { explainGenericPlan, genericPlanReader, sql, type Scope } from "./db";
import { DAY_MS, dayStart, ID_TIME_SKEW_MS, keyDays, keyHorizon, keyRange, newestFirstWindows, type KeyWindow } from "./history-keys";
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

export { ID_TIME_SKEW_MS };

/** Partition-key bounds of one feed read: [lo, hi) as midnight-aligned moments, null = unbounded. */
export type FeedWindow = KeyWindow;

/**
 * The windows a feed page reads, newest first; the last one holds every row the filters allow.
 * notifications is partitioned by day on id (UUID v7), and a statement without an id bound plans
 * every partition (23-42 ms at 72 partitions on a loaded machine). Ids carry their creation time
 * within ID_TIME_SKEW_MS of created_at, so:
 * - a row after the cursor (created_at < cursor time) or before created_before has an id below the
 *   day after that moment (plus the margin): the upper bound. Without either, ids are never from
 *   the future: tomorrow's partition is the last read.
 * - created_after gives an exact lower bound; otherwise the page first reads the newest 2 days
 *   (and tomorrow's, on a first page), then 8, and stops as soon as it is full with rows created after its lower bound plus the margin
 *   (every row left out is older than those, so sorts after them); the last window has no lower
 *   bound, so a row older than every window is still reached by paging.
 */
export function feedWindows(f: FeedFilter, page: FeedPage, now = Date.now()): FeedWindow[] {
  const before = Math.min(page.cursor ? Date.parse(page.cursor.t) : Infinity, f.createdBefore ? f.createdBefore.getTime() : Infinity);
  // the newest day a row of the page can sit in
  const newest = dayStart((Number.isFinite(before) ? before : now) + ID_TIME_SKEW_MS);
  const hi = Number.isFinite(before) ? newest + DAY_MS : keyHorizon(now);
  const floor = f.createdAfter ? dayStart(f.createdAfter.getTime() - ID_TIME_SKEW_MS) : null;
  return newestFirstWindows(newest, hi, floor);
}

/** `limit + 1` rows after the cursor (pass them to store/cursor.ts pageOf); the first `limit` are exact. */
export async function listNotificationFeed(scope: Scope, f: FeedFilter, page: FeedPage): Promise<FeedRow[]> {
  const windows = feedWindows(f, page);
  for (let i = 0; ; i++) {
    const w = windows[i]!;
    // on a generic plan, planned once per connection (store/db.ts genericPlans): the bounds are literals, the rest parameters
    const rows = await genericPlanReader()<FeedRow[]>`${feedQuery(scope, f, page, w)}`;
    if (i === windows.length - 1) return rows;
    // full, and its last row created after every row the window left out: rows beyond are ordered after it
    // (the (limit + 1)th row only says there are more, and there are)
    if (rows.length > page.limit && rows[page.limit - 1]!.created_at.getTime() >= w.lo! + ID_TIME_SKEW_MS) return rows;
  }
}

/**
 * PostgreSQL's plan of that read (its first window, the one a busy tenant's page stops at; `window`
 * to choose): EXPLAIN as JSON, or EXPLAIN ANALYZE as text lines with `analyze` (docs/notifications.md
 * shows them; a test pins the indexes). Both plan with the parameters' values; `generic` gives the plan
 * the feed runs, made without them (JSON).
 */
export async function explainNotificationFeed(
  scope: Scope,
  f: FeedFilter,
  page: FeedPage,
  opts: { analyze?: boolean; window?: FeedWindow; generic?: boolean } = {},
): Promise<unknown> {
  const w = opts.window ?? feedWindows(f, page)[0]!;
  // the plan the feed runs (listNotificationFeed reads on genericPlans): planned without the values
  if (opts.generic) return await explainGenericPlan(feedQuery(scope, f, page, w));
  if (opts.analyze) {
    const rows = await sql<{ "QUERY PLAN": string }[]>`explain (analyze, buffers off, costs off) ${feedQuery(scope, f, page, w)}`;
    return rows.map((r) => r["QUERY PLAN"]);
  }
  const [row] = await sql<{ "QUERY PLAN": unknown }[]>`explain (format json) ${feedQuery(scope, f, page, w)}`;
  return row!["QUERY PLAN"];
}

/** The statement of one window of a feed page (exported for scripts/explain-history-reads.ts). */
export function feedQuery(scope: Scope, f: FeedFilter, page: FeedPage, w: FeedWindow) {
  const { tenantId, environment } = scope;
  return sql`
    select id, channel, recipient, status, template_slug, subscriber_id, idempotency_key, created_at, scheduled_for, attempt_count from notifications
    where tenant_id = ${tenantId} and environment = ${environment} ${keyRange("id", w.lo, w.hi)}
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
    where id = any(${[...ids]}::uuid[]) ${keyDays("id", ids)} and tenant_id = ${scope.tenantId} and environment = ${scope.environment}`;
  return new Map(rows.map((r) => [r.id, r.status]));
}

/** The run and step a workflow step's notification belongs to, read from its key wfrun:<run>:step:<i>[:ch:<channel>]. */
export function workflowStepOf(idempotencyKey: string | null): { run_id: string; step: number } | null {
  const m = idempotencyKey ? /^wfrun:([0-9a-f-]{36}):step:(\d+)(?::ch:[a-z_]+)?$/.exec(idempotencyKey) : null;
  return m ? { run_id: m[1]!, step: Number(m[2]) } : null;
}
