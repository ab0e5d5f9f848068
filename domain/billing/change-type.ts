// Whether a plan change is an upgrade (applies now) or a downgrade (applies at the period end),
// by monthly price: a yearly price counts as a twelfth. Pure.
import type { ChangeType, PlanInterval } from "../../schemas/billing";

const monthly = (p: { price_cents: number; interval: PlanInterval }) => p.price_cents / (p.interval === "year" ? 12 : 1);

/** Equal prices apply now, like an upgrade: nothing is paid for that the change would take away. */
export function changeTypeOf(from: { price_cents: number; interval: PlanInterval }, to: { price_cents: number; interval: PlanInterval }): ChangeType {
  return monthly(to) < monthly(from) ? "downgrade" : "upgrade";
}
