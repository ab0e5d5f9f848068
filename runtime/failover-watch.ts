// Notices that Redis lost writes it had acknowledged: a Redis Cluster slot now served by another master
// (a failover: the replica promoted may lack the old master's last writes) or a restarted single Redis.
import type { RuntimeLogger } from "./actor";
import { Loop } from "./loop";
import { isCluster, type RedisClient } from "./redis-client";

/**
 * After Redis lost acknowledged writes, the repair scans (jobs/reconciler.ts, jobs/webhook-repair.ts)
 * run every second for FAILOVER_WINDOW_MS and look at work idle for FAILOVER_STALE_MS instead of
 * their staleness window: what the new master lacks is re-enqueued within seconds.
 */
export const FAILOVER_WINDOW_MS = 5_000;
export const FAILOVER_STALE_MS = 1_000;

/**
 * Which master serves which slots, from CLUSTER NODES: `<master id>:<slot ranges>` per master that
 * serves slots, sorted. A failover moves the slots to the promoted replica's id; a resharding moves
 * ranges (a harmless extra repair). A master marked failing keeps its slots until the promotion, so
 * the signature changes once, when the new master serves.
 */
export function slotOwners(nodes: string): string {
  const owners: string[] = [];
  for (const line of nodes.split("\n")) {
    const f = line.trim().split(" ");
    if (f.length < 9 || !f[2]!.split(",").includes("master")) continue;
    const slots = f.slice(8).filter((s) => !s.startsWith("[")); // migrating/importing markers are not ownership
    if (slots.length) owners.push(`${f[0]}:${slots.join(",")}`);
  }
  return owners.sort().join(" ");
}

/** What identifies "the same Redis data": the slot owners on a cluster, the server's run id on a single Redis. */
async function dataIdentity(redis: RedisClient): Promise<string> {
  if (isCluster(redis)) return slotOwners(String(await redis.cluster("NODES")));
  const info = String(await redis.info("server"));
  return /run_id:(\w+)/.exec(info)?.[1] ?? "";
}

export interface FailoverWatch {
  stop(): Promise<void>;
}

type FailoverListener = (what: string) => void;

/** One poll per Redis client however many jobs of the process watch it (the reconciler and the webhook repair share it). */
const shared = new Map<RedisClient, { listeners: Set<FailoverListener>; loop: Loop; onReady: () => void }>();

/**
 * Polls the data identity and calls `onFailover` when it changed since the last answer: the repair
 * scans then look at recent work at once (docs/runtime.md "Redis Cluster"), instead of after their
 * staleness window. One poll per process, shared by every watcher of the same client. On a cluster
 * it asks CLUSTER NODES every `everyMs` (500 ms): a promoted replica serves while this client's other
 * connections stay up. A single Redis that restarted has closed every connection, so the client's
 * reconnect ("ready") asks INFO at once and the poll is only a backstop, every `singleEveryMs` (5 s;
 * it was every 500 ms, 2 of an idle process's wake-ups a second). A failed poll (the node asked is
 * the one that died) keeps the last identity and asks again at the next tick.
 */
export function watchFailovers(
  redis: RedisClient,
  opts: { everyMs?: number; singleEveryMs?: number; log: RuntimeLogger; onFailover: FailoverListener },
): FailoverWatch {
  let entry = shared.get(redis);
  if (!entry) {
    const listeners = new Set<FailoverListener>();
    let known: string | null = null;
    const everyMs = isCluster(redis) ? (opts.everyMs ?? 500) : (opts.singleEveryMs ?? 5000);
    const loop = new Loop({ name: "failover watch", everyMs, alignMs: everyMs, log: opts.log }, async () => {
      let now: string;
      try {
        now = await dataIdentity(redis);
      } catch {
        return;
      }
      if (!now) return;
      if (known !== null && now !== known) {
        const what = isCluster(redis) ? "a slot is served by another master (failover)" : "Redis restarted (new run id)";
        opts.log.warn({ what }, "Redis may have lost acknowledged writes; repairing recent work now");
        for (const l of listeners) l(what);
      }
      known = now;
    }).start(0);
    const onReady = () => loop.wakeIn(0);
    if (!isCluster(redis)) redis.on("ready", onReady);
    entry = { listeners, loop, onReady };
    shared.set(redis, entry);
  }
  const mine = entry;
  const listener: FailoverListener = (what) => opts.onFailover(what);
  mine.listeners.add(listener);
  return {
    async stop() {
      mine.listeners.delete(listener);
      if (mine.listeners.size > 0 || shared.get(redis) !== mine) return;
      shared.delete(redis);
      redis.off("ready", mine.onReady);
      await mine.loop.stop();
    },
  };
}

export interface FailoverUrgency {
  /** True for FAILOVER_WINDOW_MS after Redis lost acknowledged writes: scan recent work, every second. */
  urgent(): boolean;
  stop(): Promise<void>;
}

/**
 * The repair jobs' use of the watch: after a failover they are urgent for FAILOVER_WINDOW_MS and
 * `wake` runs their next scan at once (jobs/reconciler.ts, jobs/webhook-repair.ts).
 */
export function urgentAfterFailover(redis: RedisClient, opts: { log: RuntimeLogger; wake: () => void }): FailoverUrgency {
  let urgentUntil = 0;
  const watch = watchFailovers(redis, {
    log: opts.log,
    onFailover: () => {
      urgentUntil = Date.now() + FAILOVER_WINDOW_MS;
      opts.wake();
    },
  });
  return { urgent: () => Date.now() < urgentUntil, stop: () => watch.stop() };
}
