// The domain-health actor's mail: its message (versioned, ids only), its address and constructor; the
// cron job and the forced check enqueue with these (actors/domain-health.ts is defined from this address).
import type { ActorAddress } from "../../runtime";

/** `v`: the shape's version (docs/runtime.md, "Changing a message shape"); none read means 1. */
export interface DomainCheckMessage {
  v: 1;
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
  return { v: 1, type: "check", domainId: d.id, tenantId: d.tenantId, environment: d.environment, tick };
}
