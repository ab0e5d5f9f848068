// Billing period arithmetic (pure): months and years counted from an anchor, keeping its day of
// month (Jan 31 -> Feb 28 -> Mar 31, as card processors bill), and the calendar month of the default plan.
import type { PlanInterval } from "../../schemas/billing";

export interface Period {
  start: Date;
  end: Date;
}

const MONTHS: Record<PlanInterval, number> = { month: 1, year: 12 };

/** The anchor moved by `k` intervals, its day clamped to the target month's last day. */
export function addIntervals(anchor: Date, interval: PlanInterval, k: number): Date {
  const months = anchor.getUTCMonth() + MONTHS[interval] * k;
  const year = anchor.getUTCFullYear() + Math.floor(months / 12);
  const month = ((months % 12) + 12) % 12;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return new Date(
    Date.UTC(year, month, Math.min(anchor.getUTCDate(), lastDay), anchor.getUTCHours(), anchor.getUTCMinutes(), anchor.getUTCSeconds(), anchor.getUTCMilliseconds()),
  );
}

/** The period counted from `anchor` that contains `now` (the first one while `now` is before the anchor). */
export function periodAt(anchor: Date, interval: PlanInterval, now: Date): Period {
  const t = now.getTime();
  // an estimate from whole months, then corrected by at most a step each way
  const monthsApart = (now.getUTCFullYear() - anchor.getUTCFullYear()) * 12 + (now.getUTCMonth() - anchor.getUTCMonth());
  let k = Math.max(0, Math.floor(monthsApart / MONTHS[interval]));
  while (k > 0 && addIntervals(anchor, interval, k).getTime() > t) k--;
  while (addIntervals(anchor, interval, k + 1).getTime() <= t) k++;
  return { start: addIntervals(anchor, interval, k), end: addIntervals(anchor, interval, k + 1) };
}

/** The UTC calendar month containing `now`: the period of the default plan. */
export function calendarMonth(now: Date): Period {
  return {
    start: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)),
    end: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)),
  };
}

/** Whole days from `since` to `now` (never negative). */
export function daysBetween(since: Date, now: Date): number {
  return Math.max(0, Math.floor((now.getTime() - since.getTime()) / 86_400_000));
}
