// The shared ioredis connection of the service (keys are named in store/redis-keys.ts, with the
// REDIS_PREFIX that lets tests and several deployments share one Redis without collisions).
import Redis from "ioredis";
import { config } from "../config";

export const redis = new Redis(config.redisUrl, {
  maxRetriesPerRequest: 2,
  enableOfflineQueue: true,
  lazyConnect: false,
  // No auto-pipelining: with ioredis 6.0.0 it crashed the API process under load ("Spread syntax
  // requires ...iterable" thrown from autoPipelining.js when a pipeline's results came back short).
  enableAutoPipelining: false,
});
redis.on("error", () => {}); // health checks report it; ioredis reconnects by itself

export async function pingRedis(timeoutMs = 1000): Promise<boolean> {
  try {
    const r = await Promise.race([
      redis.ping(),
      new Promise((_, reject) => setTimeout(() => reject(new Error("timeout")), timeoutMs)),
    ]);
    return r === "PONG";
  } catch {
    return false;
  }
}
