// Redis helpers for the runtime's tests: a random key prefix per test under the run's own prefix,
// SCAN+DEL cleanup of exactly that prefix (never FLUSHALL: other engineers share this Redis), and the
// Redis deployments (the single Redis, a local cluster) the runtime tests run against.
import { afterAll, afterEach, beforeAll, describe } from "bun:test";
import { createRedisClient, type RedisClient } from "../../runtime/redis-client";
import { clusterUnavailableReason, sharedRedisCluster, type LocalRedisCluster } from "./redis-cluster";

export const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

/** Under the run's REDIS_PREFIX (test/support/preload.ts), so the end-of-run sweep finds a leak. */
export function randomPrefix(label = "rt"): string {
  return `${process.env.REDIS_PREFIX ?? "nmstest"}-${label}-${Math.random().toString(36).slice(2, 10)}`;
}

/** An admin client (a Redis or a Cluster, as the URL says) for setting up and inspecting keys. */
export function connect(url: string = REDIS_URL): RedisClient {
  return createRedisClient(url, { maxRetriesPerRequest: null });
}

/** Deletes every key under `prefix:` (on a cluster too); shared with the benchmarks. */
export { deletePrefix } from "../../scripts/bench-load";

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

/** One Redis deployment a test suite runs against; `url` (and `cluster`) are set once its beforeAll ran. */
export interface RedisTarget {
  readonly name: "redis" | "cluster";
  readonly url: string;
  /** the local cluster (test/support/redis-cluster.ts), for failover tests */
  readonly cluster: LocalRedisCluster | null;
}

/**
 * Runs `body` once per deployment: the single Redis at REDIS_URL, and a local three-master Redis
 * Cluster (started on first use, stopped after the last test file). The cluster suite is skipped,
 * with the reason logged, only when redis-server is not installed, or when TEST_REDIS_CLUSTER=0.
 */
export function describeEachRedis(label: string, body: (target: RedisTarget) => void): void {
  const single: RedisTarget = { name: "redis", url: REDIS_URL, cluster: null };
  describe(`${label} [redis]`, () => body(single));

  const skip = process.env.TEST_REDIS_CLUSTER === "0" ? "TEST_REDIS_CLUSTER=0" : clusterUnavailableReason();
  if (skip) {
    console.warn(`[redis-cluster] skipping "${label} [cluster]": ${skip}`);
    describe.skip(`${label} [cluster]`, () => body(single));
    return;
  }
  const target: { name: "cluster"; url: string; cluster: LocalRedisCluster | null } = { name: "cluster", url: "", cluster: null };
  describe(`${label} [cluster]`, () => {
    beforeAll(async () => {
      target.cluster = await sharedRedisCluster();
      target.url = target.cluster.url;
    }, 30_000);
    body(target);
  });
}

/** Hooks of a runtime test file: one admin connection for the file, and cleanups that run after each test (last first). */
export function runtimeTestHooks(url: () => string = () => REDIS_URL) {
  const scope = { admin: undefined as unknown as RedisClient, cleanups: [] as Array<() => Promise<unknown>> };
  beforeAll(() => {
    scope.admin = connect(url());
  });
  afterEach(async () => {
    while (scope.cleanups.length) await scope.cleanups.pop()!().catch(() => {});
  });
  afterAll(async () => {
    await scope.admin.quit();
  });
  return scope;
}
