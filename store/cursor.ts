// Keyset pagination of cursor-paged lists: opaque base64url cursors naming the last row seen, and
// the page + meta {cursor, has_more} of `limit + 1` rows. Query parameters are parsed by http/pagination.ts.
// Query `order by id desc` and `where id < ${cursor.id}`: ids are UUID v7, so id order is
// creation order and pages stay stable under concurrent inserts (new rows sort before the cursor).
import { validationFailed } from "../basics/errors";
import { UUID_RE } from "./ids";

export interface Cursor {
  /**
   * ISO timestamp of the last row, informational only. Do not compare `(created_at, id)` with it:
   * PostgreSQL keeps microseconds and a JS Date only milliseconds, so rows sharing the cursor's
   * millisecond would be skipped. Compare ids.
   */
  t: string;
  /** id (UUID v7) of the last row seen; always a valid UUID after decodeCursor. */
  id: string;
}

export function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify([c.t, c.id])).toString("base64url");
}

export function decodeCursor(raw: string | undefined | null): Cursor | null {
  if (raw === undefined || raw === null || raw === "") return null;
  try {
    const [t, id] = JSON.parse(Buffer.from(raw, "base64url").toString("utf8"));
    if (typeof t !== "string" || typeof id !== "string" || Number.isNaN(Date.parse(t)) || !UUID_RE.test(id)) throw new Error();
    return { t, id };
  } catch {
    throw validationFailed({ cursor: ["is not a valid cursor"] });
  }
}

/**
 * Query `limit + 1` rows ordered by `id desc` (after the cursor: `id < cursor.id`) and pass them
 * here: returns the page and meta {cursor, has_more}.
 */
export function pageOf<T>(rows: T[], limit: number, cursorOf: (row: T) => Cursor) {
  const hasMore = rows.length > limit;
  const page = hasMore ? rows.slice(0, limit) : rows;
  const last = page[page.length - 1];
  return {
    page,
    meta: { cursor: hasMore && last ? encodeCursor(cursorOf(last)) : null, has_more: hasMore },
  };
}
