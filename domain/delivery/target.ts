// What a send needs: the delivery target of a (tenant, environment, channel) (its configured provider,
// or a built-in one) and the rendered content stored with each notification at accept.
import type { Channel } from "../../schemas/channels";
import { loadChannelConfig } from "../../store/channels";
import type { RouteEntry } from "../routing/route";

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
  /** the providers in routing order: the primary (the fields above), then the backups (domain/routing/) */
  entries: RouteEntry[];
}

/**
 * The built-in provider a channel without an active configuration delivers through: `inbox` for
 * in_app in every environment (the inbox is ours, there is nothing to configure), the `sandbox`
 * provider for the other channels in sandbox; null in production, where such a send is refused
 * (422 channel_not_configured). GET /v1/providers publishes the same rule (built_in).
 */
export function builtInProvider(environment: string, channel: string): "inbox" | "sandbox" | null {
  if (channel === "in_app") return "inbox";
  return environment === "sandbox" ? "sandbox" : null;
}

/** The provider a channel delivers through: its active configuration, else its built-in provider, else null (not configured). */
export async function resolveDelivery(tenantId: string, environment: string, channel: string): Promise<DeliveryTarget | null> {
  const cfg = await loadChannelConfig(tenantId, environment, channel as Channel);
  if (cfg && cfg.active !== false) {
    const credentials = cfg.credentials as Record<string, unknown>;
    const settings = cfg.settings as Record<string, unknown>;
    return {
      provider: cfg.provider,
      credentials,
      settings,
      builtIn: false,
      channelId: cfg.id,
      version: `${cfg.id}:${cfg.updatedAt}`,
      entries: [
        { id: cfg.id, index: 0, role: "primary", provider: cfg.provider, credentials, settings },
        ...(cfg.failover ?? []).map((f, i) => ({
          id: f.id,
          index: i + 1,
          role: "failover" as const,
          provider: f.provider,
          credentials: f.credentials as Record<string, unknown>,
          settings: f.settings as Record<string, unknown>,
        })),
      ],
    };
  }
  const builtIn = builtInProvider(environment, channel);
  if (!builtIn) return null;
  return {
    provider: builtIn,
    credentials: {},
    settings: {},
    builtIn: true,
    channelId: null,
    version: `builtin:${builtIn}`,
    entries: [{ id: `builtin:${builtIn}`, index: 0, role: "primary", provider: builtIn, credentials: {}, settings: {} }],
  };
}
