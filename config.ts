// Process configuration: every environment variable of DESIGN.md section 8, read once.
// Development fills secrets it can generate; production refuses to start without them.
import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { isIP } from "node:net";
import { join } from "node:path";

function env(name: string): string | undefined {
  const v = process.env[name];
  return v === undefined || v === "" ? undefined : v;
}

function numberEnv(name: string, fallback: number): number {
  const raw = env(name);
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n)) throw new Error(`${name} must be a number, got ${JSON.stringify(raw)}`);
  return n;
}

/** A wait written `<N>s`, `<N>m`, `<N>h` or a plain number of milliseconds (FALLBACK_WAIT). */
function durationEnv(name: string, fallbackMs: number): number {
  const raw = env(name);
  if (raw === undefined) return fallbackMs;
  const m = /^(\d+)(ms|s|m|h)?$/.exec(raw.trim());
  if (!m || Number(m[1]) <= 0) throw new Error(`${name} must be a positive duration such as 90s, 10m or 1h, got ${JSON.stringify(raw)}`);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(m[2] ?? "ms") as "ms" | "s" | "m" | "h"];
  return Number(m[1]) * unit;
}

const nodeEnv = env("NODE_ENV") ?? "development";
const isProduction = nodeEnv === "production";

// Development secrets are generated once and kept in .nms/dev-secrets.json, so restarts and
// every process of the Procfile agree on the admin token and can decrypt stored credentials.
// The checkout this runs from: this file's folder, or for the compiled actor binary (its modules live
// in /$bunfs, scripts/build-actors.ts) the checkout whose .nms/bin holds it.
const APP_ROOT = import.meta.dir.startsWith("/$bunfs") ? join(process.execPath, "..", "..", "..") : import.meta.dir;
const DEV_SECRETS = join(APP_ROOT, ".nms", "dev-secrets.json");
function devSecrets(): Record<string, string> {
  try {
    return JSON.parse(readFileSync(DEV_SECRETS, "utf8"));
  } catch {
    const fresh = {
      ADMIN_TOKEN: `adm_${randomBytes(24).toString("base64url")}`,
      ENCRYPTION_KEY: randomBytes(32).toString("base64"),
    };
    try {
      mkdirSync(join(APP_ROOT, ".nms"), { recursive: true });
      writeFileSync(DEV_SECRETS, JSON.stringify(fresh, null, 2), { flag: "wx", mode: 0o600 });
      return fresh;
    } catch {
      return JSON.parse(readFileSync(DEV_SECRETS, "utf8")); // another process won the race
    }
  }
}

function secret(name: string): { value: string; generated: boolean } {
  const v = env(name);
  if (v) return { value: v, generated: false };
  if (isProduction) throw new Error(`${name} is required when NODE_ENV=production`);
  return { value: devSecrets()[name]!, generated: true };
}

const adminToken = secret("ADMIN_TOKEN");
const encryptionKeyRaw = secret("ENCRYPTION_KEY");
const encryptionKey = Buffer.from(encryptionKeyRaw.value, "base64");
if (encryptionKey.length !== 32) throw new Error("ENCRYPTION_KEY must be 32 bytes, base64-encoded");

/**
 * DNS_SERVERS: comma-separated resolvers as node:dns setServers takes them: `1.2.3.4`,
 * `1.2.3.4:5353`, `2001:db8::1` or `[2001:db8::1]:5353` (addresses only, no host names). Empty:
 * the system's resolvers.
 */
function dnsServerList(raw: string | undefined): string[] {
  const list = (raw ?? "").split(",").map((s) => s.trim()).filter(Boolean);
  for (const s of list) {
    const m = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(s) ?? /^([\d.]+)(?::(\d{1,5}))?$/.exec(s) ?? [s, s, undefined];
    const portOk = m[2] === undefined || (Number(m[2]) >= 1 && Number(m[2]) <= 65535);
    if (!isIP(m[1]!) || !portOk) throw new Error(`DNS_SERVERS entry ${JSON.stringify(s)} must be an IP address, optionally with :port (IPv6 in brackets then)`);
  }
  return list;
}

dnsServerList(env("DNS_SERVERS")); // a bad entry stops the start, not the first domain check

const port = numberEnv("PORT", 3000);
const appUrl = env("APP_URL") ?? `http://localhost:${port}`;

export type OAuthProviderName = "google" | "github";

/** Client credentials and endpoints of one OAuth provider; null while its client id or secret is unset. */
export interface OAuthProviderSettings {
  clientId: string;
  clientSecret: string;
  authUrl: string;
  tokenUrl: string;
  userinfoUrl: string;
  /** GitHub lists private addresses at /user/emails */
  emailsUrl?: string;
}

const OAUTH_DEFAULTS: Record<OAuthProviderName, { authUrl: string; tokenUrl: string; userinfoUrl: string; emailsUrl?: string }> = {
  google: {
    authUrl: "https://accounts.google.com/o/oauth2/v2/auth",
    tokenUrl: "https://oauth2.googleapis.com/token",
    userinfoUrl: "https://openidconnect.googleapis.com/v1/userinfo",
  },
  github: {
    authUrl: "https://github.com/login/oauth/authorize",
    tokenUrl: "https://github.com/login/oauth/access_token",
    userinfoUrl: "https://api.github.com/user",
    emailsUrl: "https://api.github.com/user/emails",
  },
};

/**
 * GOOGLE_* / GITHUB_* (CLIENT_ID, CLIENT_SECRET, AUTH_URL, TOKEN_URL, USERINFO_URL, EMAILS_URL).
 * Read when a sign-in starts rather than once at start-up: the OAuth test points them at a local
 * server from inside a running process.
 */
function oauthProvider(name: OAuthProviderName): OAuthProviderSettings | null {
  const P = name.toUpperCase();
  const clientId = env(`${P}_CLIENT_ID`);
  const clientSecret = env(`${P}_CLIENT_SECRET`);
  if (!clientId || !clientSecret) return null;
  const d = OAUTH_DEFAULTS[name];
  const out: OAuthProviderSettings = {
    clientId,
    clientSecret,
    authUrl: env(`${P}_AUTH_URL`) ?? d.authUrl,
    tokenUrl: env(`${P}_TOKEN_URL`) ?? d.tokenUrl,
    userinfoUrl: env(`${P}_USERINFO_URL`) ?? d.userinfoUrl,
  };
  if (d.emailsUrl) out.emailsUrl = env(`${P}_EMAILS_URL`) ?? d.emailsUrl;
  return out;
}

/** SENDER_CONCURRENCY, read before the config object: SENDER_BUSY_THRESHOLD's default is 16 below it. */
const senderConcurrency = Math.max(1, numberEnv("SENDER_CONCURRENCY", 600) || 600);
const senderBusyDefault = Math.max(1, senderConcurrency - 16);

export const config = {
  nodeEnv,
  isProduction,
  port,
  databaseUrl: env("DATABASE_URL") ?? "postgres://postgres@127.0.0.1:5432/nms",
  databasePoolSize: numberEnv("DATABASE_POOL_SIZE", 20),
  /** A streaming replica for list, detail and analytics reads (store/replica.ts); unset: every read goes to DATABASE_URL. */
  databaseReadUrl: env("DATABASE_READ_URL"),
  /** Replica lag above this sends those reads back to the primary (milliseconds). */
  replicaMaxLagMs: Math.max(0, numberEnv("REPLICA_MAX_LAG_MS", 2000)),
  /**
   * A single Redis (`redis://`, `rediss://`) or a Redis Cluster: `redis+cluster://[user:pass@]host1:port1,host2:port2`
   * (`rediss+cluster://` for TLS), parsed by runtime/redis-client.ts; see docs/operations.md "Redis Cluster".
   */
  redisUrl: env("REDIS_URL") ?? "redis://127.0.0.1:6379",
  redisPrefix: env("REDIS_PREFIX") ?? "nms",
  adminToken: adminToken.value,
  adminTokenGenerated: adminToken.generated,
  encryptionKey,
  encryptionKeyId: env("ENCRYPTION_KEY_ID") ?? "k1",
  encryptionKeyGenerated: encryptionKeyRaw.generated,
  /** "old1:<base64>,old2:<base64>": retired keys that still decrypt (store/cipher.ts parses it) */
  encryptionKeysOld: env("ENCRYPTION_KEYS_OLD"),
  appUrl,
  publicUrl: env("PUBLIC_URL") ?? `http://localhost:${port}`,
  smtpUrl: env("SMTP_URL"),
  /** From: of the system mail (sign-in links, invitations) */
  systemMailFrom: env("SYSTEM_MAIL_FROM") ?? `NMS <no-reply@${new URL(appUrl).hostname}>`,
  oauthProvider,
  timeScale: numberEnv("TIME_SCALE", 1),
  /** resident memory (MB) past which a bulk request ends with a full collection (basics/memory-ceiling.ts); 0: never */
  memorySoftLimitMb: Math.max(0, numberEnv("MEMORY_SOFT_LIMIT_MB", 160)),
  /** how much the RSS must grow past a collection that could not get under the limit before the next one */
  memoryHeadroomMb: Math.max(8, numberEnv("MEMORY_HEADROOM_MB", 48)),
  partitions: numberEnv("PARTITIONS", 16),
  /** Members a broadcast's fan-out reads per page, each page one transaction with its runs and cursor (docs/topics.md). */
  broadcastPageSize: numberEnv("BROADCAST_PAGE_SIZE", 1000),
  rateLimitPerMinute: numberEnv("RATE_LIMIT_PER_MINUTE", 6000),
  webhookAllowPrivate: env("WEBHOOK_ALLOW_PRIVATE") === "true",
  /** Requests one webhook may have in flight per webhook-dispatcher process (actors/webhook-dispatcher.ts). */
  webhookConcurrency: Math.max(1, numberEnv("WEBHOOK_CONCURRENCY", 16) || 16),
  /** A webhook whose every delivery failed for this long is deactivated (docs/webhooks.md); not scaled by TIME_SCALE. */
  webhookDisableAfterHours: numberEnv("WEBHOOK_DISABLE_AFTER_HOURS", 120),
  /**
   * Read at each use (checked once at start-up below), like the OAuth endpoints: the domain tests
   * point it at a local DNS server on a random port from inside a running process.
   */
  get dnsServers(): string[] {
    return dnsServerList(env("DNS_SERVERS"));
  },
  /** Deadline of one DNS query of the sending-domain checks (domain/dns/lookup.ts). */
  dnsTimeoutMs: Math.max(100, numberEnv("DNS_TIMEOUT_MS", 3000) || 3000),
  /** The include: a sending domain's SPF record must carry (docs/domains.md); empty: any SPF record passes. Read at each use, as dnsServers. */
  get spfInclude(): string {
    return (env("SPF_INCLUDE") ?? "").trim().toLowerCase().replace(/^include:/, "");
  },
  /** When the domain-health actor checks every verified domain (node-cron syntax, UTC); daily at 04:00 by default. */
  domainHealthCron: env("DOMAIN_HEALTH_CRON") ?? "0 4 * * *",
  /** Tests keep their output quiet unless they ask for a level. */
  logLevel: env("LOG_LEVEL") ?? (nodeEnv === "test" ? "warn" : "info"),
  trustProxy: (env("TRUST_PROXY") ?? "").split(",").map((s) => s.trim()).filter(Boolean),
  /** Micro-batching of accepted notifications (domain/notifications/accept.ts): rows per commit, wait, batches at once. */
  acceptBatch: {
    size: numberEnv("ACCEPT_BATCH_SIZE", 200),
    waitMs: numberEnv("ACCEPT_BATCH_WAIT_MS", 2),
    concurrency: numberEnv("ACCEPT_BATCH_CONCURRENCY", 2),
    /** the wait under steady traffic (store/micro-batcher.ts busyWaitMs): the first accept after a quiet spell still waits waitMs */
    busyWaitMs: numberEnv("ACCEPT_BATCH_BUSY_WAIT_MS", 4),
    /**
     * The accept path's first batched statement, the subscriber look-up (store/subscribers.ts): its wait under
     * steady traffic. The requests of one look-up reach the insert batch together, so it is this wait that
     * fills the insert's batches (the insert's own busyWaitMs serves the requests without a look-up: in_app).
     */
    lookupBusyWaitMs: numberEnv("SUBSCRIBER_LOOKUP_BUSY_WAIT_MS", 12),
  },
  /**
   * The wait of a send's first batched statement, the claim, under steady traffic (store/micro-batcher.ts
   * busyWaitMs); after a quiet spell it goes after 1 ms. The claims of one batch reach the suppression
   * check together, so that check does not wait again.
   */
  deliveryBatchBusyWaitMs: numberEnv("DELIVERY_BATCH_BUSY_WAIT_MS", 25),
  /**
   * Claims gathered at which a waiting claim batch goes without waiting out DELIVERY_BATCH_BUSY_WAIT_MS: at a few
   * hundred sends a second the wait fills the batch; at thousands a batch this size gathers in a few ms, and each
   * send's serial lane (SENDER_SHARDS) is free again that much sooner.
   */
  deliveryBatchStartAt: Math.max(1, numberEnv("DELIVERY_BATCH_START_AT", 64) || 64),
  /** The outcome batch's wait under steady traffic: provider calls of one claim batch end at different times. */
  outcomeBatchBusyWaitMs: numberEnv("OUTCOME_BATCH_BUSY_WAIT_MS", 8),
  /**
   * The API's Redis pipeline (runtime/tick-pipeline.ts: every request's auth-epoch read and rate-limit take):
   * under steady traffic it waits this long for later requests' commands, so they share one socket write.
   */
  redisPipelineBusyWaitMs: numberEnv("REDIS_PIPELINE_BUSY_WAIT_MS", 2),
  /**
   * The one-process start (`npm start`, no --only) runs its actors and jobs on a thread of their own
   * (scripts/actor-thread.ts), so the API keeps the main thread: ACTOR_THREAD=false keeps them on it.
   */
  actorThread: env("ACTOR_THREAD") !== "false",
  /** Actor hosts: how long finished messages' acks gather into one XACK per partition (runtime/types.ts ackDelayMs). */
  runtimeAckDelayMs: numberEnv("RUNTIME_ACK_DELAY_MS", 10),
  /**
   * Serial lanes per (tenant, environment, channel) of the channel sender (domain/delivery/channel-sender-mail.ts).
   * A lane sends one message at a time, each taking its claim's and outcome's batch waits (~40-60 ms), so one
   * tenant's channel drains at most lanes / that latency per process: 256 lanes held it near 1,200/s under a backlog.
   */
  senderShards: numberEnv("SENDER_SHARDS", 1024),
  /**
   * Handler slots of the channel sender's normal and high lanes' hosts in one process (actors/index.ts). A send is
   * mostly waiting (batched statements, the provider), so slots, not CPU, bounded delivery: 200 held a backlog near
   * 3,300/s with a core idle (docs/operations.md, "Slots and lanes, not CPU").
   */
  senderConcurrency,
  /** In-flight sends one tenant may hold in a busy process (actors/channel-sender.ts). */
  senderTenantConcurrency: Math.max(1, numberEnv("SENDER_TENANT_CONCURRENCY", 64) || 64),
  /**
   * The priority lanes a channel-sender process reads (docs/routing.md): `high,normal,low` by default;
   * a pool of processes with `high` alone gives high-priority sends CPU of their own.
   */
  senderLanes: (env("SENDER_LANES") ?? "high,normal,low").split(",").map((s) => s.trim()).filter((s) => s === "high" || s === "normal" || s === "low") as ("high" | "normal" | "low")[],
  /** Handler slots of the low-priority lane's host in a sender process (actors/channel-sender.ts; docs/routing.md). */
  senderLowConcurrency: Math.max(1, numberEnv("SENDER_LOW_CONCURRENCY", 64) || 64),
  /** In-flight sends past which a process counts as busy and tenant shares apply: 16 below SENDER_CONCURRENCY unless set. */
  senderBusyThreshold: Math.max(1, numberEnv("SENDER_BUSY_THRESHOLD", senderBusyDefault) || senderBusyDefault),
  /** How long a workflow fallback step waits for a final status before treating it as not delivered (TIME_SCALE applies). */
  fallbackWaitMs: durationEnv("FALLBACK_WAIT", 10 * 60_000),
  /** Secure cookies everywhere but local development and tests, which run over plain http. */
  get secureCookies(): boolean {
    return this.nodeEnv !== "development" && this.nodeEnv !== "test";
  },
  /**
   * Providers may call plain-http endpoints (Web Push endpoints come from tenants) outside
   * production, where local push services and test fakes listen on http; production takes https only.
   */
  get allowHttpProviderEndpoints(): boolean {
    return this.nodeEnv !== "production";
  },
  /**
   * SES receipts arrive as SNS messages whose signing certificate must come from
   * https://sns.<region>.amazonaws.com; tests (NODE_ENV=test only) may serve it from 127.0.0.1.
   */
  get allowLocalSnsCertificates(): boolean {
    return this.nodeEnv === "test";
  },
  /**
   * Requests through app.handle() have no socket: under NODE_ENV=test the X-Test-Client-Ip header
   * stands in for the peer address (never elsewhere, where it would let a client pick its IP).
   */
  get trustTestClientIpHeader(): boolean {
    return this.nodeEnv === "test";
  },
  /**
   * The channel sender's bound on one provider call; a claimed attempt without an outcome is called
   * lost (outcome_unknown) this long plus a margin (this value, 5-15 s) after its claim. Lower it only
   * together with the providers' own timeouts (settings.timeout_ms); the chaos check uses 2 s.
   */
  senderProviderDeadlineMs: Math.max(100, numberEnv("SENDER_PROVIDER_DEADLINE_MS", 15_000)),
  /**
   * The circuit breaker of every configured provider entry (docs/routing.md): wall-clock values,
   * TIME_SCALE never shortens them. It opens after `consecutiveFailures` failures in a row, or when
   * more than `errorRate` of at least `minCalls` calls in `windowMs` failed; `cooldownMs` after
   * opening one probe call half-opens it (a probe unanswered for `probeTimeoutMs` lets another try).
   */
  circuit: {
    consecutiveFailures: Math.max(1, numberEnv("CIRCUIT_CONSECUTIVE_FAILURES", 5)),
    errorRate: Math.min(1, Math.max(0, numberEnv("CIRCUIT_ERROR_RATE", 0.5))),
    minCalls: Math.max(1, numberEnv("CIRCUIT_MIN_CALLS", 20)),
    windowMs: durationEnv("CIRCUIT_WINDOW", 30_000),
    cooldownMs: durationEnv("CIRCUIT_COOLDOWN", 30_000),
    probeTimeoutMs: durationEnv("CIRCUIT_PROBE_TIMEOUT", 20_000),
  },
  /** How long POST /v1/channels/:channel/test waits for its test notification's first attempt. */
  channelTestWaitMs: Math.max(100, numberEnv("CHANNEL_TEST_WAIT_MS", 15_000)),
  /** A pending notification untouched this long (and not waiting for a retry) is re-enqueued by the reconciler. */
  reconcilerStaleAfterMs: Math.max(1000, numberEnv("RECONCILER_STALE_AFTER_MS", 60_000)),
  /** How often the reconciler scans (one process at a time, under its lease). */
  reconcilerEveryMs: Math.max(100, numberEnv("RECONCILER_EVERY_MS", 15_000)),
  /** A listener of its own for GET /metrics (actor processes have no other HTTP port; 0 = any free port); unset: none. The API always serves /metrics on PORT. */
  metricsPort: env("METRICS_PORT") === undefined ? undefined : numberEnv("METRICS_PORT", 0),
  /** When set, GET /metrics wants Authorization: Bearer <METRICS_TOKEN>. */
  metricsToken: env("METRICS_TOKEN"),
  /** Retention and tenant offboarding (docs/operations.md#retention). */
  lifecycle: {
    /** How often the retention job sweeps expired history (one process at a time, under the lease `retention`). */
    retentionEveryMs: durationEnv("RETENTION_EVERY", 10 * 60_000),
    /** How often the partition job creates the history tables' day partitions ahead and drops expired days (lease `partitions`). */
    partitionEveryMs: durationEnv("PARTITION_EVERY", 60 * 60_000),
    /** How often the table-statistics job looks for tables to ANALYZE when PostgreSQL's autovacuum is off (lease `table-stats`). */
    tableStatsEveryMs: durationEnv("TABLE_STATS_EVERY", 60_000),
    /** Day partitions kept ready ahead of today (UTC). */
    partitionAheadDays: Math.max(1, numberEnv("PARTITION_AHEAD_DAYS", 7)),
    /** A partition create or drop waits at most this long for its lock, then tries again at the next run. */
    partitionLockTimeoutMs: Math.max(50, numberEnv("PARTITION_LOCK_TIMEOUT_MS", 1000)),
    /** Rows one DELETE of the retention sweep or of an offboarding removes (each batch is its own short transaction). */
    batchRows: Math.max(1, numberEnv("RETENTION_BATCH_ROWS", 1000)),
    /** A pause between two batches, so replicas and vacuum keep up with a long removal (0 = none). */
    batchPauseMs: Math.max(0, numberEnv("RETENTION_BATCH_PAUSE_MS", 5)),
    /** ...and at least this many times what the batch took: a removal that finds the disk slow backs off (0 = the fixed pause only). */
    batchPauseRatio: Math.max(0, numberEnv("RETENTION_BATCH_PAUSE_RATIO", 1)),
    /** A running offboarding whose progress has not moved for this long is resumed by the retention job (its process died). */
    offboardingStaleMs: durationEnv("OFFBOARDING_STALE_AFTER", 30_000),
  },
  /** Plans, quotas and subscriptions (docs/billing.md). */
  billing: {
    /** The plan of a tenant without a subscription, and of one whose subscription was cancelled or expired. */
    defaultPlan: env("BILLING_DEFAULT_PLAN") ?? "free",
    /** Days a past_due subscription keeps its plan before the billing cron expires it. */
    graceDays: Math.max(0, numberEnv("BILLING_GRACE_DAYS", 7)),
    /** How often the billing cron runs (expiry, manual period roll, quota reservations left by dead processes). */
    cronEveryMs: durationEnv("BILLING_CRON_EVERY", 60_000),
    /** How long a process trusts its copy of a tenant's plan and subscription (other processes see a change within this). */
    cacheMs: Math.max(0, numberEnv("BILLING_CACHE_MS", 2000)),
    /**
     * Stripe (the gateway of paid plans when STRIPE_SECRET_KEY is set; without it every subscription is
     * `manual`). Read at each use, like the OAuth endpoints: the tests point STRIPE_API_BASE at a local fake.
     */
    get stripe(): { secretKey: string; webhookSecret: string | undefined; apiBase: string | undefined } | null {
      const secretKey = env("STRIPE_SECRET_KEY");
      if (!secretKey) return null;
      return { secretKey, webhookSecret: env("STRIPE_WEBHOOK_SECRET"), apiBase: env("STRIPE_API_BASE") };
    },
    /** Stripe's webhook secret alone: events can be received while API calls are configured elsewhere. */
    get stripeWebhookSecret(): string | undefined {
      return env("STRIPE_WEBHOOK_SECRET");
    },
  },
  version: "0.1.0",
};

export type Config = typeof config;
