// Cursor pagination shared by every cursor-paged list: opaque base64url cursors that encode
// the (created_at, id) of the last row, so pages stay stable under concurrent inserts.
import { validationFailed } from "./errors";

export interface Cursor {
  t: string; // ISO timestamp of the last row seen
  id: string;
}

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;

export function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify([c.t, c.id])).toString("base64url");
}

export function decodeCursor(raw: string | undefined | null): Cursor | null {
  if (raw === undefined || raw === null || raw === "") return null;
  try {
    const [t, id] = JSON.parse(Buffer.from(raw, "base64url").toString("utf8"));
    if (typeof t !== "string" || typeof id !== "string" || Number.isNaN(Date.parse(t))) throw new Error();
    return { t, id };
  } catch {
    throw validationFailed({ cursor: ["is not a valid cursor"] });
  }
}

export function parseLimit(raw: unknown, def = DEFAULT_LIMIT, max = MAX_LIMIT, field = "limit"): number {
  if (raw === undefined || raw === null || raw === "") return def;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > max) throw validationFailed({ [field]: [`must be an integer between 1 and ${max}`] });
  return n;
}

/**
 * Query `limit + 1` rows ordered by (created_at desc, id desc) and pass them here:
 * returns the page and meta {cursor, has_more}.
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
