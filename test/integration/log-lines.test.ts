// Logs that speak (issue 27 item 5): the processes as shipped (an API with a channel sender, a webhook
// dispatcher), logging JSON at info, each failure kind a `warn` line with the tenant, the ids and the
// provider's (or receiver's, or DNS's) answer and no secret; every request line with tenant,
// environment and key prefix; a redirect logged as 302; notification counts by channel and status
// on /metrics.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { createTenant } from "../support/fixtures";
import { freePort } from "../support/dashboard-session";
import { startFakeDns, type FakeDns } from "../support/fake-dns";
import { spawnUntilReady } from "../support/spawn-ready";
import { startReceiver, type Receiver } from "../support/webhook-receiver";
import { dropTenant } from "./workflow-support";
import { connect, deletePrefix, randomPrefix } from "../support/runtime-redis";

const root = join(import.meta.dir, "..", "..");
const BUN = join(root, "node_modules", ".bin", "bun");
const SMTP_PASSWORD = `smtp-secret-${crypto.randomUUID()}`;
const run = crypto.randomUUID().slice(0, 8);
// the processes' own streams: a sender of theirs never takes another test file's messages
const prefix = randomPrefix("loglines");

let T: Awaited<ReturnType<typeof createTenant>>;
let dns: FakeDns;
let receiver: Receiver;
let base: string;
const procs: Subprocess<"ignore", "pipe", "inherit">[] = [];
/** Every JSON line the processes printed, parsed. */
const lines: Record<string, any>[] = [];
const raw: string[] = [];
let webhookSecret = "";

/** Keeps reading a process's stdout into `lines` (after spawnUntilReady gave its reader back). */
function collect(proc: Subprocess<"ignore", "pipe", "inherit">): void {
  void (async () => {
    const decoder = new TextDecoder();
    let rest = "";
    for await (const chunk of proc.stdout) {
      rest += decoder.decode(chunk);
      const parts = rest.split("\n");
      rest = parts.pop()!;
      for (const l of parts) {
        raw.push(l);
        if (l.startsWith("{")) lines.push(JSON.parse(l));
      }
    }
  })();
}

async function api(method: string, path: string, key: string, body?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

async function lineWhere(what: string, ok: (l: Record<string, any>) => boolean): Promise<Record<string, any>> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const found = lines.find(ok);
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no log line: ${what}; got ${lines.length} lines, e.g. ${JSON.stringify(lines.slice(-5))}`);
    await Bun.sleep(50);
  }
}

beforeAll(async () => {
  dns = await startFakeDns();
  receiver = startReceiver(() => new Response("receiver down", { status: 500 }));
  T = await createTenant();
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  const env = { ...process.env, REDIS_PREFIX: prefix, LOG_LEVEL: "info", WEBHOOK_ALLOW_PRIVATE: "true", DNS_SERVERS: dns.server, TIME_SCALE: "0.001" };
  const service = await spawnUntilReady([BUN, join(root, "test/support/service-process-main.ts")], {
    cwd: root,
    env: { ...env, PORT: String(port), SVC_TENANT_ID: T.tenant.id, SVC_HOST_ID: `svc-${run}` },
    ready: "listening",
  });
  procs.push(service);
  collect(service);
  const webhooks = await spawnUntilReady([BUN, join(root, "test/support/webhook-dispatcher-worker.ts")], {
    cwd: root,
    env: { ...env, RT_HOST_ID: `wh-${run}`, WH_REPAIR_TENANT: T.tenant.id },
    ready: `ready wh-${run}`,
  });
  procs.push(webhooks);
  collect(webhooks);
}, 60_000);

afterAll(async () => {
  for (const p of procs) p.kill("SIGTERM");
  await Promise.all(procs.map((p) => Promise.race([p.exited, Bun.sleep(5_000).then(() => p.kill("SIGKILL"))])));
  await receiver?.stop();
  await dns?.stop();
  const redis = connect();
  await deletePrefix(redis, prefix);
  await redis.quit();
  if (T) await dropTenant(T.tenant.id);
});

describe("warn lines, one per failure kind", () => {
  test("a provider refusal (sandbox) and an unreachable SMTP server: tenant, notification, provider and its answer; never the SMTP password", async () => {
    const refused = await api("POST", "/v1/notifications", T.sandboxKey, { channel: "email", to: `fail-${run}@example.com`, data: { subject: "S", content: "body" } });
    expect(refused.status).toBe(202);
    const l = await lineWhere("the sandbox refusal", (l) => l.msg === "provider call failed" && l.notification_id === refused.body.data.id);
    expect(l).toMatchObject({
      level: 40,
      tenant_id: T.tenant.id,
      environment: "sandbox",
      channel: "email",
      provider: "sandbox",
      attempt: 1,
      will_retry: false,
      error_code: "sandbox_rejected",
    });

    const closed = await freePort();
    const channel = await api("POST", "/v1/channels", T.secretKey, {
      channel: "email",
      provider: "smtp",
      credentials: { username: "nms", password: SMTP_PASSWORD },
      settings: { host: "127.0.0.1", port: closed, secure: false, from_email: `no-reply@logs-${run}.com` },
    });
    expect(channel.status).toBe(201);
    const sent = await api("POST", "/v1/notifications", T.secretKey, { channel: "email", to: `ana-${run}@example.com`, data: { subject: "S", content: "body" } });
    const smtp = await lineWhere("the SMTP connection error", (l) => l.msg === "provider call failed" && l.notification_id === sent.body.data.id);
    expect(smtp).toMatchObject({ tenant_id: T.tenant.id, environment: "production", provider: "smtp", error_code: "connection_error", will_retry: true });
    expect(smtp.error_message).toContain("ECONNREFUSED");
  }, 60_000);

  test("a webhook delivery failure: tenant, webhook, event and delivery ids, the receiver's status and body; never the signing secret", async () => {
    const hook = await api("POST", "/v1/webhooks", T.sandboxKey, { url: `${receiver.url}/hooks?token=abc`, events: ["notification.created"] });
    expect(hook.status).toBe(201);
    webhookSecret = hook.body.data.signing_secret;
    const n = await api("POST", "/v1/notifications", T.sandboxKey, { channel: "sms", to: "+5511912345678", data: { content: "hello" } });
    expect(n.status).toBe(202);
    const l = await lineWhere("the webhook failure", (l) => l.msg === "webhook delivery failed" && l.webhook_id === hook.body.data.id);
    expect(l).toMatchObject({ level: 40, tenant_id: T.tenant.id, event_type: "notification.created", attempt: 1, response_status: 500, response_body: "receiver down" });
    expect(l.url).toBe(`${receiver.url}/hooks`);
    expect(l.event_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(l.delivery_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(l.next_retry_at).not.toBeNull();
  }, 60_000);

  test("a failed domain verification and a failed domain check: tenant, domain id and what DNS answered", async () => {
    const d = await api("POST", "/v1/domains", T.secretKey, { domain: `logs-${run}.com` });
    expect(d.status).toBe(201);
    expect((await api("POST", `/v1/domains/${d.body.data.id}/verify`, T.secretKey)).body.data.status).toBe("pending");
    const v = await lineWhere("the verification failure", (l) => l.msg === "sending domain verification failed" && l.domain_id === d.body.data.id);
    expect(v).toMatchObject({ level: 40, tenant_id: T.tenant.id, domain: `logs-${run}.com`, found: [] });
    expect(v.verification_error).toContain("_nms-verify");
    expect((await api("POST", `/v1/domains/${d.body.data.id}/health/check`, T.secretKey)).status).toBe(200);
    const c = await lineWhere("the check failure", (l) => l.msg === "sending domain check failed" && l.domain_id === d.body.data.id);
    expect(c).toMatchObject({ level: 40, tenant_id: T.tenant.id, trigger: "forced" });
    expect(Object.keys(c.failing).sort()).toEqual(["dkim", "dmarc", "spf"]);
    expect(c.failing.spf).toMatchObject({ status: "missing", record: null });
  }, 60_000);
});

describe("request lines and metrics", () => {
  test("every request line names tenant, environment and key prefix; a redirect is logged as 302", async () => {
    const r = await api("GET", "/v1/notifications?limit=1", T.sandboxKey);
    const l = await lineWhere("the list request", (l) => l.msg === "request" && l.path === "/v1/notifications" && l.method === "GET" && l.request_id);
    expect(l).toMatchObject({ status: 200, tenant_id: T.tenant.id, environment: "sandbox", key_prefix: T.sandboxKey.slice(0, 12) });
    expect(r.status).toBe(200);
    const redirect = await fetch(`${base}/auth/magic-link/verify?token=not-a-token-${run}`, { headers: { accept: "text/html" }, redirect: "manual" });
    expect(redirect.status).toBe(302);
    const rl = await lineWhere("the redirect", (l) => l.msg === "request" && l.path === "/auth/magic-link/verify");
    expect(rl.status).toBe(302);
  }, 30_000);

  test("/metrics counts notifications by channel and status", async () => {
    const text = await (await fetch(`${base}/metrics`)).text();
    const value = (channel: string, status: string) =>
      Number(new RegExp(`^nms_notification_status_total\\{channel="${channel}",status="${status}"\\} (\\d+)`, "m").exec(text)?.[1] ?? 0);
    expect(value("email", "pending")).toBeGreaterThanOrEqual(2);
    expect(value("email", "failed")).toBeGreaterThanOrEqual(1);
    expect(value("sms", "delivered")).toBeGreaterThanOrEqual(1);
  }, 30_000);

  test("no secret in any line: the SMTP password, the webhook signing secret, the raw keys", () => {
    const all = raw.join("\n");
    expect(all.length).toBeGreaterThan(0);
    for (const secret of [SMTP_PASSWORD, webhookSecret, T.secretKey, T.sandboxKey]) {
      expect(secret.length).toBeGreaterThan(10);
      expect(all.includes(secret)).toBe(false);
    }
  });
});
