// Subscriber preference repository: per (category, channel) switches, upserted, with the
// source that last wrote them (the API, or the unsubscribe link) so suppression can say why.
import { sql, type Scope, type Tx } from "./db";

export interface Preference {
  category: string;
  channel: string; // one of the channels; the route's schema checks it
  enabled: boolean;
}

export type PreferenceSource = "api" | "unsubscribe" | "preference_center";

export async function listPreferences(scope: Scope, subscriberId: string, tx: Tx = sql): Promise<Preference[]> {
  return tx<Preference[]>`
    select category, channel, enabled from subscriber_preferences
    where tenant_id = ${scope.tenantId} and environment = ${scope.environment} and subscriber_id = ${subscriberId}
    order by category, channel`;
}

/**
 * Upserts by (category, channel); the last entry wins when one pair repeats. Used by
 * PUT /v1/subscribers/:id/preferences (source "api") and the unsubscribe link ("unsubscribe",
 * category "all" or the token's category, enabled false).
 */
export async function upsertPreferences(
  tx: Tx,
  scope: Scope,
  subscriberId: string,
  preferences: Preference[],
  source: PreferenceSource = "api",
): Promise<void> {
  const unique = new Map<string, Preference>();
  for (const p of preferences) unique.set(`${p.category}\u0000${p.channel}`, p);
  if (unique.size === 0) return;
  const rows = [...unique.values()].map((p) => ({
    tenant_id: scope.tenantId,
    environment: scope.environment,
    subscriber_id: subscriberId,
    category: p.category,
    channel: p.channel,
    enabled: p.enabled,
    source,
    updated_at: new Date(),
  }));
  await tx`
    insert into subscriber_preferences ${tx(rows)}
    on conflict (subscriber_id, category, channel) do update
      set enabled = excluded.enabled, source = excluded.source, updated_at = excluded.updated_at`;
}
