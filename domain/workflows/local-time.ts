// Local wall-clock times for `delay until`: the next HH:MM in an IANA timezone (Intl, no hand-kept
// offsets), with DST gaps moved forward and overlaps taking the earlier instant, as the IANA rules do.

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    if (formatters.size > 1000) formatters.clear();
    formatters.set(timeZone, f);
  }
  return f;
}

/** Whether Intl knows the IANA timezone name. */
export function isTimeZone(tz: unknown): tz is string {
  if (typeof tz !== "string" || tz.trim() === "") return false;
  try {
    formatter(tz);
    return true;
  } catch {
    return false;
  }
}

/** The wall clock of instant `t` in `tz` as if it were UTC (epoch ms). */
function wallAsUtc(t: number, tz: string): number {
  const p: Record<string, number> = {};
  for (const part of formatter(tz).formatToParts(new Date(t))) if (part.type !== "literal") p[part.type] = Number(part.value);
  return Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!);
}

/** The offset of `tz` from UTC at instant `t` (ms; +3600000 for UTC+1). */
function offsetAt(t: number, tz: string): number {
  return wallAsUtc(Math.floor(t / 1000) * 1000, tz) - Math.floor(t / 1000) * 1000;
}

/**
 * The instant of wall time `wall` (a UTC epoch read as local) in `tz`: in an overlap the earlier of
 * the two, in a gap the wall time moved forward by the gap (02:30 in a 02:00->03:00 gap is 03:30).
 */
export function instantOfWall(wall: number, tz: string): number {
  const before = offsetAt(wall - 86_400_000, tz);
  const after = offsetAt(wall + 86_400_000, tz);
  const valid = [...new Set([before, after])].map((o) => wall - o).filter((t) => offsetAt(t, tz) === wall - t);
  if (valid.length) return Math.min(...valid);
  return wall - before; // a gap: the offset before the change carries the wall time past it
}

/** The next instant after `nowMs` whose wall clock in `tz` reads `hhmm` ("09:00"). */
export function nextLocalTime(nowMs: number, hhmm: string, tz: string): number {
  const [h, m] = hhmm.split(":").map(Number) as [number, number];
  const today = new Date(wallAsUtc(nowMs, tz));
  for (let day = 0; day <= 2; day++) {
    const wall = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() + day, h, m);
    const t = instantOfWall(wall, tz);
    if (t > nowMs) return t;
  }
  throw new Error(`no ${hhmm} in ${tz} within two days of ${new Date(nowMs).toISOString()}`);
}
