// The domain-health actor: checks one sending domain per message (keyed by domain id); the cron that
// sends those messages is jobs/domain-health-cron.ts, the check itself domain/sending-domains/health.ts.
import { checkDomain } from "../domain/sending-domains/health";
import { defineActor } from "../runtime";
import { domainHealthAddress, type DomainCheckMessage } from "../domain/sending-domains/domain-health-mail";

export const domainHealth = defineActor<DomainCheckMessage>({
  ...domainHealthAddress,
  // DNS the resolver cannot reach throws: the runtime retries the message, then dead-letters it
  handle: async (msg) => {
    if (msg.type !== "check") return;
    await checkDomain(msg.domainId, { trigger: "cron", tick: msg.tick, scope: { tenantId: msg.tenantId, environment: msg.environment } });
  },
});

