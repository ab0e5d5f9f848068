// When the period's count calls for quota.warning (80 % of the limit) and quota.exceeded (100 %). Pure.

export const WARNING_PERCENT = 80;

/** The alert kinds a count reaches. */
export function alertsReached(used: number, limit: number): ("warning" | "exceeded")[] {
  const out: ("warning" | "exceeded")[] = [];
  if (limit > 0 && used * 100 >= limit * WARNING_PERCENT) out.push("warning");
  if (used >= limit) out.push("exceeded");
  return out;
}
