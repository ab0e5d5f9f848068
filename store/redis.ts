// The shared ioredis connection of the service, a Redis or a Redis Cluster as REDIS_URL says (keys are
// named in store/redis-keys.ts, with the REDIS_PREFIX that lets tests and deployments share one Redis).
import { createRedisClient, isCluster } from "../runtime";
import { config } from "../config";

export const redis = createRedisClient(config.redisUrl, {
  maxRetriesPerRequest: 2,
  enableOfflineQueue: true,
  lazyConnect: false,
  // No auto-pipelining: with ioredis 6.0.0 it crashed the API process under load ("Spread syntax
  // requires ...iterable" thrown from autoPipelining.js when a pipeline's results came back short).
  enableAutoPipelining: false,
});
redis.on("error", () => {}); // health checks report it; ioredis reconnects by itself
redis.on("node error", () => {}); // a cluster node's failure: the client follows the failover by itself

/** PONG from the Redis, or on a cluster from every master it knows (a master down means keys are unreachable). */
export async function pingRedis(timeoutMs = 1000): Promise<boolean> {
  const nodes = isCluster(redis) ? redis.nodes("master") : [redis];
  try {
    if (!nodes.length) return false;
    const replies = await Promise.race([
      Promise.all(nodes.map((n) => n.ping())),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error("timeout")), timeoutMs)),
    ]);
    return replies.every((r) => r === "PONG");
  } catch {
    return false;
  }
}
