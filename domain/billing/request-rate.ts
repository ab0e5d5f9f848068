// The request rate of a tenant's API keys and dashboard users: its plan's api_requests_per_minute,
// or the service default RATE_LIMIT_PER_MINUTE when the plan leaves it null.
import { config } from "../../config";
import { billingOf, peekBilling } from "./cache";

function fromPlan(perMinute: number | null): number {
  return perMinute ?? config.rateLimitPerMinute;
}

/** Synchronous while the tenant's billing is cached (the usual case), a promise on a miss. */
export function requestsPerMinuteOf(tenantId: string | undefined): number | Promise<number> {
  if (tenantId === undefined) return config.rateLimitPerMinute;
  const hit = peekBilling(tenantId);
  if (hit) return fromPlan(hit.plan.api_requests_per_minute);
  return billingOf(tenantId).then(
    (b) => fromPlan(b.plan.api_requests_per_minute),
    () => config.rateLimitPerMinute, // PostgreSQL trouble must not turn into refusing every request
  );
}
