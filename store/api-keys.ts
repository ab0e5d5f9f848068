// API key repository: generation (prefix + base62 secret), SHA-256 hashing, management queries,
// and the cached lookup the auth plugin runs per request. Raw keys exist only in creation responses.
import { createHash, randomBytes } from "node:crypto";
import { newId } from "./ids";
import { redis } from "./redis";
import { tickPipeline } from "../runtime";
import { redisKeys } from "./redis-keys";
import { sql, type Tx } from "./db";
import { logger } from "../basics/log";
import { config } from "../config";

export type Environment = "production" | "sandbox";
export type KeyType = "secret" | "publishable";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

export function keyPrefixFor(keyType: KeyType, environment: Environment): string {
  return `${keyType === "secret" ? "nk" : "pk"}_${environment === "production" ? "live" : "test"}_`;
}

export function randomBase62(length: number): string {
  // rejection sampling keeps every character equally likely
  let out = "";
  while (out.length < length) {
    for (const b of randomBytes(length * 2)) {
      if (b < 248 && out.length < length) out += BASE62[b % 62];
    }
  }
  return out;
}

export function hashKey(raw: string): string {
  return createHash("sha256").update(raw).digest("hex");
}

export const KEY_RE = /^(nk|pk)_(live|test)_[0-9A-Za-z]{32,64}$/;

export function generateKey(keyType: KeyType, environment: Environment) {
  const raw = keyPrefixFor(keyType, environment) + randomBase62(40);
  return { raw, prefix: raw.slice(0, 12), hash: hashKey(raw) };
}

export interface ApiKeyRow {
  id: string;
  tenant_id: string;
  environment: Environment;
  key_type: KeyType;
  name: string | null;
  label: string | null;
  prefix: string;
  permissions: string[];
  allowed_ips: string[] | null;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
  revoked_reason: string | null;
  expires_at: Date | null;
}

export async function insertApiKey(
  tx: Tx,
  k: {
    tenantId: string;
    environment: Environment;
    keyType: KeyType;
    name?: string | null;
    label?: string | null;
    permissions?: string[];
    allowedIps?: string[] | null;
    createdByUserId?: string | null;
  },
): Promise<{ row: ApiKeyRow; raw: string }> {
  const { raw, prefix, hash } = generateKey(k.keyType, k.environment);
  const [row] = await tx<ApiKeyRow[]>`
    insert into api_keys (id, tenant_id, environment, key_type, name, label, prefix, key_hash, permissions, allowed_ips, created_by_user_id)
    values (${newId()}, ${k.tenantId}, ${k.environment}, ${k.keyType}, ${k.name ?? null}, ${k.label ?? null}, ${prefix}, ${hash},
            ${k.permissions ?? ["read", "write"]}, ${k.allowedIps ?? null}, ${k.createdByUserId ?? null})
    returning *`;
  return { row: row!, raw };
}

export async function findKeyByHash(tx: Tx, hash: string): Promise<(ApiKeyRow & { key_hash: string }) | undefined> {
  const [row] = await tx<(ApiKeyRow & { key_hash: string })[]>`select * from api_keys where key_hash = ${hash}`;
  return row;
}

// ---------------------------------------------------------------------------------------------
// Management queries. Every query filters by tenant AND the environments the caller may manage
// (http/routes/api-keys.ts): another tenant's key, or one of an environment out of reach, is "not found".

/** Keys that still authenticate: not revoked and not past a rotation grace period. */
export async function listActiveKeys(
  tx: Tx,
  tenantId: string,
  environments: readonly Environment[],
  page?: { limit: number; offset: number },
): Promise<{ rows: ApiKeyRow[]; total: number }> {
  const rows = await tx<(ApiKeyRow & { total: string })[]>`
    select *, count(*) over () as total from api_keys
    where tenant_id = ${tenantId} and environment = any(${environments as Environment[]}::text[])
      and revoked_at is null and (expires_at is null or expires_at > now())
    order by created_at desc, id desc
    ${page ? tx`limit ${page.limit} offset ${page.offset}` : tx``}`;
  let total = rows.length ? Number(rows[0]!.total) : 0;
  if (!rows.length && page && page.offset > 0) {
    const [c] = await tx<{ n: string }[]>`
      select count(*) as n from api_keys where tenant_id = ${tenantId} and environment = any(${environments as Environment[]}::text[])
        and revoked_at is null and (expires_at is null or expires_at > now())`;
    total = Number(c!.n);
  }
  return { rows: rows.map(({ total: _t, ...r }) => r as ApiKeyRow), total };
}

/** An active key of this tenant in one of these environments, locked for the caller's transaction. */
export async function findActiveKeyForUpdate(
  tx: Tx,
  tenantId: string,
  environments: readonly Environment[],
  id: string,
): Promise<ApiKeyRow | undefined> {
  const [row] = await tx<ApiKeyRow[]>`
    select * from api_keys
    where id = ${id} and tenant_id = ${tenantId} and environment = any(${environments as Environment[]}::text[])
      and revoked_at is null and (expires_at is null or expires_at > now())
    for update`;
  return row;
}

export async function revokeKey(tx: Tx, id: string, reason: string): Promise<ApiKeyRow> {
  const [row] = await tx<ApiKeyRow[]>`
    update api_keys set revoked_at = now(), revoked_reason = ${reason} where id = ${id} returning *`;
  return row!;
}

/** Ends a rotated key's life at now + grace (0 hours: at once); a second rotation never extends it. */
export async function expireKeyAfter(tx: Tx, id: string, graceHours: number): Promise<ApiKeyRow> {
  const [row] = await tx<ApiKeyRow[]>`
    update api_keys set expires_at = least(coalesce(expires_at, 'infinity'), now() + make_interval(hours => ${graceHours}))
    where id = ${id} returning *`;
  return row!;
}

// ---------------------------------------------------------------------------------------------
// Key lookups on the request path. Each process caches key rows by hash; a Redis counter
// (the auth epoch) is bumped after every revocation, rotation or origin/settings change, and
// every request reads it in the same round trip as its rate-limit call, so a change made
// through any process is seen by every other process on its very next request.


const CACHE_TTL_MS = 60_000; // backstop should Redis lose the epoch counter
const CACHE_MAX = 10_000;

export type CachedKey = ApiKeyRow & { key_hash: string };
interface CacheEntry<T> {
  value: T;
  epoch: string | null;
  at: number;
}

let redisDownUntil = 0;
const REDIS_TIMEOUT_MS = 500;

export function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout>;
  return Promise.race([
    p,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`redis did not answer within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** Called after a committed change that must invalidate cached auth facts in every process. */
export async function bumpAuthEpoch(): Promise<void> {
  if (redis.status !== "ready") {
    logger.warn("auth epoch not bumped: Redis not connected (processes read keys from PostgreSQL meanwhile)");
    return;
  }
  try {
    await withTimeout(redis.incr(redisKeys.authEpoch()), REDIS_TIMEOUT_MS);
  } catch (err) {
    // Without Redis every process falls back to reading PostgreSQL on each request (see readEpoch)
    logger.warn({ err }, "could not bump auth epoch");
  }
}

// Requests of one event-loop turn (of a few, under steady traffic: REDIS_PIPELINE_BUSY_WAIT_MS) share one GET
// of the epoch, sent in that pipeline with their rate-limit takes (runtime/tick-pipeline.ts). A caller joins
// only a read not yet sent, so the read always starts after the caller asked: a revocation whose bump
// completed before is always seen.
const epochTick = tickPipeline(redis);
epochTick.setBusyLinger(() => config.redisPipelineBusyWaitMs);
let sharedEpoch: { generation: number; read: Promise<string | null> } | null = null;
function getEpoch(): Promise<string | null> {
  if (sharedEpoch && sharedEpoch.generation === epochTick.generation) return sharedEpoch.read;
  const read = epochTick.call<string | null>((p) => void p.get(redisKeys.authEpoch()));
  read.catch(() => {});
  sharedEpoch = { generation: epochTick.generation, read };
  return read;
}

/** The current epoch, or undefined when Redis does not answer (then nothing is trusted from cache). */
export async function readEpoch(): Promise<string | null | undefined> {
  // not connected: answer at once rather than queue behind ioredis's reconnect attempts
  if (Date.now() < redisDownUntil || redis.status !== "ready") return undefined;
  try {
    const epoch = await withTimeout(getEpoch(), REDIS_TIMEOUT_MS);
    if (epoch !== null) return epoch;
    // A missing counter (first start, or Redis lost its data) starts at a random value, so no
    // entry cached under an earlier counter can match it by chance.
    await withTimeout(redis.set(redisKeys.authEpoch(), String(Math.floor(Math.random() * 1e15)), "NX"), REDIS_TIMEOUT_MS);
    return await withTimeout(redis.get(redisKeys.authEpoch()), REDIS_TIMEOUT_MS);
  } catch (err) {
    redisDownUntil = Date.now() + 1000;
    logger.warn({ err }, "auth epoch unreadable; reading keys from PostgreSQL");
    return undefined;
  }
}

export class EpochCache<T> {
  private map = new Map<string, CacheEntry<T>>();
  get(k: string, epoch: string | null | undefined): T | undefined {
    const e = this.map.get(k);
    if (!e) return undefined;
    if (epoch === undefined || e.epoch !== epoch || Date.now() - e.at > CACHE_TTL_MS) {
      this.map.delete(k);
      return undefined;
    }
    return e.value;
  }
  peek(k: string): T | undefined {
    const e = this.map.get(k);
    return e && Date.now() - e.at <= CACHE_TTL_MS ? e.value : undefined;
  }
  set(k: string, value: T, epoch: string | null | undefined): void {
    if (epoch === undefined) return;
    if (this.map.size >= CACHE_MAX) this.map.clear();
    this.map.set(k, { value, epoch, at: Date.now() });
  }
  clear() {
    this.map.clear();
  }
}

export const keyCache = new EpochCache<CachedKey>();

/** Row for a key hash, from cache when the epoch still matches. `epoch` must be read BEFORE the row. */
export async function lookupKey(hash: string, epoch: string | null | undefined): Promise<CachedKey | undefined> {
  const hit = keyCache.get(hash, epoch);
  if (hit) return hit;
  const row = await findKeyByHash(sql, hash);
  if (row) keyCache.set(hash, row, epoch);
  return row;
}

/**
 * The key a raw Bearer value names if it authenticates now: well-formed, known, not revoked, not
 * past its expiry (a rotation's grace period); `key` is null otherwise. With the epoch it was read at.
 */
/** `hash`: hashKey(raw), when the caller has it already (the auth plugin hashed it to peek at the cache). */
export async function liveKey(raw: string, hash?: string): Promise<{ key: CachedKey | null; epoch: string | null | undefined }> {
  if (!KEY_RE.test(raw)) return { key: null, epoch: undefined };
  const epoch = await readEpoch();
  const key = await lookupKey(hash ?? hashKey(raw), epoch);
  const live = key && !key.revoked_at && !(key.expires_at && key.expires_at.getTime() <= Date.now());
  return { key: live ? key : null, epoch };
}

/** A cached row (whatever its epoch) so the caller can start its rate-limit call early. */
export function peekKey(hash: string): CachedKey | undefined {
  return keyCache.peek(hash);
}

// last_used_at: at most one UPDATE per key per minute per process, and the WHERE clause makes
// the other processes' writes within that minute no-ops.
const LAST_USED_EVERY_MS = 60_000;
const lastUsedWritten = new Map<string, number>();
const pendingTouches = new Set<Promise<unknown>>();

export function touchLastUsed(keyId: string): void {
  const now = Date.now();
  const prev = lastUsedWritten.get(keyId);
  if (prev !== undefined && now - prev < LAST_USED_EVERY_MS) return;
  if (lastUsedWritten.size >= CACHE_MAX) lastUsedWritten.clear();
  lastUsedWritten.set(keyId, now);
  const p = sql`
    update api_keys set last_used_at = now()
    where id = ${keyId} and (last_used_at is null or last_used_at < now() - interval '60 seconds')`
    .then(() => undefined)
    .catch((err) => logger.warn({ err, key_id: keyId }, "could not record last_used_at"))
    .finally(() => pendingTouches.delete(p));
  pendingTouches.add(p);
}

/** Waits for last_used_at writes in flight (graceful shutdown, tests). */
export async function flushLastUsed(): Promise<void> {
  await Promise.all([...pendingTouches]);
}
