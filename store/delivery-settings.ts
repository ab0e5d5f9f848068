// A tenant's delivery policy per environment (migration 0660): the fallback timezone, quiet hours and
// frequency caps; read on the send path through a short cache, so a change applies within seconds.
import { sql, type Scope, type Tx } from "./db";

export interface QuietHours {
  /** "HH:MM", local time of the subscriber (else the tenant's timezone) */
  start: string;
  end: string;
  channels: string[];
}

export interface FrequencyCap {
  channel: string;
  limit: number;
  /** a duration such as "1h" (the workflow delay format) */
  window: string;
}

export interface DeliverySettings {
  timezone: string;
  quiet_hours: QuietHours | null;
  frequency_caps: FrequencyCap[];
  updated_at: Date | null;
}

export const DEFAULT_DELIVERY_SETTINGS: Readonly<DeliverySettings> = Object.freeze({ timezone: "UTC", quiet_hours: null, frequency_caps: [], updated_at: null });

export async function getDeliverySettings(scope: Scope, tx: Tx = sql): Promise<DeliverySettings> {
  const [row] = await tx<DeliverySettings[]>`
    select timezone, quiet_hours, frequency_caps, updated_at from delivery_settings
    where tenant_id = ${scope.tenantId} and environment = ${scope.environment}`;
  return row ?? { ...DEFAULT_DELIVERY_SETTINGS };
}

export async function putDeliverySettings(scope: Scope, s: Omit<DeliverySettings, "updated_at">, tx: Tx = sql): Promise<DeliverySettings> {
  const [row] = await tx<DeliverySettings[]>`
    insert into delivery_settings (tenant_id, environment, timezone, quiet_hours, frequency_caps, updated_at)
    values (${scope.tenantId}, ${scope.environment}, ${s.timezone}, ${s.quiet_hours ? tx.json(s.quiet_hours as any) : null}, ${tx.json(s.frequency_caps as any)}, now())
    on conflict (tenant_id, environment) do update
      set timezone = excluded.timezone, quiet_hours = excluded.quiet_hours, frequency_caps = excluded.frequency_caps, updated_at = now()
    returning timezone, quiet_hours, frequency_caps, updated_at`;
  cache.delete(`${scope.tenantId}:${scope.environment}`);
  return row!;
}

const CACHE_MS = 5_000;
const cache = new Map<string, { at: number; value: DeliverySettings }>();

/** The settings as the send path reads them: cached per (tenant, environment) for a few seconds. */
export async function cachedDeliverySettings(scope: Scope): Promise<DeliverySettings> {
  const key = `${scope.tenantId}:${scope.environment}`;
  const hit = cache.get(key);
  if (hit && Date.now() - hit.at < CACHE_MS) return hit.value;
  const value = await getDeliverySettings(scope);
  cache.set(key, { at: Date.now(), value });
  return value;
}
