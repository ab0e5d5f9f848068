// Loaded before every test file (bunfig.toml): marks the process as a test run so the logger
// stays quiet and app.handle() may pass a client address header; cleans this run's Redis keys and
// fails the run when test files left processes running.
import { afterAll } from "bun:test";
import { stopSharedRedisCluster } from "./redis-cluster";

process.env.NODE_ENV = "test";
// a bare `bun test` uses the same database as the launcher would (TEST_DATABASE_URL, else nms_test)
process.env.DATABASE_URL ??= process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/nms_test";
process.env.ADMIN_TOKEN ??= "test_admin_token";
// in-process tests run no sender: a channel test with a recipient need not wait 15 s to say so
// (test/integration/channel-test.test.ts runs an API process with the real default and a sender)
process.env.CHANNEL_TEST_WAIT_MS ??= "1500";
// A prefix chosen here belongs to this run alone, so the run may delete it; one given from
// outside may be a development instance's and is never swept.
const ownPrefix = process.env.REDIS_PREFIX === undefined;
process.env.REDIS_PREFIX ??= `nmstest${process.pid}`;

// Global hook (preload scope): runs once after the last file. The app's keys under the shared
// prefix (idempotency records, rate-limit windows, auth epoch, streams) are expected and deleted;
// keys under a file's private `<prefix>-<label>-*` prefix mean that file forgot its cleanup,
// which fails the run (after deleting them, so Redis is clean either way).
afterAll(async () => {
  if (!ownPrefix) return;
  const { sweepTestKeys } = await import("./redis-sweep");
  const { leaked } = await sweepTestKeys(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", process.env.REDIS_PREFIX!);
  if (leaked.size > 0) {
    const list = [...leaked].map(([p, n]) => `${p} (${n} keys)`).join(", ");
    throw new Error(`test files left Redis keys under their private prefixes: ${list}; delete them in the file's afterAll/afterEach`);
  }
});

// The local Redis Cluster (test/support/redis-cluster.ts) is started by the first cluster test and
// stopped here, once, after the last test file: its processes killed, its directory removed. Then no
// child of this process may be left: each file waits for the exit of every process it spawned, as
// one left running reads the run's streams while later files run. Any left are killed, then reported.
afterAll(async () => {
  await stopSharedRedisCluster();
  const { childProcessesOf } = await import("./probes");
  const left = childProcessesOf(process.pid);
  if (left.length === 0) return;
  for (const c of left) process.kill(c.pid, "SIGKILL");
  throw new Error(`test files left processes running: ${left.map((c) => `${c.pid} ${c.cmd}`).join("; ")}; wait for each one's exit in the file's afterAll`);
});
