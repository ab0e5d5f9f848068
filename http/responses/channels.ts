// API response shape of the channel configuration record (credentials never; their key names only): store rows as the routes answer them
// (the TypeBox schemas in schemas/ describe the same shapes for validation and the OpenAPI document).
import { iso } from "../../store/time";
import type { ChannelRow } from "../../store/channels";

/** DESIGN.md 6 channel response: credentials never leave, only their names (credential_keys). */
export function serializeChannel(r: ChannelRow) {
  return {
    id: r.id,
    channel: r.channel,
    provider: r.provider,
    settings: r.settings ?? {},
    active: r.active,
    credential_keys: r.credential_keys ?? [],
    created_at: iso(r.created_at)!,
    updated_at: iso(r.updated_at)!,
  };
}
