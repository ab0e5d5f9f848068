// Auth across real API processes (DESIGN.md 5: "revocation is effective on the next request in
// every process"), the shared Redis rate limit with 429 + Retry-After, and TRUST_PROXY.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createKey, createTenant } from "../support/fixtures";
import { startApiProcess, type ApiProcess } from "../support/api-process";

let a: ApiProcess;
let b: ApiProcess;
let limitedA: ApiProcess;
let limitedB: ApiProcess;
let proxied: ApiProcess;

beforeAll(async () => {
  // REDIS_PREFIX and DATABASE_URL come from this process's environment, so all share them
  const started = await Promise.allSettled([
    startApiProcess(),
    startApiProcess(),
    startApiProcess({ RATE_LIMIT_PER_MINUTE: "3" }),
    startApiProcess({ RATE_LIMIT_PER_MINUTE: "3" }),
    startApiProcess({ TRUST_PROXY: "127.0.0.1" }),
  ]);
  // the ones that started are stopped by afterAll even when another did not start
  [a, b, limitedA, limitedB, proxied] = started.map((s) => (s.status === "fulfilled" ? s.value : undefined!));
  const failed = started.find((s) => s.status === "rejected");
  if (failed) throw failed.reason;
});

afterAll(async () => {
  await Promise.all([a, b, limitedA, limitedB, proxied].map((p) => p?.stop()));
});

function req(p: ApiProcess, method: string, path: string, key: string, headers: Record<string, string> = {}) {
  return fetch(`${p.url}${path}`, { method, headers: { authorization: `Bearer ${key}`, ...headers } });
}

describe("DESIGN.md 5: revocation is effective on the next request in every process", () => {
  test("a key revoked through process A is refused by process B on its very next request", async () => {
    const t = await createTenant();
    const k = await createKey(t.tenant.id);
    // B has the key cached
    for (let i = 0; i < 3; i++) expect((await req(b, "GET", "/v1/api-keys", k.raw)).status).toBe(200);
    const revoked = await req(a, "DELETE", `/v1/api-keys/${k.id}`, t.secretKey);
    expect(revoked.status).toBe(204);
    const next = await req(b, "GET", "/v1/api-keys", k.raw);
    expect(next.status).toBe(401);
    expect(((await next.json()) as any).error.code).toBe("invalid_api_key");
    expect((await req(a, "GET", "/v1/api-keys", k.raw)).status).toBe(401);
  });

  test("a key rotated with grace_period_hours 0 through A is refused by B at once; the new key works on B", async () => {
    const t = await createTenant();
    const k = await createKey(t.tenant.id);
    expect((await req(b, "GET", "/v1/api-keys", k.raw)).status).toBe(200);
    const r = await fetch(`${a.url}/v1/api-keys/${k.id}/rotate`, {
      method: "POST",
      headers: { authorization: `Bearer ${t.secretKey}`, "content-type": "application/json" },
      body: JSON.stringify({ grace_period_hours: 0 }),
    });
    expect(r.status).toBe(201);
    const fresh = ((await r.json()) as any).data.raw_key;
    expect((await req(b, "GET", "/v1/api-keys", k.raw)).status).toBe(401);
    expect((await req(b, "GET", "/v1/api-keys", fresh)).status).toBe(200);
  });
});

describe("DESIGN.md 4: per-key rate limit in Redis (RATE_LIMIT_PER_MINUTE)", () => {
  test("the budget is shared by every process; past it -> 429 rate_limited with Retry-After and X-RateLimit-*", async () => {
    const t = await createTenant();
    const k = await createKey(t.tenant.id);
    const r1 = await req(limitedA, "GET", "/v1/api-keys", k.raw);
    const r2 = await req(limitedB, "GET", "/v1/api-keys", k.raw);
    const r3 = await req(limitedA, "GET", "/v1/api-keys", k.raw);
    expect([r1.status, r2.status, r3.status]).toEqual([200, 200, 200]);
    expect([r1, r2, r3].map((r) => r.headers.get("x-ratelimit-remaining"))).toEqual(["2", "1", "0"]);
    const over = await req(limitedB, "GET", "/v1/api-keys", k.raw);
    expect(over.status).toBe(429);
    const body: any = await over.json();
    expect(body.error.code).toBe("rate_limited");
    const retry = Number(over.headers.get("retry-after"));
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(60);
    expect(over.headers.get("x-ratelimit-limit")).toBe("3");
    expect(over.headers.get("x-ratelimit-remaining")).toBe("0");
    const reset = Number(over.headers.get("x-ratelimit-reset"));
    expect(reset).toBeGreaterThan(Date.now() / 1000);
    expect(reset).toBeLessThanOrEqual(Date.now() / 1000 + 61);
    // another key of the same tenant has its own budget
    expect((await req(limitedA, "GET", "/v1/api-keys", t.secretKey)).status).toBe(200);
  });
});

describe("rate limit of publishable keys (docs/auth.md decision)", () => {
  test("each subscriber of a publishable key has its own budget, spent only by verified requests", async () => {
    const { subscriberHash } = await import("../../http/plugins/auth");
    const { sql } = await import("../../store/db");
    const t = await createTenant();
    await sql`update tenants set developer_mode = true where id = ${t.tenant.id}`;
    const pk = await createKey(t.tenant.id, { keyType: "publishable" });
    const as = (sub: string) => ({ origin: "http://localhost:5173", "x-subscriber-id": sub, "x-subscriber-hash": subscriberHash(t.tenant.inbox_secret, sub) });
    const path = (sub: string) => `/v1/subscribers/${sub}/notifications/unread-count`;
    // forged hashes for alice are refused (403) without spending alice's budget
    for (let i = 0; i < 3; i++) {
      const forged = await req(limitedA, "GET", path("alice"), pk.raw, { ...as("alice"), "x-subscriber-hash": "0".repeat(64) });
      expect(forged.status).toBe(403);
    }
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await req(limitedA, "GET", path("alice"), pk.raw, as("alice"))).status);
    expect(statuses.slice(0, 3).every((s) => s !== 429)).toBe(true);
    expect(statuses[3]).toBe(429);
    const bob = await req(limitedA, "GET", path("bob"), pk.raw, as("bob"));
    expect(bob.status).not.toBe(429);
    expect(bob.headers.get("x-ratelimit-remaining")).toBe("2");
  });
});

describe("allowed_ips and TRUST_PROXY (issue 3: X-Forwarded-For only from named proxies)", () => {
  test("without TRUST_PROXY the socket address counts, X-Forwarded-For is ignored", async () => {
    const t = await createTenant();
    const k = await createKey(t.tenant.id, { allowedIps: ["203.0.113.5"] });
    const r = await req(a, "GET", "/v1/api-keys", k.raw, { "x-forwarded-for": "203.0.113.5" });
    expect(r.status).toBe(403);
    expect(((await r.json()) as any).error.code).toBe("insufficient_permissions");
    const local = await createKey(t.tenant.id, { allowedIps: ["127.0.0.1"] });
    expect((await req(a, "GET", "/v1/api-keys", local.raw, { "x-forwarded-for": "203.0.113.99" })).status).toBe(200);
  });

  test("with TRUST_PROXY=127.0.0.1 the forwarded client address is checked", async () => {
    const t = await createTenant();
    const k = await createKey(t.tenant.id, { allowedIps: ["203.0.113.0/24"] });
    expect((await req(proxied, "GET", "/v1/api-keys", k.raw, { "x-forwarded-for": "203.0.113.5" })).status).toBe(200);
    expect((await req(proxied, "GET", "/v1/api-keys", k.raw, { "x-forwarded-for": "198.51.100.5" })).status).toBe(403);
    // a client cannot prepend a spoofed hop: the right-most untrusted address counts
    expect((await req(proxied, "GET", "/v1/api-keys", k.raw, { "x-forwarded-for": "203.0.113.5, 198.51.100.5" })).status).toBe(403);
  });
});

describe("Redis down: auth falls back to PostgreSQL, the limiter fails open, Idempotency-Key is refused (503)", () => {
  const hasRedisServer = Bun.spawnSync(["sh", "-c", "command -v redis-server"]).exitCode === 0;
  test.skipIf(!hasRedisServer)("a revoked key is still refused, a valid one still served", async () => {
    const { mkdtempSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const port = 20000 + Math.floor(Math.random() * 12000); // below the kernel's ephemeral range (32768+), where client sockets would collide
    const dir = mkdtempSync(join(tmpdir(), "nms-auth-redis-"));
    const redisChild = Bun.spawn(["redis-server", "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir], {
      stdout: "ignore",
      stderr: "ignore",
    });
    let api: ApiProcess | null = null;
    try {
      for (let i = 0; i < 100; i++) {
        try {
          (await Bun.connect({ hostname: "127.0.0.1", port, socket: { data() {} } })).end();
          break;
        } catch {
          await Bun.sleep(50);
        }
      }
      api = await startApiProcess({ REDIS_URL: `redis://127.0.0.1:${port}` });
      const t = await createTenant();
      const doomed = await createKey(t.tenant.id);
      expect((await req(api, "GET", "/v1/api-keys", doomed.raw)).status).toBe(200); // cached
      redisChild.kill("SIGKILL");
      await redisChild.exited;
      // revoked behind the API's back: with no epoch to trust, the process must read PostgreSQL
      const { sql } = await import("../../store/db");
      await sql`update api_keys set revoked_at = now() where id = ${doomed.id}`;
      const ok = await req(api, "GET", "/v1/api-keys", t.secretKey);
      expect(ok.status).toBe(200);
      expect(ok.headers.get("x-ratelimit-limit")).toBeNull();
      expect((await req(api, "GET", "/v1/api-keys", doomed.raw)).status).toBe(401);
      const idem = await fetch(`${api.url}/v1/api-keys`, {
        method: "POST",
        headers: { authorization: `Bearer ${t.secretKey}`, "content-type": "application/json", "idempotency-key": "k1" },
        body: JSON.stringify({ key_type: "secret" }),
      });
      expect(idem.status).toBe(503);
      expect(((await idem.json()) as any).error.code).toBe("service_unavailable");
    } finally {
      await api?.stop();
      redisChild.kill("SIGKILL");
      await redisChild.exited;
    }
  }, 60_000);
});
