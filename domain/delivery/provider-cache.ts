// The providers a sender process delivers through, built once per channel configuration version
// (SMTP pools and FCM token caches live in them), and the send rate each channel configuration allows.
import { config } from "../../config";
import { timeoutSetting } from "../../providers/config-checks";
import { createProvider, getProviderDefinition } from "../../providers/registry";
import type { OutboundMessage, Provider } from "../../providers/types";
import { deliverToInbox, SubscriberNotFoundError } from "../inbox/inbox";
import type { DeliveryTarget } from "./target";

const providers = new Map<string, { target: DeliveryTarget; provider: Provider }>();

/** The in_app provider's delivery: an inbox item; an unknown subscriber fails without retry. */
const inboxDeps = {
  async deliver(msg: OutboundMessage) {
    try {
      const { itemId } = await deliverToInbox({
        tenantId: msg.tenantId,
        environment: msg.environment,
        recipient: msg.to,
        notificationId: msg.notificationId,
        title: msg.title ?? null,
        body: msg.body ?? null,
        data: msg.data ?? {},
      });
      return { itemId };
    } catch (err) {
      const e = err as { code?: string; message?: string };
      if (err instanceof SubscriberNotFoundError) throw Object.assign(new Error(e.message ?? "subscriber not found"), { permanent: true, code: e.code ?? "subscriber_not_found" });
      throw err;
    }
  },
};

/** The provider of `target` under `key` (tenant, environment, channel); throws when it cannot be built. */
export function providerFor(key: string, target: DeliveryTarget): Provider {
  const hit = providers.get(key);
  if (hit && hit.target.version === target.version) return hit.provider;
  const provider = createProvider(target.provider, { credentials: target.credentials, settings: target.settings }, {
    inbox: inboxDeps,
    timeoutMs: timeoutSetting(target.settings),
    allowHttpEndpoints: config.allowHttpProviderEndpoints,
  });
  providers.set(key, { target, provider });
  return provider;
}

/** Sends per second allowed to one tenant and environment through `target`: its setting, else the provider's default. */
export function rateLimitOf(target: DeliveryTarget): number {
  const own = Number(target.settings.rate_limit_per_second);
  if (Number.isFinite(own) && own > 0) return own;
  return getProviderDefinition(target.provider)?.defaultRateLimitPerSecond ?? 100;
}
