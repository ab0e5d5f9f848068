// End-of-run Redis hygiene for the test process: deletes the keys of its own prefix and reports
// keys a test file left under its private sub-prefixes (`<prefix>-<label>-<random>:*`).
import Redis from "ioredis";

export interface SweepResult {
  /** Keys under `<prefix>:*`, shared by every file of the run (the app's own keys); deleted. */
  shared: number;
  /** Keys under `<prefix>-*`: a file's private prefix it should have deleted itself; deleted too. */
  leaked: Map<string, number>;
}

async function scanAll(redis: Redis, pattern: string): Promise<string[]> {
  const found = new Set<string>();
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", pattern, "COUNT", 1000);
    cursor = next;
    for (const k of keys) found.add(k);
  } while (cursor !== "0");
  return [...found];
}

async function unlinkAll(redis: Redis, keys: string[]): Promise<void> {
  for (let i = 0; i < keys.length; i += 500) await redis.unlink(...keys.slice(i, i + 500));
}

/**
 * Only patterns that start with this process's prefix and a separator (`:` or `-`), so
 * `nmstest12` never touches `nmstest123:*`, another engineer's run or a development instance.
 */
export async function sweepTestKeys(redisUrl: string, prefix: string): Promise<SweepResult> {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 2, lazyConnect: true });
  try {
    await redis.connect();
    const shared = await scanAll(redis, `${prefix}:*`);
    const privateKeys = await scanAll(redis, `${prefix}-*`);
    const leaked = new Map<string, number>();
    for (const k of privateKeys) {
      const owner = k.slice(0, k.indexOf(":") < 0 ? k.length : k.indexOf(":"));
      leaked.set(owner, (leaked.get(owner) ?? 0) + 1);
    }
    await unlinkAll(redis, [...shared, ...privateKeys]);
    return { shared: shared.length, leaked };
  } finally {
    redis.disconnect();
  }
}
