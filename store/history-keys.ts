// Partition-key bounds of reads on the day-partitioned history tables (docs/operations.md#partitioning):
// UUID v7 day floors written as SQL literals, so the planner prunes day partitions while it plans.
import { sql } from "./db";

export const DAY_MS = 86_400_000;

/**
 * How far a notification's created_at may lie from the moment in its id (UUID v7). The accept path
 * makes both together (domain/notifications/accept.ts: newId() then new Date()), so they differ by
 * microseconds; bounds derived from created_at (the feed's windows, the last hour's series) rely on
 * this margin.
 */
export const ID_TIME_SKEW_MS = 10 * 60_000;
/** The largest moment a UUID v7 can carry (48 bits of milliseconds). */
const MAX_V7_MS = 2 ** 48 - 1;

/** Midnight UTC at or before `ms`. */
export function dayStart(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

/** The smallest UUID v7 of a moment (SQL nms_uuid_v7_floor): a day partition's bounds are these. */
export function v7Floor(ms: number): string {
  const h = Math.max(0, Math.min(MAX_V7_MS, Math.floor(ms))).toString(16).padStart(12, "0");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-0000-0000-000000000000`;
}

/** The moment in a UUID's first 48 bits (its time when it is a v7). */
export function v7Time(id: string): number {
  return parseInt(id.replace(/-/g, "").slice(0, 12), 16);
}

const FLOOR_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-0000-0000-000000000000$/;

/**
 * `column >= 'lo' [and column < 'hi']` with literal UUIDs, from midnight-aligned moments (hi null:
 * no upper bound). Literals, not parameters: a prepared statement's generic plan prunes a parameter
 * only at execution and PostgreSQL 15 still locks every partition before it; a literal prunes while
 * planning, in generic and custom plans alike. Only day floors are written, so a statement's text
 * changes once a day and the prepared-statement cache stays small.
 */
export function keyRange(column: string, loMs: number | null, hiMs: number | null) {
  const lo = loMs === null ? null : v7Floor(loMs);
  const hi = hiMs === null || hiMs > MAX_V7_MS ? null : v7Floor(hiMs);
  for (const v of [lo, hi]) if (v !== null && !FLOOR_RE.test(v)) throw new Error(`keyRange: ${v} is not a day floor`);
  return sql`${lo !== null ? sql`and ${sql(column)} >= ${sql.unsafe(`'${lo}'::uuid`)}` : sql``}
    ${hi !== null ? sql`and ${sql(column)} < ${sql.unsafe(`'${hi}'::uuid`)}` : sql``}`;
}

/**
 * The day partition of a key, as literal bounds: `column >= floor(day of id) and column < floor(next
 * day)`. Every UUID lies in the day its first 48 bits name, so this adds nothing to `column = id`
 * (or `= any(ids)` for the days of `ids`) but lets the plan hold one partition.
 */
export function keyDays(column: string, ids: readonly string[]) {
  if (ids.length === 0) return sql``;
  const times = ids.map(v7Time);
  return keyRange(column, dayStart(Math.min(...times)), dayStart(Math.max(...times)) + DAY_MS);
}

/** Partition-key bounds of one read: [lo, hi) as midnight-aligned moments, null = unbounded. */
export interface KeyWindow {
  lo: number | null;
  hi: number | null;
}

/** The lower bounds of a newest-first walk, in days before the newest day it can read (then none). */
const WALK_DAYS = [1, 7];

/**
 * The windows of a read that wants the newest rows first, newest first: below `hi`, from the day
 * before `newest`, then 7 days before it, then from `floor` (null: no lower bound), so the last
 * window holds every row the read allows and a row older than every window is still found. The
 * reader stops at the first window that answers it (the feed: a full page whose rows all sort before
 * what the window left out; a receipt: the first hit).
 */
export function newestFirstWindows(newest: number, hi: number | null, floor: number | null = null): KeyWindow[] {
  const walk = WALK_DAYS.map((d) => newest - d * DAY_MS).filter((lo) => floor === null || lo > floor);
  return [...walk.map((lo) => ({ lo, hi })), { lo: floor, hi }];
}

/** Tomorrow's end from `now` (with the margin): no UUID v7 made until then lies above it. */
export function keyHorizon(now = Date.now()): number {
  return dayStart(now + ID_TIME_SKEW_MS) + 2 * DAY_MS;
}

/**
 * Bounds of notification ids for rows created at or after `sinceMs`: from the day of `sinceMs` less the
 * margin, up to tomorrow's end (ids are never from the future; a clock a little ahead still fits).
 */
export function createdSince(column: string, sinceMs: number, now = Date.now()) {
  return keyRange(column, dayStart(sinceMs - ID_TIME_SKEW_MS), keyHorizon(now));
}
