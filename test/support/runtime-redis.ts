// Redis helpers for the runtime's tests: a random key prefix per test under the run's own prefix,
// and SCAN+DEL cleanup of exactly that prefix (never FLUSHALL: other engineers share this Redis).
import { afterAll, afterEach, beforeAll } from "bun:test";
import Redis from "ioredis";

export const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

/** Under the run's REDIS_PREFIX (test/support/preload.ts), so the end-of-run sweep finds a leak. */
export function randomPrefix(label = "rt"): string {
  return `${process.env.REDIS_PREFIX ?? "nmstest"}-${label}-${Math.random().toString(36).slice(2, 10)}`;
}

export function connect(): Redis {
  return new Redis(REDIS_URL, { maxRetriesPerRequest: null });
}

export async function deletePrefix(redis: Redis, prefix: string): Promise<number> {
  let cursor = "0";
  let deleted = 0;
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 1000);
    cursor = next;
    if (keys.length) deleted += await redis.del(...keys);
  } while (cursor !== "0");
  return deleted;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Polls until check() returns a truthy value or the deadline passes (then returns the last value). */
export async function waitFor<T>(check: () => Promise<T> | T, timeoutMs: number, everyMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await check();
  while (!value && Date.now() < deadline) {
    await sleep(everyMs);
    value = await check();
  }
  return value;
}

/** Hooks of a runtime test file: one admin connection for the file, and cleanups that run after each test (last first). */
export function runtimeTestHooks() {
  const scope = { admin: undefined as unknown as Redis, cleanups: [] as Array<() => Promise<unknown>> };
  beforeAll(() => {
    scope.admin = connect();
  });
  afterEach(async () => {
    while (scope.cleanups.length) await scope.cleanups.pop()!().catch(() => {});
  });
  afterAll(async () => {
    await scope.admin.quit();
  });
  return scope;
}
