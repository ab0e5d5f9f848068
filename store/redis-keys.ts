// Every Redis key and pub/sub channel the service uses outside the actor runtime, built here and only here
// (runtime/keys.ts names the runtime's own: streams, timers, leases, the reconciler's `nms:lease:{reconciler}`,
// the domain-health cron's `nms:lease:{domain-health:tick:<tick ISO time>}`, one per tick, expiring after an hour,
// the webhook repair scan's `nms:lease:{webhook-repair}`, 30 s renewed at each scan).
//
// Each entry names its owner (the module that writes it), its lifetime, and the redis-cli command
// that reads it; docs/runtime.md links this file. On Redis Cluster every command here names one key
// (its slot is its own), and the channels are sharded (SPUBLISH/SSUBSCRIBE, store/pubsub.ts): a new
// key used with another in one command or script needs a shared hash tag `{...}`, as the runtime's
// partition keys have. Keys start with REDIS_PREFIX; with the production `nms`:
//
// | key                                       | type    | owner                            | lifetime                                   |
// |-------------------------------------------|---------|----------------------------------|--------------------------------------------|
// | nms:auth:epoch                            | string  | store/api-keys.ts                | none (a counter; recreated when lost)      |
// | nms:idem:<tenant>:<sha256>                | string  | store/idempotency.ts             | 120 s while in flight, then 24 h           |
// | nms:inbox:<tenant>:<env>:<subscriber id>  | channel | domain/inbox/inbox.ts            | pub/sub: nothing stored                    |
// | nms:blocked-domains:version               | string  | store/blocked-domains.ts         | none (a counter)                           |
// | nms:blocked-domains:changed               | channel | store/blocked-domains.ts         | pub/sub: nothing stored                    |
// | nms:oauth-state:<state>                   | string  | http/routes/auth-session.ts      | 600 s, deleted when used (GETDEL)          |
// | nms:rl:http:key:<key id>[:sub:<hash>]     | string  | http/plugins/rate-limit.ts       | until the GCRA bucket is full again        |
// | nms:rl:http:user:<user id>                | string  | http/plugins/rate-limit.ts       | until the GCRA bucket is full again        |
// | nms:rl:provider:<tenant>:<env>:<provider> | string  | domain/delivery/send-attempt.ts  | until the GCRA bucket is full again        |
// | nms:rl:domain-health-check:<domain id>    | string  | domain/sending-domains/health.ts | until the GCRA bucket is full again (60 s) |
// | <bench prefix>:floor:stream               | stream  | scripts/bench-accept.ts          | the bench run (it deletes its prefix)      |
// | nms:quota:{<tenant>:<start ms>:<v>}:used  | string  | store/quota-counters.ts          | period end + 7 days                        |
// | nms:quota:{<tenant>:<start ms>:<v>}:inflight | zset  | store/quota-counters.ts          | period end + 7 days                        |
// | nms:quota:counters                        | set     | store/quota-counters.ts          | none (members removed by the billing cron) |
// | nms:ryw:<key id or user id>               | string  | store/replica.ts                 | 60 s after the caller's last write         |
// | nms:fcap:<tenant>:<env>:<who>:<channel>   | zset    | store/frequency-caps.ts          | the longest cap window after the last send |
// | nms:circuit:<tenant>:<env>:<channel>:<entry> | hash | store/circuits.ts (domain/routing/) | 1 day after its last call (a closed circuit forgets) |
import { config } from "../config";

/** `<prefix>:<part>:<part>...`: the builders below use it; tests use it to name keys they inspect. */
export function redisKey(...parts: (string | number)[]): string {
  return [config.redisPrefix, ...parts].join(":");
}

export const redisKeys = {
  /**
   * Auth cache epoch, INCR'd after every revocation, rotation or origin/settings change; each
   * request reads it with its rate-limit call, and cached key rows of another epoch are dropped.
   * `redis-cli GET nms:auth:epoch`
   */
  authEpoch: () => redisKey("auth", "epoch"),

  /**
   * The primary's WAL position after a caller's last write (only with DATABASE_READ_URL): the caller's
   * reads go to the primary until the replica has replayed it (read your writes). 60 s.
   * `redis-cli GET nms:ryw:<api key id>`
   */
  lastWrite: (caller: string) => redisKey("ryw", caller),

  /**
   * Idempotency record of one (tenant, environment, method, path, Idempotency-Key), the digest
   * being SHA-256 of those five: {s: "p"|"c", h, t} while the first request runs, then the stored
   * response {s: "d", h, st, b, hd}.
   * `redis-cli GET nms:idem:<tenant>:<sha256>` · a tenant's: `redis-cli --scan --pattern 'nms:idem:<tenant>:*'`
   */
  idempotency: (tenantId: string, digest: string) => redisKey("idem", tenantId, digest),

  /**
   * Pub/sub channel of one subscriber's inbox.* events ({id, type, created_at, data} JSON); every
   * API process with a live stream for the subscriber is subscribed.
   * `redis-cli SUBSCRIBE nms:inbox:<tenant>:<env>:<subscriber id>` · listeners: `redis-cli PUBSUB NUMSUB <channel>`
   * (on a cluster: `redis-cli -c SSUBSCRIBE ...` and `PUBSUB SHARDNUMSUB <channel>` on the channel's master)
   */
  inboxEvents: (tenantId: string, environment: string, subscriberId: string) => redisKey("inbox", tenantId, environment, subscriberId),

  /**
   * Blocklist version, INCR'd on every admin change; processes poll it every 2 s as a fallback
   * to the channel below. `redis-cli GET nms:blocked-domains:version`
   */
  blockedDomainsVersion: () => redisKey("blocked-domains", "version"),

  /** Pub/sub: a message makes every process reload the blocklist now. `redis-cli SUBSCRIBE nms:blocked-domains:changed` (cluster: `SSUBSCRIBE`) */
  blockedDomainsChanged: () => redisKey("blocked-domains", "changed"),

  /**
   * OAuth sign-in in progress: {provider, verifier} (PKCE) under the state sent to the provider.
   * `redis-cli GET nms:oauth-state:<state>` · `redis-cli TTL nms:oauth-state:<state>`
   */
  oauthState: (state: string) => redisKey("oauth-state", state),

  /**
   * The accept benchmark's floor server XADDs here (one entry per request, never read): the cost of
   * one XADD beside ours. Only under the bench's own REDIS_PREFIX, deleted with it at the end.
   * `redis-cli XLEN <bench prefix>:floor:stream`
   */
  benchFloorStream: () => redisKey("floor", "stream"),

  /**
   * The circuit breaker of one configured provider entry of a channel (docs/routing.md): a hash of
   * state (closed|open|half_open), fails (failures in a row), opened_at and probe_until (epoch ms,
   * Redis clock), wstart/wcalls/werrs (the error-rate window), last_error, provider. Changed only by the
   * three transition scripts of store/circuits.ts; `entry` is the channel configuration id for the
   * primary provider, the failover entry's id for a backup.
   * `redis-cli HGETALL nms:circuit:<tenant>:<env>:<channel>:<entry>` ·
   * every circuit of a tenant: `redis-cli --scan --pattern 'nms:circuit:<tenant>:*'`
   */
  circuit: (tenantId: string, environment: string, channel: string, entryId: string) => redisKey("circuit", tenantId, environment, channel, entryId),

  /**
   * A tenant's production notifications of one billing period (committed and in flight), under one
   * version of its limits (`<plan>.<plan version>.<subscription revision>`); seeded from PostgreSQL,
   * changed only by store/lua/quotaReserve-2.lua and quotaSettle-2.lua. The hash tag keeps it in
   * the slot of its in-flight set. `redis-cli GET 'nms:quota:{<tenant>:<start ms>:<v>}:used'`
   */
  quotaUsed: (tenantId: string, periodStartMs: number, version: string) => redisKey("quota", `{${tenantId}:${periodStartMs}:${version}}`, "used"),

  /**
   * Open reservations of that counter: notification id -> reserved at (epoch ms). An entry outliving
   * its accept means the process died; the billing cron settles it from PostgreSQL.
   * `redis-cli ZRANGE 'nms:quota:{<tenant>:<start ms>:<v>}:inflight' 0 -1 WITHSCORES`
   */
  quotaInflight: (tenantId: string, periodStartMs: number, version: string) => redisKey("quota", `{${tenantId}:${periodStartMs}:${version}}`, "inflight"),

  /** The counters in use (`<tenant>|<start ms>|<end ms>|<v>`), the billing cron's work list. `redis-cli SMEMBERS nms:quota:counters` */
  quotaCounters: () => redisKey("quota", "counters"),

  /**
   * Frequency caps of the delivery policy: the sends admitted for one subscriber (or literal
   * address) and channel, notification id -> admitted at (epoch ms), trimmed to the longest window;
   * changed only by store/lua/frequencyCapAdmit-1.lua. `redis-cli ZRANGE nms:fcap:<tenant>:<env>:<subscriber id>:sms 0 -1 WITHSCORES`
   */
  frequencyCap: (tenantId: string, environment: string, who: string, channel: string) => redisKey("fcap", tenantId, environment, who, channel),
};

/**
 * Names of rate limits, passed to the runtime's limiter (runtime/rate-limiter.ts), which keeps each
 * as `<prefix>:rl:<name>` (runtime/keys.ts rateLimit): the GCRA theoretical arrival time in ms.
 * `redis-cli GET nms:rl:<name>` · `redis-cli PTTL nms:rl:<name>`
 */
export const rateLimitNames = {
  /** RATE_LIMIT_PER_MINUTE of a secret key; a publishable key gets one per subscriber (hash of the external id). */
  apiKey: (keyId: string, subscriberHash?: string) => (subscriberHash === undefined ? `http:key:${keyId}` : `http:key:${keyId}:sub:${subscriberHash}`),
  /** RATE_LIMIT_PER_MINUTE of a dashboard user. */
  user: (userId: string) => `http:user:${userId}`,
  /** settings.rate_limit_per_second of a provider for one tenant and environment. */
  provider: (tenantId: string, environment: string, provider: string) => `provider:${tenantId}:${environment}:${provider}`,
  /** POST /v1/domains/:id/health/check: one forced check per minute per domain (SPEC Limits). */
  domainHealthCheck: (domainId: string) => `domain-health-check:${domainId}`,
};
