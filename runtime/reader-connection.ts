// The connection a partition reader blocks on (XREADGROUP BLOCK would hold up every other command
// on a shared one): a duplicate of the client on a single Redis; on a cluster, a plain connection to
// the master serving the stream's slot, opened again on that slot's new master after a failover.
import Redis from "ioredis";
import { clusterReady, isCluster, type RedisClient } from "./redis-client";

export interface ReaderConnection {
  readonly conn: Redis;
  /** Releases a read blocked on this connection at once (CLIENT UNBLOCK, on the node it waits on). */
  unblock(): void;
  /**
   * True when this connection cannot serve the slot any more (the node is gone, became a replica,
   * or the slot moved): the reader opens a new one. Always false on a single Redis, whose client reconnects by itself.
   */
  stale(err: unknown): boolean;
  close(): void;
}

const READER_OPTIONS = { enableAutoPipelining: false, maxRetriesPerRequest: null, lazyConnect: false } as const;

/** Errors after which a cluster reader must find its slot's master again. */
const MOVED = /^(MOVED|ASK|CLUSTERDOWN|UNBLOCKED|READONLY|LOADING|MASTERDOWN)\b|Connection is closed|ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT/;

export async function openReaderConnection(redis: RedisClient, key: string): Promise<ReaderConnection> {
  if (!isCluster(redis)) {
    const conn = redis.duplicate(READER_OPTIONS);
    conn.on("error", () => {}); // the read loop reports failures; ioredis reconnects by itself
    const clientId = Number(await conn.client("ID"));
    return {
      conn,
      unblock: () => void redis.client("UNBLOCK", clientId).catch(() => {}),
      stale: () => false,
      close: () => conn.disconnect(),
    };
  }

  await clusterReady(redis);
  const slot = Number(await redis.cluster("KEYSLOT", key));
  // The slot map may be behind after a failover: ask the cluster again before choosing the node.
  await new Promise<void>((resolve) => redis.refreshSlotsCache(() => resolve()));
  const nodeKey = redis.slots[slot]?.[0];
  const node = nodeKey ? redis.nodes("master").find((n) => `${n.options.host}:${n.options.port}` === nodeKey) : undefined;
  if (!node) throw new Error(`no master known for slot ${slot} of ${key}`);
  // The pool's node connection carries the cluster's credentials and TLS; this one never reconnects
  // by itself (retryStrategy null): when its node goes, the reader opens a connection to the new master.
  const conn = node.duplicate({ ...READER_OPTIONS, readOnly: false, retryStrategy: () => null, enableOfflineQueue: true });
  conn.on("error", () => {});
  const clientId = Number(await conn.client("ID"));
  return {
    conn,
    // client ids are per node: the UNBLOCK must go to the node this connection is on
    unblock: () => void node.client("UNBLOCK", clientId).catch(() => conn.disconnect()),
    stale: (err) => conn.status === "end" || MOVED.test(String((err as Error)?.message ?? err)),
    close: () => conn.disconnect(),
  };
}
