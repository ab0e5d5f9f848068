// HTTP tests of /v1/webhooks (SPEC "Webhooks", DESIGN.md 6): every route and its statuses, the SSRF
// refusals at create and update, the per-tenant cap, audit entries, and the signing secret's privacy.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { verify as octokitVerify } from "@octokit/webhooks-methods";
import { Webhook } from "standardwebhooks";
import { config } from "../../config";
import { sql } from "../../store/db";
import { call, createKey, createTenant } from "../support/fixtures";
import { startFakeDns, type FakeDns } from "../support/fake-dns";
import { startReceiver, type Receiver } from "../support/webhook-receiver";
import { deleteTenants } from "../support/tenant-cleanup";

type T = Awaited<ReturnType<typeof createTenant>>;
let T1: T;
let T2: T;
let dns: FakeDns;
const savedPrivate = config.webhookAllowPrivate;
const receivers: Receiver[] = [];
const created: string[] = [];
async function tenant(): Promise<T> {
  const t = await createTenant();
  created.push(t.tenant.id);
  return t;
}

const create = (key: string, body: Record<string, unknown>, headers?: Record<string, string>) => call("POST", "/v1/webhooks", { key, body, headers });

beforeAll(async () => {
  T1 = await tenant();
  T2 = await tenant();
  dns = await startFakeDns();
  dns.setAddresses("rebind.test", { A: ["127.0.0.1"] });
  dns.setAddresses("public.test", { A: ["93.184.216.34"] });
  dns.setAddresses("mixed.test", { A: ["93.184.216.34", "10.0.0.7"] });
  dns.setAddresses("v6loop.test", { AAAA: ["::1"] });
  process.env.DNS_SERVERS = dns.server;
});

afterAll(async () => {
  delete process.env.DNS_SERVERS;
  (config as any).webhookAllowPrivate = savedPrivate;
  for (const r of receivers) await r.stop();
  await dns.stop();
  await sql`delete from webhook_outbox where webhook_id in (select id from webhooks where tenant_id = any(${created}::uuid[]))`;
  await deleteTenants(created);
});

/** Runs fn with WEBHOOK_ALLOW_PRIVATE=true (local receivers live on 127.0.0.1). */
async function withPrivate<R>(fn: () => Promise<R>): Promise<R> {
  (config as any).webhookAllowPrivate = true;
  try {
    return await fn();
  } finally {
    (config as any).webhookAllowPrivate = savedPrivate;
  }
}

describe("create, read, update, delete", () => {
  test("POST answers 201 with the webhook and a whsec_ signing secret; GET, list and PUT never show the secret", async () => {
    const r = await create(T1.secretKey, { url: "https://public.test/hooks", events: ["notification.delivered", "workflow.completed"], description: "CRM" });
    expect(r.status).toBe(201);
    const w = r.body.data;
    expect(w).toMatchObject({ url: "https://public.test/hooks", events: ["notification.delivered", "workflow.completed"], active: true, description: "CRM", disabled_reason: null });
    expect(w.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(Date.parse(w.created_at)).toBeGreaterThan(0);
    expect(w.signing_secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const secret: string = w.signing_secret;

    const got = await call("GET", `/v1/webhooks/${w.id}`, { key: T1.secretKey });
    expect(got.status).toBe(200);
    expect(got.body.data.signing_secret).toBeUndefined();
    expect(got.text.includes(secret)).toBe(false);
    expect(got.text.includes(secret.slice(6))).toBe(false);

    const list = await call("GET", "/v1/webhooks", { key: T1.secretKey });
    expect(list.status).toBe(200);
    expect(list.body.data.map((x: any) => x.id)).toContain(w.id);
    expect(list.text.includes(secret.slice(6))).toBe(false);

    const put = await call("PUT", `/v1/webhooks/${w.id}`, { key: T1.secretKey, body: { events: ["notification.failed"], active: false } });
    expect(put.status).toBe(200);
    expect(put.body.data).toMatchObject({ id: w.id, url: "https://public.test/hooks", events: ["notification.failed"], active: false, description: "CRM" });
    expect(put.text.includes(secret.slice(6))).toBe(false);

    // the secret is sealed at rest
    const [row] = await sql`select secret_enc from webhooks where id = ${w.id}`;
    expect(row!.secret_enc.includes(secret.slice(6))).toBe(false);
    expect(row!.secret_enc).toMatch(/^v1:/);

    const del = await call("DELETE", `/v1/webhooks/${w.id}`, { key: T1.secretKey });
    expect(del.status).toBe(204);
    expect((await call("GET", `/v1/webhooks/${w.id}`, { key: T1.secretKey })).status).toBe(404);
    expect((await call("DELETE", `/v1/webhooks/${w.id}`, { key: T1.secretKey })).status).toBe(404);
  });

  test("a secret given at creation is the signing secret", async () => {
    const r = await create(T1.secretKey, { url: "https://public.test/own", events: ["notification.sent"], secret: "my-own-secret-of-some-length" });
    expect(r.status).toBe(201);
    expect(r.body.data.signing_secret).toBe("my-own-secret-of-some-length");
    await call("DELETE", `/v1/webhooks/${r.body.data.id}`, { key: T1.secretKey });
  });

  test("PUT with active true clears what an auto-disable left; an empty PUT is refused", async () => {
    const w = (await create(T1.secretKey, { url: "https://public.test/a", events: ["notification.sent"] })).body.data;
    await sql`update webhooks set active = false, disabled_reason = 'every delivery failed', disabled_at = now(), failing_since = now() - interval '6 days' where id = ${w.id}`;
    const shown = await call("GET", `/v1/webhooks/${w.id}`, { key: T1.secretKey });
    expect(shown.body.data.disabled_reason).toBe("every delivery failed");
    expect(shown.body.data.disabled_at).not.toBeNull();
    const on = await call("PUT", `/v1/webhooks/${w.id}`, { key: T1.secretKey, body: { active: true } });
    expect(on.status).toBe(200);
    expect(on.body.data).toMatchObject({ active: true, disabled_reason: null, disabled_at: null });
    const [row] = await sql`select failing_since from webhooks where id = ${w.id}`;
    expect(row!.failing_since).toBeNull();
    const empty = await call("PUT", `/v1/webhooks/${w.id}`, { key: T1.secretKey, body: {} });
    expect(empty.status).toBe(422);
    expect(empty.body.error.code).toBe("validation_failed");
    await call("DELETE", `/v1/webhooks/${w.id}`, { key: T1.secretKey });
  });

  test("validation: event types from SPEC's table, http(s) URLs without credentials, no repeats", async () => {
    const bad = async (body: Record<string, unknown>, field: string) => {
      const r = await create(T1.secretKey, body);
      expect(r.status).toBe(422);
      expect(r.body.error.code).toBe("validation_failed");
      expect(Object.keys(r.body.error.details)).toContain(field);
      return r;
    };
    const type = await bad({ url: "https://public.test/x", events: ["notification.exploded"] }, "events[0]");
    expect(type.body.error.details["events[0]"][0]).toContain("notification.delivered");
    await bad({ url: "https://public.test/x", events: [] }, "events");
    await bad({ url: "https://public.test/x" }, "events");
    await bad({ url: "ftp://public.test/x", events: ["notification.sent"] }, "url");
    await bad({ url: "https://user:pw@public.test/x", events: ["notification.sent"] }, "url");
    await bad({ url: "not a url", events: ["notification.sent"] }, "url");
    await bad({ url: "https://public.test/x", events: ["notification.sent", "notification.sent"] }, "events");
    await bad({ url: "https://public.test/x", events: ["notification.sent"], secret: "short" }, "secret");
  });

  test("the 11th webhook of a tenant is refused (both environments count)", async () => {
    const t = await tenant();
    for (let i = 0; i < 10; i++) {
      const key = i < 6 ? t.secretKey : t.sandboxKey;
      expect((await create(key, { url: `https://public.test/${i}`, events: ["notification.sent"] })).status).toBe(201);
    }
    const r = await create(t.secretKey, { url: "https://public.test/11", events: ["notification.sent"] });
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe("webhook_limit_reached");
    expect(r.body.error.message).toContain("10");
    expect((await create(t.sandboxKey, { url: "https://public.test/11", events: ["notification.sent"] })).status).toBe(422);
    await sql`delete from webhooks where tenant_id = ${t.tenant.id}`;
  });

  test("Idempotency-Key on POST /v1/webhooks replays the first answer without a second webhook", async () => {
    const t = await tenant();
    const headers = { "idempotency-key": `wh-${crypto.randomUUID()}` };
    const a = await create(t.secretKey, { url: "https://public.test/idem", events: ["notification.sent"] }, headers);
    const b = await create(t.secretKey, { url: "https://public.test/idem", events: ["notification.sent"] }, headers);
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.headers.get("idempotent-replayed")).toBe("true");
    expect(b.body.data.id).toBe(a.body.data.id);
    expect((await call("GET", "/v1/webhooks", { key: t.secretKey })).body.data).toHaveLength(1);
    await sql`delete from webhooks where tenant_id = ${t.tenant.id}`;
  });
});

describe("who may see and change webhooks", () => {
  test("another tenant and the other environment see nothing (404); publishable and read-only keys are refused", async () => {
    const w = (await create(T1.secretKey, { url: "https://public.test/iso", events: ["notification.sent"] })).body.data;
    expect((await call("GET", `/v1/webhooks/${w.id}`, { key: T2.secretKey })).status).toBe(404);
    expect((await call("PUT", `/v1/webhooks/${w.id}`, { key: T2.secretKey, body: { active: false } })).status).toBe(404);
    expect((await call("DELETE", `/v1/webhooks/${w.id}`, { key: T2.secretKey })).status).toBe(404);
    expect((await call("GET", `/v1/webhooks/${w.id}`, { key: T1.sandboxKey })).status).toBe(404);
    expect((await call("GET", "/v1/webhooks", { key: T1.sandboxKey })).body.data.map((x: any) => x.id)).not.toContain(w.id);
    expect((await call("GET", `/v1/webhooks/not-a-uuid`, { key: T1.secretKey })).status).toBe(404);
    expect((await call("GET", "/v1/webhooks")).status).toBe(401);

    const readOnly = await createKey(T1.tenant.id, { permissions: ["read"] });
    expect((await call("GET", `/v1/webhooks/${w.id}`, { key: readOnly.raw })).status).toBe(200);
    const ro = await create(readOnly.raw, { url: "https://public.test/ro", events: ["notification.sent"] });
    expect(ro.status).toBe(403);
    expect(ro.body.error.code).toBe("insufficient_permissions");
    const pk = await createKey(T1.tenant.id, { keyType: "publishable" });
    expect((await call("GET", "/v1/webhooks", { key: pk.raw })).status).toBe(403);
    await call("DELETE", `/v1/webhooks/${w.id}`, { key: T1.secretKey });
  });

  test("audit: webhook.created {url, events}, webhook.updated {url, events, active}, webhook.deleted {url}; never the secret", async () => {
    const r = await create(T2.secretKey, { url: "https://public.test/audit", events: ["notification.sent"] });
    const id = r.body.data.id;
    const secret: string = r.body.data.signing_secret;
    await call("PUT", `/v1/webhooks/${id}`, { key: T2.secretKey, body: { active: false } });
    await call("DELETE", `/v1/webhooks/${id}`, { key: T2.secretKey });
    const rows = await sql`select action, actor_type, actor_id, metadata, resource_type from audit_logs where resource_id = ${id} order by inserted_at`;
    expect(rows.map((x) => x.action)).toEqual(["webhook.created", "webhook.updated", "webhook.deleted"]);
    expect(rows[0]!.metadata).toEqual({ url: "https://public.test/audit", events: ["notification.sent"] });
    expect(rows[1]!.metadata).toEqual({ url: "https://public.test/audit", events: ["notification.sent"], active: false });
    expect(rows[2]!.metadata).toEqual({ url: "https://public.test/audit" });
    for (const x of rows) {
      expect(x.actor_type).toBe("api_key");
      expect(x.resource_type).toBe("webhook");
      expect(JSON.stringify(x.metadata).includes(secret.slice(6))).toBe(false);
    }
  });
});

describe("SSRF: receivers on internal addresses are refused at create and update", () => {
  const refused = [
    "http://127.0.0.1/hook",
    "http://10.0.0.1/hook",
    "http://169.254.169.254/latest/meta-data",
    "http://[::1]/hook",
    "http://[::ffff:127.0.0.1]/hook",
    "http://2130706433/hook",
    "http://0.0.0.0/hook",
    "http://localhost:8080/hook",
    "http://rebind.test/hook", // resolves to 127.0.0.1 through the test's DNS server
    "http://v6loop.test/hook", // AAAA ::1
    "http://mixed.test/hook", // one public and one private answer
  ];
  for (const url of refused) {
    test(`${url} is refused`, async () => {
      const r = await create(T1.secretKey, { url, events: ["notification.sent"] });
      expect(r.status).toBe(422);
      expect(r.body.error.details.url[0]).toContain("must not point at");
    });
  }

  test("PUT to an internal address is refused; with WEBHOOK_ALLOW_PRIVATE=true it is allowed", async () => {
    const w = (await create(T1.secretKey, { url: "https://public.test/ssrf", events: ["notification.sent"] })).body.data;
    const put = await call("PUT", `/v1/webhooks/${w.id}`, { key: T1.secretKey, body: { url: "http://rebind.test/x" } });
    expect(put.status).toBe(422);
    expect((await call("GET", `/v1/webhooks/${w.id}`, { key: T1.secretKey })).body.data.url).toBe("https://public.test/ssrf");
    await withPrivate(async () => {
      const ok = await call("PUT", `/v1/webhooks/${w.id}`, { key: T1.secretKey, body: { url: "http://127.0.0.1:9/x" } });
      expect(ok.status).toBe(200);
      // never an unspecified or multicast receiver, whatever the flag says
      expect((await call("PUT", `/v1/webhooks/${w.id}`, { key: T1.secretKey, body: { url: "http://0.0.0.0/x" } })).status).toBe(422);
    });
    await call("DELETE", `/v1/webhooks/${w.id}`, { key: T1.secretKey });
  });

  test("a name that does not resolve yet is accepted (delivery resolves and checks on every attempt)", async () => {
    const r = await create(T1.secretKey, { url: "https://not-yet.test/x", events: ["notification.sent"] });
    expect(r.status).toBe(201);
    await call("DELETE", `/v1/webhooks/${r.body.data.id}`, { key: T1.secretKey });
  });
});

describe("POST /v1/webhooks/:id/test", () => {
  test("one signed notification.test attempt, answered synchronously and recorded as a delivery", async () => {
    const rx = startReceiver();
    receivers.push(rx);
    const w = await withPrivate(async () => (await create(T1.secretKey, { url: rx.url, events: ["notification.delivered"] })).body.data);
    const r = await withPrivate(() => call("POST", `/v1/webhooks/${w.id}/test`, { key: T1.secretKey, body: { event: "notification.delivered" } }));
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ success: true, status_code: 200, error: null });
    expect(r.body.data.duration_ms).toBeGreaterThanOrEqual(0);
    expect(rx.received).toHaveLength(1);
    const got = rx.received[0]!;
    expect(got.json.type).toBe("notification.test");
    expect(got.json.data.webhook_id).toBe(w.id);
    expect(got.json.data.notification.status).toBe("delivered"); // the shape of the requested type
    expect(got.headers["webhook-id"]).toBe(got.json.id);
    expect(got.headers["user-agent"]).toMatch(/^NMS-Webhooks\//);
    expect(await octokitVerify(w.signing_secret, got.body, got.headers["x-service-signature"]!)).toBe(true);
    expect((new Webhook(w.signing_secret).verify(got.body, got.headers) as any).id).toBe(got.json.id);

    const list = await call("GET", `/v1/webhooks/${w.id}/deliveries`, { key: T1.secretKey });
    expect(list.status).toBe(200);
    expect(list.body.data[0]).toMatchObject({ id: r.body.data.delivery_id, webhook_id: w.id, event_id: got.json.id, event_type: "notification.test", attempt: 1, status: "success", response_status: 200, response_body: "ok", next_retry_at: null, error: null });
    expect(list.text.includes(w.signing_secret.slice(6))).toBe(false);
    // a test delivery is not retried
    const retry = await call("POST", `/v1/webhooks/${w.id}/deliveries/${r.body.data.delivery_id}/retry`, { key: T1.secretKey });
    expect(retry.status).toBe(409);
    expect(retry.body.error.code).toBe("delivery_not_retryable");
  });

  test("a failing receiver is reported (success false), not a 5xx; override_url follows the URL rules", async () => {
    const rx = startReceiver(() => new Response("x".repeat(5000), { status: 500 }));
    receivers.push(rx);
    const w = await withPrivate(async () => (await create(T1.secretKey, { url: "https://public.test/t", events: ["notification.sent"] })).body.data);
    const r = await withPrivate(() => call("POST", `/v1/webhooks/${w.id}/test`, { key: T1.secretKey, body: { override_url: rx.url } }));
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ success: false, status_code: 500, error: { code: "http_500" } });
    const [d] = await sql`select response_body from webhook_deliveries where id = ${r.body.data.delivery_id}`;
    expect(d!.response_body).toBe("x".repeat(1024)); // the first 1 KiB

    const refused = await call("POST", `/v1/webhooks/${w.id}/test`, { key: T1.secretKey, body: { override_url: rx.url } });
    expect(refused.status).toBe(422);
    expect(Object.keys(refused.body.error.details)).toEqual(["override_url"]);

    // nothing listens: still an answer
    const dead = await withPrivate(() => call("POST", `/v1/webhooks/${w.id}/test`, { key: T1.secretKey, body: { override_url: "http://127.0.0.1:9/x" } }));
    expect(dead.status).toBe(200);
    expect(dead.body.data).toMatchObject({ success: false, status_code: null });
    expect(dead.body.data.error.code).toBe("connection_error");
    expect((await call("POST", `/v1/webhooks/${crypto.randomUUID()}/test`, { key: T1.secretKey })).status).toBe(404);
  });
});

describe("GET /v1/webhooks/:id/deliveries", () => {
  test("newest first, limit default 20 and at most 100, cursor paged, filters", async () => {
    const w = (await create(T2.secretKey, { url: "https://public.test/pages", events: ["notification.sent"] })).body.data;
    const ids: string[] = [];
    for (let i = 0; i < 25; i++) {
      const id = Bun.randomUUIDv7();
      ids.push(id);
      await sql`insert into webhook_deliveries (id, webhook_id, tenant_id, event_id, event_type, attempt, status, kind)
        values (${id}, ${w.id}, ${T2.tenant.id}, ${Bun.randomUUIDv7()}, 'notification.sent', 1, ${i % 2 ? "failed" : "success"}, 'auto')`;
    }
    const first = await call("GET", `/v1/webhooks/${w.id}/deliveries`, { key: T2.secretKey });
    expect(first.body.data).toHaveLength(20);
    expect(first.body.data[0].id).toBe(ids[24]);
    expect(first.body.meta.has_more).toBe(true);
    const second = await call("GET", `/v1/webhooks/${w.id}/deliveries?cursor=${first.body.meta.cursor}`, { key: T2.secretKey });
    expect(second.body.data.map((d: any) => d.id)).toEqual(ids.slice(0, 5).reverse());
    expect(second.body.meta).toEqual({ cursor: null, has_more: false });
    const failed = await call("GET", `/v1/webhooks/${w.id}/deliveries?status=failed&limit=100`, { key: T2.secretKey });
    expect(failed.body.data).toHaveLength(12);
    expect((await call("GET", `/v1/webhooks/${w.id}/deliveries?limit=101`, { key: T2.secretKey })).status).toBe(422);
    expect((await call("GET", `/v1/webhooks/${w.id}/deliveries?cursor=nope`, { key: T2.secretKey })).status).toBe(422);
    expect((await call("GET", `/v1/webhooks/${w.id}/deliveries`, { key: T1.secretKey })).status).toBe(404);
    await call("DELETE", `/v1/webhooks/${w.id}`, { key: T2.secretKey });
    expect((await sql`select 1 from webhook_deliveries where webhook_id = ${w.id}`).length).toBe(0);
  });
});
