// A plan's resource limits (webhooks, domains, team_members, subscribers): checked inside the
// transaction that creates the resource, after its insert and under the tenant's row lock, so concurrent creations cannot pass together.
import { AppError } from "../../basics/errors";
import type { LimitedResource } from "../../schemas/billing";
import { countResource, lockTenant } from "../../store/billing-usage";
import type { Tx } from "../../store/db";
import { billingOf } from "./cache";

const LABELS: Record<LimitedResource, string> = {
  webhooks: "production webhooks",
  domains: "production sending domains",
  team_members: "team members",
  subscribers: "production subscribers",
};

/**
 * Throws 402 plan_limit_reached (rolling back the caller's transaction, its insert included) when
 * the tenant now holds more of `resource` than its plan allows. Sandbox resources never count
 * (`environment` is omitted for team members, which have none); an unlimited plan costs nothing.
 */
export async function assertWithinPlan(tx: Tx, scope: { tenantId: string; environment?: string }, resource: LimitedResource): Promise<void> {
  if (scope.environment !== undefined && scope.environment !== "production") return;
  const b = await billingOf(scope.tenantId);
  const limit = b.plan[resource];
  if (limit === null) return;
  // The lock orders this tenant's creations; the count, a statement after it, sees every one committed before.
  await lockTenant(tx, scope.tenantId);
  const count = await countResource(tx, scope.tenantId, resource);
  if (count <= limit) return;
  throw new AppError(
    "plan_limit_reached",
    `The ${b.plan.id} plan allows ${limit} ${LABELS[resource]}; remove one or upgrade the plan`,
    { [resource]: [`at most ${limit} on the ${b.plan.id} plan`], limit: [String(limit)], plan_id: [b.plan.id] },
  );
}
