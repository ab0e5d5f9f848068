// The domain-health actor's message and address: domain/ and the cron enqueue checks with these
// and never import the handler (actors/domain-health.ts defines the actor from this address).
import type { ActorAddress } from "../runtime/actor";

export interface DomainCheckMessage {
  type: "check";
  domainId: string;
  tenantId: string;
  environment: string;
  /** the cron tick (its scheduled time, ISO 8601) that asked for the check: one check per domain per tick */
  tick: string;
}

/** Keyed by domain id: checks of one domain run one at a time. */
export const domainHealthAddress: ActorAddress<DomainCheckMessage> = {
  name: "domain-health",
  keyOf: (m) => m.domainId,
};

export function domainCheckMessage(d: { id: string; tenantId: string; environment: string }, tick: string): DomainCheckMessage {
  return { type: "check", domainId: d.id, tenantId: d.tenantId, environment: d.environment, tick };
}
