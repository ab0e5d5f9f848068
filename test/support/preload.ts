// Loaded before every test file (bunfig.toml): marks the process as a test run so the
// logger stays quiet and app.handle() may pass a client address header.
process.env.NODE_ENV = "test";
process.env.DATABASE_URL ??= "postgres://postgres@127.0.0.1:5432/nms_test";
process.env.ADMIN_TOKEN ??= "test_admin_token";
process.env.REDIS_PREFIX ??= `nmstest${process.pid}`;

// The local Redis Cluster (test/support/redis-cluster.ts) is started by the first cluster test and
// stopped here, once, after the last test file: its processes killed, its directory removed.
import { afterAll } from "bun:test";
import { stopSharedRedisCluster } from "./redis-cluster";
afterAll(stopSharedRedisCluster);
