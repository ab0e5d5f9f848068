// Prices and limits as people read them: "$49.00 / month", "100,000", "no limit".
import type { Plan } from "../../../client";

export function price(p: Pick<Plan, "price_cents" | "currency" | "interval">): string {
  if (p.price_cents === 0) return "Free";
  const amount = new Intl.NumberFormat(undefined, { style: "currency", currency: p.currency.toUpperCase() }).format(p.price_cents / 100);
  return `${amount} / ${p.interval}`;
}

export function count(n: number | null, unlimited = "no limit"): string {
  return n === null ? unlimited : new Intl.NumberFormat().format(n);
}

/** Monthly price: a yearly plan compares per month, as the API decides upgrade or downgrade. */
export function monthly(p: Pick<Plan, "price_cents" | "interval">): number {
  return p.price_cents / (p.interval === "year" ? 12 : 1);
}
