// Encoding of stream entries and timer payloads. Entries carry k (actor key) and m (message JSON),
// plus t (timer id) when promoteTimers-3.lua produced them; readable in redis-cli as they are.

export function encodeTimerPayload(key: string, message: unknown): string {
  // promoteTimers-3.lua splits by the key's byte length, so any key (even one with ':') is safe.
  return `${Buffer.byteLength(key)}:${key}${JSON.stringify(message)}`;
}

export interface DecodedEntry {
  key: string | undefined;
  json: string | undefined;
  timerId: string | undefined;
}

export function decodeFields(fields: string[]): DecodedEntry {
  let key: string | undefined;
  let json: string | undefined;
  let timerId: string | undefined;
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const f = fields[i];
    if (f === "k") key = fields[i + 1];
    else if (f === "m") json = fields[i + 1];
    else if (f === "t") timerId = fields[i + 1];
  }
  return { key, json, timerId };
}

/** Orders stream entry ids ("<ms>-<seq>") numerically. */
export function compareEntryIds(a: string, b: string): number {
  const [am, as] = a.split("-").map(Number) as [number, number];
  const [bm, bs] = b.split("-").map(Number) as [number, number];
  return am !== bm ? am - bm : as - bs;
}
