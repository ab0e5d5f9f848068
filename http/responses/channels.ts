// API response shape of the channel configuration record (credentials never; their key names only): store rows as the routes answer them
// (the TypeBox schemas in schemas/ describe the same shapes for validation and the OpenAPI document).
import { iso } from "../../store/time";
import type { ChannelRow } from "../../store/channels";
import type { CircuitView } from "../../store/circuits";

/** DESIGN.md 6 channel response: credentials never leave, only their names (credential_keys). */
export function serializeChannel(r: ChannelRow) {
  return {
    id: r.id,
    channel: r.channel,
    provider: r.provider,
    settings: r.settings ?? {},
    active: r.active,
    credential_keys: r.credential_keys ?? [],
    failover: (r.failover ?? []).map((e) => ({ provider: e.provider, settings: e.settings ?? {}, credential_keys: e.credential_keys ?? [] })),
    created_at: iso(r.created_at)!,
    updated_at: iso(r.updated_at)!,
  };
}

/** A circuit as GET /v1/channels/:channel shows it, per configured provider. */
export function serializeProviderState(e: { provider: string; role: "primary" | "failover" }, c: CircuitView) {
  return {
    provider: e.provider,
    role: e.role,
    circuit: c.state,
    opened_at: c.openedAtMs === null ? null : new Date(c.openedAtMs).toISOString(),
    failures: c.failures,
    last_error: c.lastError,
  };
}
