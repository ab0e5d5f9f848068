// Record ids: UUID v7, so ids sort by creation time and index well.
export function newId(): string {
  return Bun.randomUUIDv7();
}

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export function isUuid(s: string): boolean {
  return UUID_RE.test(s);
}
