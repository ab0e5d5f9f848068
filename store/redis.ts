// The shared ioredis connection and the one place keys outside runtime/ get their prefix.
// REDIS_PREFIX lets tests and several deployments share one Redis without collisions.
import Redis from "ioredis";
import { config } from "../config";

export const redis = new Redis(config.redisUrl, {
  maxRetriesPerRequest: 2,
  enableOfflineQueue: true,
  lazyConnect: false,
  // commands issued in the same event-loop turn share one round trip (rate limit, epoch read,
  // XADD of a batch): measured 6-9% less API CPU per request
  enableAutoPipelining: true,
});
redis.on("error", () => {}); // health checks report it; ioredis reconnects by itself

export function redisKey(...parts: (string | number)[]): string {
  return [config.redisPrefix, ...parts].join(":");
}

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
