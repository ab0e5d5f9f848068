// The subscription.* audit entries of SPEC's table, with exactly its metadata keys; each is written
// in the transaction of the change it records. Expiry and payment failure are the system's.
import type { ChangeType } from "../../schemas/billing";
import { writeAudit, type ActorType } from "../../store/audit";
import type { Tx } from "../../store/db";

/** Who asks for a change: a dashboard user or an API key (the system's own changes pass SYSTEM). */
export interface BillingActor {
  tenantId: string;
  actorType: ActorType;
  actorId: string | null;
  ip?: string | null;
  userAgent?: string | null;
}

export const systemActor = (tenantId: string): BillingActor => ({ tenantId, actorType: "system", actorId: null });

type Entry =
  | { action: "subscription.created"; metadata: { plan_id: string; gateway: string } }
  | { action: "subscription.plan_changed"; metadata: { old_plan_id: string; new_plan_id: string; change_type: ChangeType } }
  | { action: "subscription.cancelled"; metadata: { reason: string; cancel_at_period_end: boolean } }
  | { action: "subscription.payment_failed"; metadata: { invoice_id: string; invoice_number: string | null; amount_cents: number; reason: string } }
  | { action: "subscription.expired"; metadata: { reason: string; days_overdue: number } };

export async function auditSubscription(tx: Tx, actor: BillingActor, subscriptionId: string, e: Entry): Promise<void> {
  await writeAudit(tx, {
    tenantId: actor.tenantId,
    actorType: actor.actorType,
    actorId: actor.actorId,
    action: e.action,
    resourceType: "subscription",
    resourceId: subscriptionId,
    metadata: e.metadata,
    ip: actor.ip ?? null,
    userAgent: actor.userAgent ?? null,
  });
}
