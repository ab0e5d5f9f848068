// Channel configuration repository: one row per (tenant, environment, channel), credentials
// encrypted at rest (store/cipher.ts) and decrypted only for loadChannelConfig, cached briefly.
import { decryptJson, defaultKeyring, encryptJson } from "./cipher";
import type { Channel } from "../schemas/channels";
import { sql, type Scope, type Tx } from "./db";
import { newId } from "./ids";
import { iso } from "./time";

export interface ChannelRow {
  id: string;
  tenant_id: string;
  environment: string;
  channel: string;
  provider: string;
  credentials_enc: string | null;
  credentials_key_id: string | null;
  credential_keys: string[];
  settings: Record<string, unknown>;
  active: boolean;
  /** backup providers, tried in order after the primary (credentials sealed per entry) */
  failover: StoredFailoverEntry[];
  created_at: Date;
  updated_at: Date;
}

/** One backup provider as stored in channels.failover: its credentials encrypted like the primary's. */
export interface StoredFailoverEntry {
  /** stable while the entry keeps its provider and credentials: its circuit is keyed by it */
  id: string;
  provider: string;
  credentials_enc: string | null;
  credentials_key_id: string | null;
  credential_keys: string[];
  settings: Record<string, unknown>;
}

/** A backup provider as written by the routes: plaintext credentials, sealed by insert/update. `id` keeps an existing entry's. */
export interface FailoverFields {
  id?: string;
  provider: string;
  credentials: Record<string, unknown>;
  settings: Record<string, unknown>;
}

/** A backup provider as delivery sees it: decrypted credentials. */
export interface FailoverConfig {
  id: string;
  provider: string;
  credentials: Readonly<Record<string, unknown>>;
  settings: Readonly<Record<string, unknown>>;
}

export interface ChannelFields {
  provider: string;
  credentials: Record<string, unknown>;
  settings: Record<string, unknown>;
  active: boolean;
  /** backup providers (absent: none) */
  failover?: FailoverFields[];
}

/** What delivery needs: decrypted credentials. Frozen: it is shared through the cache. */
export interface ChannelConfig {
  id: string;
  channel: string;
  provider: string;
  credentials: Readonly<Record<string, unknown>>;
  settings: Readonly<Record<string, unknown>>;
  active: boolean;
  failover: readonly FailoverConfig[];
  updatedAt: string;
}

export class ChannelExistsError extends Error {
  constructor(readonly channel: string) {
    super(`channel '${channel}' is already configured`);
  }
}

const COLUMNS = sql`id, tenant_id, environment, channel, provider, credentials_enc, credentials_key_id, credential_keys,
  settings, active, failover, created_at, updated_at`;

/**
 * Additional authenticated data of the ciphertext: a credentials blob copied into another
 * tenant's, environment's or channel's row fails to decrypt instead of being used there.
 */
function aadOf(tenantId: string, environment: string, channel: string): string {
  return `channel:${tenantId}:${environment}:${channel}`;
}

function sealed(scope: Scope, channel: string, credentials: Record<string, unknown>) {
  const keys = Object.keys(credentials);
  if (keys.length === 0) return { enc: null, keyId: null, keys };
  return {
    enc: encryptJson(credentials, aadOf(scope.tenantId, scope.environment, channel)),
    keyId: defaultKeyring().currentKeyId,
    keys,
  };
}

/** A backup entry's credentials are bound to its id as well: copied into another entry, they fail to decrypt. */
function failoverAad(tenantId: string, environment: string, channel: string, entryId: string): string {
  return `${aadOf(tenantId, environment, channel)}:failover:${entryId}`;
}

function sealFailover(scope: Scope, channel: string, list: FailoverFields[]): StoredFailoverEntry[] {
  return list.map((f) => {
    const id = f.id ?? newId();
    const keys = Object.keys(f.credentials);
    return {
      id,
      provider: f.provider,
      credentials_enc: keys.length ? encryptJson(f.credentials, failoverAad(scope.tenantId, scope.environment, channel, id)) : null,
      credentials_key_id: keys.length ? defaultKeyring().currentKeyId : null,
      credential_keys: keys,
      settings: f.settings,
    };
  });
}

/** Decrypts one backup entry's credentials; throws DecryptionError like decryptCredentials. */
export function decryptFailoverCredentials(row: Pick<ChannelRow, "tenant_id" | "environment" | "channel">, entry: StoredFailoverEntry) {
  if (!entry.credentials_enc) return {} as Record<string, unknown>;
  return decryptJson<Record<string, unknown>>(entry.credentials_enc, failoverAad(row.tenant_id, row.environment, row.channel, entry.id));
}

/** The backup list with plaintext credentials (PUT keeps an entry's credentials when it sends none). */
export function decryptFailover(row: ChannelRow): FailoverFields[] {
  return (row.failover ?? []).map((e) => ({ id: e.id, provider: e.provider, credentials: decryptFailoverCredentials(row, e), settings: e.settings ?? {} }));
}

/** Throws DecryptionError (never with the plaintext) when the key is missing or the blob was altered. */
export function decryptCredentials(row: Pick<ChannelRow, "tenant_id" | "environment" | "channel" | "credentials_enc">) {
  if (!row.credentials_enc) return {} as Record<string, unknown>;
  return decryptJson<Record<string, unknown>>(row.credentials_enc, aadOf(row.tenant_id, row.environment, row.channel));
}

export async function insertChannel(tx: Tx, scope: Scope, channel: string, f: ChannelFields): Promise<ChannelRow> {
  const s = sealed(scope, channel, f.credentials);
  const failover = sealFailover(scope, channel, f.failover ?? []);
  try {
    const [row] = await tx`
      insert into channels (id, tenant_id, environment, channel, provider, credentials_enc, credentials_key_id,
                            credential_keys, settings, active, failover)
      values (${newId()}, ${scope.tenantId}, ${scope.environment}, ${channel}, ${f.provider}, ${s.enc}, ${s.keyId},
              ${s.keys}, ${tx.json(f.settings as any)}, ${f.active}, ${tx.json(failover as any)})
      returning ${COLUMNS}`;
    forgetCached(scope, channel);
    return row as unknown as ChannelRow;
  } catch (err) {
    if ((err as { code?: string })?.code === "23505") throw new ChannelExistsError(channel);
    throw err;
  }
}

export async function findChannel(tx: Tx, scope: Scope, channel: string, forUpdate = false): Promise<ChannelRow | null> {
  const rows = await tx`
    select ${COLUMNS} from channels
    where tenant_id = ${scope.tenantId} and environment = ${scope.environment} and channel = ${channel}
    ${forUpdate ? tx`for update` : tx``}`;
  return (rows[0] as unknown as ChannelRow) ?? null;
}

export async function listChannels(scope: Scope): Promise<ChannelRow[]> {
  const rows = await sql`
    select ${COLUMNS} from channels
    where tenant_id = ${scope.tenantId} and environment = ${scope.environment}
    order by channel`;
  return rows as unknown as ChannelRow[];
}

export async function updateChannel(tx: Tx, scope: Scope, channel: string, f: ChannelFields): Promise<ChannelRow> {
  const s = sealed(scope, channel, f.credentials);
  const failover = sealFailover(scope, channel, f.failover ?? []);
  const [row] = await tx`
    update channels set provider = ${f.provider}, credentials_enc = ${s.enc}, credentials_key_id = ${s.keyId},
      credential_keys = ${s.keys}, settings = ${tx.json(f.settings as any)}, active = ${f.active},
      failover = ${tx.json(failover as any)}, updated_at = now()
    where tenant_id = ${scope.tenantId} and environment = ${scope.environment} and channel = ${channel}
    returning ${COLUMNS}`;
  forgetCached(scope, channel);
  return row as unknown as ChannelRow;
}

export async function deleteChannel(tx: Tx, scope: Scope, channel: string): Promise<boolean> {
  const rows = await tx`
    delete from channels
    where tenant_id = ${scope.tenantId} and environment = ${scope.environment} and channel = ${channel}
    returning id`;
  forgetCached(scope, channel);
  return rows.length > 0;
}

// ---------------------------------------------------------------------------------------------
// Decrypted configurations for delivery, cached a few seconds per process. Changes made in this
// process drop the entry at once; other processes see them within CONFIG_TTL_MS.

const CONFIG_TTL_MS = 5_000;
const CACHE_LIMIT = 10_000;
const cache = new Map<string, { at: number; value: Promise<ChannelConfig | null> }>();

const cacheKey = (tenantId: string, environment: string, channel: string) => `${tenantId}:${environment}:${channel}`;

function forgetCached(scope: Scope, channel: string) {
  cache.delete(cacheKey(scope.tenantId, scope.environment, channel));
}

/** Drops cached configurations (all of them without arguments). */
export function invalidateChannelConfig(tenantId?: string, environment?: string, channel?: string): void {
  if (!tenantId) return cache.clear();
  cache.delete(cacheKey(tenantId, environment ?? "", channel ?? ""));
}

function deepFreeze<T>(v: T): T {
  if (v && typeof v === "object" && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v)) deepFreeze(x);
  }
  return v;
}

function toConfig(row: ChannelRow): ChannelConfig {
  return deepFreeze({
    id: row.id,
    channel: row.channel,
    provider: row.provider,
    credentials: decryptCredentials(row),
    settings: row.settings ?? {},
    active: row.active,
    failover: (row.failover ?? []).map((e) => ({ id: e.id, provider: e.provider, credentials: decryptFailoverCredentials(row, e), settings: e.settings ?? {} })),
    updatedAt: iso(row.updated_at)!,
  });
}

/**
 * For the channel sender: the channel's configuration with decrypted credentials, or null when
 * the channel is not configured. Inactive configurations are returned with active: false.
 * Throws DecryptionError when the stored credentials cannot be decrypted.
 */
export function loadChannelConfig(tenantId: string, environment: string, channel: Channel | string): Promise<ChannelConfig | null> {
  const key = cacheKey(tenantId, environment, channel);
  const hit = cache.get(key);
  if (hit && Date.now() - hit.at < CONFIG_TTL_MS) return hit.value;
  const value = findChannel(sql, { tenantId, environment }, channel).then((row) => (row ? toConfig(row) : null));
  cache.set(key, { at: Date.now(), value });
  value.catch(() => cache.delete(key)); // failures are not cached
  if (cache.size > CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  return value;
}

// A configuration id names one (tenant, environment, channel) for the row's whole life (a deleted and
// re-created channel gets a new id), so the mapping is cached longer than the configuration itself.
const scopeById = new Map<string, Promise<(Scope & { channel: string }) | null>>();

/**
 * The configuration whose id a provider callback URL carries (/webhooks/<provider>/:channel_id), with
 * its tenant and environment, or null when no channel has that id (any more). Inactive ones too:
 * callbacks for messages sent before the channel was switched off still arrive.
 */
export async function loadChannelConfigById(id: string): Promise<(ChannelConfig & Scope) | null> {
  let where = scopeById.get(id);
  if (!where) {
    where = sql<{ tenant_id: string; environment: string; channel: string }[]>`
      select tenant_id, environment, channel from channels where id = ${id}`.then(([r]) =>
      r ? { tenantId: r.tenant_id, environment: r.environment, channel: r.channel } : null,
    );
    scopeById.set(id, where);
    // unknown ids are not remembered (anyone can send them); failures neither
    where.then((w) => (w ? undefined : scopeById.delete(id)), () => scopeById.delete(id));
    if (scopeById.size > CACHE_LIMIT) scopeById.delete(scopeById.keys().next().value!);
  }
  const scope = await where;
  if (!scope) return null;
  const cfg = await loadChannelConfig(scope.tenantId, scope.environment, scope.channel);
  if (!cfg || cfg.id !== id) {
    scopeById.delete(id);
    return null;
  }
  return { ...cfg, tenantId: scope.tenantId, environment: scope.environment };
}

/** The scopes whose whatsapp_cloud channel sends from this phone number id (a status webhook names it). */
export async function whatsappScopesForPhone(phoneNumberId: string): Promise<Scope[]> {
  const rows = await sql<{ tenant_id: string; environment: string }[]>`
    select tenant_id, environment from channels
    where channel = 'whatsapp' and provider = 'whatsapp_cloud' and settings ->> 'phone_number_id' = ${phoneNumberId}`;
  return rows.map((r) => ({ tenantId: r.tenant_id, environment: r.environment }));
}

/**
 * Every configuration of a provider with decrypted credentials, e.g. for the inbound
 * /webhooks/whatsapp route to find the tenant whose verify_token / app_secret matches.
 * Rows that fail to decrypt are skipped.
 */
export async function listConfigsForProvider(provider: string): Promise<(ChannelConfig & Scope)[]> {
  const rows = (await sql`select ${COLUMNS} from channels where provider = ${provider} and active`) as unknown as ChannelRow[];
  const out: (ChannelConfig & Scope)[] = [];
  for (const row of rows) {
    try {
      out.push({ ...toConfig(row), tenantId: row.tenant_id, environment: row.environment });
    } catch {
      // a row under a retired key is unusable until re-saved; it must not hide the others
    }
  }
  return out;
}

/** Re-encrypts credentials written under an older key with the current one; returns the count. */
export async function reencryptChannelCredentials(): Promise<number> {
  const current = defaultKeyring().currentKeyId;
  const rows = (await sql`select ${COLUMNS} from channels
    where (credentials_enc is not null and credentials_key_id is distinct from ${current})
       or jsonb_path_exists(failover, '$[*] ? (@.credentials_key_id != null && @.credentials_key_id != $k)', jsonb_build_object('k', ${current}::text))`) as unknown as ChannelRow[];
  for (const row of rows) {
    const scope = { tenantId: row.tenant_id, environment: row.environment };
    const s = sealed(scope, row.channel, decryptCredentials(row));
    const failover = sealFailover(scope, row.channel, decryptFailover(row));
    await sql`update channels set credentials_enc = ${s.enc}, credentials_key_id = ${s.keyId}, failover = ${sql.json(failover as any)}
      where id = ${row.id} and credentials_enc is not distinct from ${row.credentials_enc}`;
    forgetCached(scope, row.channel);
  }
  return rows.length;
}
