// What a send needs: the delivery target of a (tenant, environment, channel) (its configured provider,
// or a built-in one) and the rendered content stored with each notification at accept.
import type { Channel } from "../../schemas/channels";
import { loadChannelConfig } from "../../store/channels";

/** The rendered message stored with the notification, so delivery never depends on later template edits. */
export interface StoredContent {
  subject?: string;
  html?: string;
  text?: string;
  content?: string;
  title?: string;
  body?: string;
  providerTemplateId?: string;
}

// Channel configuration as delivery sees it (store/channels.ts caches the decrypted rows briefly
// and drops its entry when the channel routes change one).

export interface DeliveryTarget {
  provider: string;
  credentials: Record<string, unknown>;
  settings: Record<string, unknown>;
  /** true when no configuration exists and a built-in default (sandbox, inbox) is used */
  builtIn: boolean;
  /** the channel configuration's id (its provider callbacks are /webhooks/<provider>/<id>); null when built in */
  channelId: string | null;
  /** changes whenever the configuration does: providers are rebuilt when it differs */
  version: string;
}

/**
 * The provider a channel delivers through: its active configuration; otherwise `inbox` for
 * in_app, the built-in `sandbox` in the sandbox environment, and null (not configured) in production.
 */
export async function resolveDelivery(tenantId: string, environment: string, channel: string): Promise<DeliveryTarget | null> {
  const cfg = await loadChannelConfig(tenantId, environment, channel as Channel);
  if (cfg && cfg.active !== false) {
    return {
      provider: cfg.provider,
      credentials: cfg.credentials as Record<string, unknown>,
      settings: cfg.settings as Record<string, unknown>,
      builtIn: false,
      channelId: cfg.id,
      version: `${cfg.id}:${cfg.updatedAt}`,
    };
  }
  if (channel === "in_app") return { provider: "inbox", credentials: {}, settings: {}, builtIn: true, channelId: null, version: "builtin:inbox" };
  if (environment === "sandbox") return { provider: "sandbox", credentials: {}, settings: {}, builtIn: true, channelId: null, version: "builtin:sandbox" };
  return null;
}
