// The `limit` query parameter of every paged list (SPEC Limits: default 20, at most 100).
// Cursors and the page meta they feed are built by store/cursor.ts, beside the queries that use them.
import { validationFailed } from "../basics/errors";

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;

export function parseLimit(raw: unknown, def = DEFAULT_LIMIT, max = MAX_LIMIT, field = "limit"): number {
  if (raw === undefined || raw === null || raw === "") return def;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > max) throw validationFailed({ [field]: [`must be an integer between 1 and ${max}`] });
  return n;
}
