// Timestamp formatting for responses: ISO 8601 UTC with milliseconds, null stays null.
export function iso(d: Date | string | null | undefined): string | null {
  if (d === null || d === undefined) return null;
  return (d instanceof Date ? d : new Date(d)).toISOString();
}
