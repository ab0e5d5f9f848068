// How <nms-inbox> shows an item's age: "now", "5 min ago", "yesterday", then a short date,
// in the page's language through Intl (no locale data shipped in the bundle).
const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ["minute", 60],
  ["hour", 60 * 60],
  ["day", 24 * 60 * 60],
];

/** `iso` relative to `now` (ms), e.g. "3 hours ago"; older than a week: the date. */
export function relativeTime(iso: string, now: number, locale?: string): string {
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return "";
  const seconds = Math.round((now - then) / 1000);
  if (seconds < 45) return new Intl.RelativeTimeFormat(locale, { numeric: "auto" }).format(0, "second");
  if (seconds < 7 * 24 * 60 * 60) {
    const fmt = new Intl.RelativeTimeFormat(locale, { numeric: "auto", style: "short" });
    let unit = UNITS[0]!;
    for (const u of UNITS) if (seconds >= u[1]) unit = u;
    return fmt.format(-Math.max(1, Math.round(seconds / unit[1])), unit[0]);
  }
  const sameYear = new Date(then).getFullYear() === new Date(now).getFullYear();
  return new Intl.DateTimeFormat(locale, { day: "numeric", month: "short", year: sameYear ? undefined : "numeric" }).format(then);
}

/** The full date and time, for the tooltip and screen readers. */
export function fullTime(iso: string, locale?: string): string {
  const then = Date.parse(iso);
  return Number.isNaN(then) ? iso : new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeStyle: "short" }).format(then);
}
