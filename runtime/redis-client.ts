// The one place an ioredis client is built from a Redis URL: a single Redis (redis://, rediss://) or a
// Redis Cluster (redis+cluster://h1:p1,h2:p2, rediss+cluster:// with TLS). The runtime and the store both use it.
import dc from "node:diagnostics_channel";
import Redis, { Cluster, type ClusterOptions, type RedisOptions } from "ioredis";

/**
 * Bun's TracingChannel has no `hasSubscribers` (Node's has), and ioredis 6 reads anything but
 * `false` as "someone listens": it traced every command (its arguments sanitised into strings, a
 * wrapper promise through diagnostics_channel): 10-20% of the CPU of a loop of auto-pipelined SETs,
 * about 1% of a broadcast's workflow-run and sender samples. The getter answers as Node's does:
 * whether any of its channels has a subscriber.
 */
export function patchTracingChannel(): void {
  const proto = Object.getPrototypeOf(dc.tracingChannel("nms:probe")) as object | null;
  if (!proto || "hasSubscribers" in proto) return;
  Object.defineProperty(proto, "hasSubscribers", {
    configurable: true,
    get(this: Record<string, { hasSubscribers?: boolean } | undefined>) {
      return ["start", "end", "asyncStart", "asyncEnd", "error"].some((k) => this[k]?.hasSubscribers === true);
    },
  });
}
patchTracingChannel();

/** Either kind of client; code that must act differently on a cluster asks isCluster(). */
export type RedisClient = Redis | Cluster;

export interface ClusterTarget {
  nodes: { host: string; port: number }[];
  username?: string;
  password?: string;
  tls: boolean;
}

const CLUSTER_SCHEMES = /^(rediss?)\+cluster:\/\//i;

/**
 * Parses `redis+cluster://[user:password@]host1:port1,host2:port2[,...]` (a path or query is not
 * allowed: a cluster has only database 0). The nodes are start-up nodes: the client learns the
 * others from them. null when the URL names a single Redis.
 */
export function parseClusterUrl(url: string): ClusterTarget | null {
  const scheme = CLUSTER_SCHEMES.exec(url);
  if (!scheme) return null;
  let rest = url.slice(scheme[0].length);
  let username: string | undefined;
  let password: string | undefined;
  const at = rest.lastIndexOf("@");
  if (at >= 0) {
    const auth = rest.slice(0, at);
    rest = rest.slice(at + 1);
    const colon = auth.indexOf(":");
    username = decodeURIComponent(colon >= 0 ? auth.slice(0, colon) : auth) || undefined;
    password = colon >= 0 ? decodeURIComponent(auth.slice(colon + 1)) : undefined;
  }
  rest = rest.replace(/\/+$/, "");
  if (/[/?#]/.test(rest)) throw new Error(`Redis cluster URL takes no database, path or options: ${redact(url)}`);
  const nodes = rest.split(",").map((part) => {
    const m = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(part.trim());
    if (!m) throw new Error(`Redis cluster URL: "${part}" is not host:port (${redact(url)})`);
    return { host: m[1]!.replace(/^\[|\]$/g, ""), port: m[2] ? Number(m[2]) : 6379 };
  });
  if (!nodes.length || !nodes[0]!.host) throw new Error(`Redis cluster URL names no node: ${redact(url)}`);
  return { nodes, username, password, tls: scheme[1]!.toLowerCase() === "rediss" };
}

/** The URL with its password replaced, for error messages and logs. */
export function redact(url: string): string {
  return url.replace(/\/\/([^:@/]*):[^@/]*@/, "//$1:***@");
}

/** The options both kinds of client take; the factory maps them onto each. */
export interface RedisClientOptions {
  /** null: retry a command until the connection comes back (the runtime); a number: fail after that many reconnects. */
  maxRetriesPerRequest?: number | null;
  enableAutoPipelining?: boolean;
  enableOfflineQueue?: boolean;
  lazyConnect?: boolean;
  /** Cluster only: one subscriber connection per master for SSUBSCRIBE (sharded pub/sub). */
  shardedSubscribers?: boolean;
}

/**
 * How a cluster client rides out a failover: a command whose node is gone (or that meets
 * CLUSTERDOWN/TRYAGAIN while a replica takes over) is retried every 200 ms, up to 25 times (~5 s),
 * re-reading the slot map on the way; past that it fails and the caller's own retry takes over.
 * The slot map is also re-read every 2 s: ioredis 6 has no default interval (its docs say 5 s), and a
 * sharded subscriber whose master became a replica is only moved to the new master by a refresh.
 */
const CLUSTER_DEFAULTS: ClusterOptions = {
  retryDelayOnFailover: 200,
  retryDelayOnClusterDown: 200,
  retryDelayOnTryAgain: 200,
  maxRedirections: 25,
  slotsRefreshTimeout: 2000,
  slotsRefreshInterval: 2000,
};

export function createRedisClient(url: string, opts: RedisClientOptions = {}): RedisClient {
  const { shardedSubscribers, ...common } = opts;
  const target = parseClusterUrl(url);
  if (!target) return new Redis(url, common satisfies RedisOptions);
  const { maxRetriesPerRequest, enableAutoPipelining, enableOfflineQueue, lazyConnect } = common;
  return new Cluster(target.nodes, {
    ...CLUSTER_DEFAULTS,
    enableAutoPipelining,
    enableOfflineQueue,
    lazyConnect,
    shardedSubscribers,
    redisOptions: {
      username: target.username,
      password: target.password,
      tls: target.tls ? {} : undefined,
      maxRetriesPerRequest,
    },
  });
}

export function isCluster(redis: RedisClient): redis is Cluster {
  return (redis as Cluster).isCluster === true;
}

/**
 * The part of a key that picks its cluster slot (Redis Cluster spec): the text between the first
 * `{` and the next `}` when that is not empty, else the whole key. Keys with equal tags share a slot.
 */
export function hashTagOf(key: string): string {
  const open = key.indexOf("{");
  if (open < 0) return key;
  const close = key.indexOf("}", open + 1);
  if (close < 0 || close === open + 1) return key;
  return key.slice(open + 1, close);
}

/** Resolves once a cluster client knows its slot map (a single Redis needs nothing). */
export function clusterReady(redis: RedisClient): Promise<void> {
  if (!isCluster(redis) || (redis.status === "ready" && redis.slots.length)) return Promise.resolve();
  return new Promise((resolve, reject) => redis.delayUntilReady((err) => (err ? reject(err) : resolve())));
}

/**
 * Keys matching a SCAN pattern, a batch at a time: on a cluster every master is scanned (SCAN
 * only sees the node it runs on). For tools and tests; nothing on a hot path scans.
 */
export async function* scanKeys(redis: RedisClient, match: string, count = 1000): AsyncGenerator<string[]> {
  for (const node of isCluster(redis) ? redis.nodes("master") : [redis]) {
    let cursor = "0";
    do {
      const [next, keys] = await node.scan(cursor, "MATCH", match, "COUNT", count);
      cursor = next;
      if (keys.length) yield keys;
    } while (cursor !== "0");
  }
}
