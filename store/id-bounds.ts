// Plan-time partition pruning for statements that find history rows by UUID v7 id: the UTC days
// their ids fall in, written into the statement as constant bounds on the partition key.
import type { Tx } from "./db";
import { isUuid } from "./ids";

const DAY_MS = 86_400_000;
const MAX_MS = 0xffff_ffff_ffff; // 48 bits of Unix milliseconds

function msOf(id: string): number {
  return parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
}

/** The smallest UUID v7 of a moment (as nms_uuid_v7_floor in SQL): 48 bits of ms, then zeros. */
function floorId(ms: number): string {
  const h = ms.toString(16).padStart(12, "0");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-0000-0000-000000000000`;
}

/**
 * [lo, hi) of the UTC days holding every id: lo the start of the first id's day, hi the start of the
 * day after the last's (null past the 48-bit range). Every id lies inside, whatever its version, so
 * the bound never drops a row; for UUID v7 ids it is exactly the day partitions they live in.
 */
export function idDayRange(ids: readonly string[]): { lo: string; hi: string | null } {
  let min = Infinity;
  let max = -Infinity;
  for (const id of ids) {
    if (!isUuid(id)) return { lo: floorId(0), hi: null }; // no bound (the statement's own cast rejects it)
    const ms = msOf(id);
    if (ms < min) min = ms;
    if (ms > max) max = ms;
  }
  if (min === Infinity) return { lo: floorId(0), hi: null };
  const hiMs = (Math.floor(max / DAY_MS) + 1) * DAY_MS;
  return { lo: floorId(Math.floor(min / DAY_MS) * DAY_MS), hi: hiMs > MAX_MS ? null : floorId(hiMs) };
}

/**
 * `and <column> >= '<lo>' and <column> < '<hi>'` for the ids' days, as constants: a prepared
 * statement's generic plan then holds only those days' partitions, where `id = any($1)` alone
 * keeps every partition in the plan, locks each one per execution and prunes at run time (a
 * batched UPDATE over 33 partitions: 2.8 ms of PostgreSQL CPU against 0.37 ms with the bounds).
 * The text changes once a day, so each statement has a prepared version per day at most, and
 * postgres.js closes connections (and their statements) after 30-60 minutes. `column` is code, never input.
 */
export function inIdDays(tx: Tx, column: string, ids: readonly string[]) {
  const { lo, hi } = idDayRange(ids);
  return tx.unsafe(`and ${column} >= '${lo}'::uuid${hi ? ` and ${column} < '${hi}'::uuid` : ""}`);
}
