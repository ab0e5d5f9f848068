// Read routing to the streaming replica (DATABASE_READ_URL): a read runs there only while the replica
// streams with lag under REPLICA_MAX_LAG_MS and has replayed the caller's own last write (its WAL
// position, kept in Redis for a minute); anything else, and every read not wrapped in onReplica, uses the primary.
import postgres from "postgres";
import { config } from "../config";
import { logger } from "../basics/log";
import { recordReplicaRead } from "../basics/metrics";
import { forceGenericPlans, genericPoolSize, poolApplicationName, poolOptions, sql, withReader } from "./db";
import { redis } from "./redis";
import { redisKeys } from "./redis-keys";

const STATUS_FRESH_MS = 200;
const WRITE_MEMORY_MS = 60_000;

export const replicaSql = config.databaseReadUrl
  ? postgres(config.databaseReadUrl, { ...poolOptions(config.databasePoolSize, `${poolApplicationName}-replica`), connect_timeout: 2 })
  : null;
/** The replica's generic-plan pool, for the feed's reads routed there (store/db.ts genericPlans says why); connects on first use. */
const replicaGenericPlans = config.databaseReadUrl
  ? postgres(config.databaseReadUrl, { ...poolOptions(genericPoolSize, `${poolApplicationName}-replica-generic`, forceGenericPlans), connect_timeout: 2 })
  : null;

interface ReplicaStatus {
  at: number;
  ok: boolean;
  lagMs: number;
  replayLsn: bigint;
}
let status: ReplicaStatus | null = null;
let refreshing: Promise<ReplicaStatus> | null = null;

/** "16/B374D848" -> a comparable number. */
export function lsnValue(lsn: string | null | undefined): bigint {
  if (!lsn) return 0n;
  const [hi, lo] = lsn.split("/");
  return (BigInt(`0x${hi}`) << 32n) + BigInt(`0x${lo}`);
}

async function measure(): Promise<ReplicaStatus> {
  const at = Date.now();
  try {
    const [r] = await replicaSql!`
      select pg_is_in_recovery() as standby,
             exists (select 1 from pg_stat_wal_receiver where status = 'streaming') as streaming,
             pg_last_wal_replay_lsn()::text as replay,
             case when pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() then 0
                  else coalesce(extract(epoch from now() - pg_last_xact_replay_timestamp()) * 1000, 1e9) end::float8 as lag_ms`;
    const ok = !!r && r.standby && r.streaming;
    return { at, ok, lagMs: ok ? Number(r!.lag_ms) : Infinity, replayLsn: lsnValue(r?.replay) };
  } catch (err) {
    logger.warn({ err }, "replica status unreadable; reads go to the primary");
    return { at, ok: false, lagMs: Infinity, replayLsn: 0n };
  }
}

/** The replica's state, measured at most every 200 ms (one query for all requests meanwhile). */
export async function replicaStatus(): Promise<ReplicaStatus | null> {
  if (!replicaSql) return null;
  if (status && Date.now() - status.at < STATUS_FRESH_MS) return status;
  refreshing ??= measure().then((s) => {
    status = s;
    refreshing = null;
    return s;
  });
  return refreshing;
}

export type ReadTarget = "replica" | "primary";

/** Where a read for this caller goes now (the caller: an API key id or a dashboard user id). */
export async function readTarget(caller: string | null): Promise<{ target: ReadTarget; reason: string }> {
  if (!replicaSql) return { target: "primary", reason: "no replica" };
  const s = await replicaStatus();
  if (!s || !s.ok) return { target: "primary", reason: "replica not streaming" };
  if (s.lagMs > config.replicaMaxLagMs) return { target: "primary", reason: "replica lag" };
  if (caller) {
    const own = await redis.get(redisKeys.lastWrite(caller)).catch(() => "unknown");
    // Redis unreadable: the caller's writes are unknown, so the primary answers
    if (own === "unknown") return { target: "primary", reason: "own writes unknown" };
    if (own !== null && lsnValue(own) > s.replayLsn) return { target: "primary", reason: "own write not replayed" };
  }
  return { target: "replica", reason: "replica" };
}

/**
 * Runs fn with its reads (store functions that use `reader()`, store/db.ts) on the replica when readTarget allows,
 * else on the primary. Only plain reads are wrapped: idempotency, claims, runs and every write keep the primary.
 */
export async function onReplica<T>(caller: string | null, fn: () => Promise<T>): Promise<T> {
  const { target, reason } = await readTarget(caller);
  recordReplicaRead(target, reason);
  return target === "replica" ? withReader(replicaSql!, replicaGenericPlans!, fn) : fn();
}

/**
 * After a caller's write committed: remember the primary's WAL position, so the caller's next reads
 * wait for the replica to replay it (read your writes). A no-op without a replica.
 */
export async function rememberWrite(caller: string): Promise<void> {
  if (!replicaSql) return;
  try {
    const [r] = await sql`select pg_current_wal_lsn()::text as lsn`;
    await redis.set(redisKeys.lastWrite(caller), r!.lsn, "PX", WRITE_MEMORY_MS);
  } catch (err) {
    logger.warn({ err }, "could not remember a write position; the caller may read the replica before it replays it");
  }
}

