// POST/GET /v1/notifications and attempts (SPEC "Notifications", DESIGN.md 6): aliases, recipient
// rules per channel, template and channel checks, 202 before delivery, paging, filters, tenant isolation.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { call, createKey, createTenant, createListeningTenant } from "../support/fixtures";
import { sql } from "../../store/db";
import { blockDomain, unblockDomain } from "../../store/blocked-domains";
import { acceptNotification } from "../../domain/notifications/accept";

let T: Awaited<ReturnType<typeof createTenant>>;
let other: Awaited<ReturnType<typeof createTenant>>;
const blocked = `blocked-${crypto.randomUUID().slice(0, 8)}.example`;

const send = (key: string, body: unknown) => call("POST", "/v1/notifications", { key, body });

beforeAll(async () => {
  T = await createListeningTenant();
  other = await createListeningTenant();
  await blockDomain(blocked);
});

afterAll(async () => {
  await unblockDomain(blocked);
});

describe("POST /v1/notifications", () => {
  test("202 with id, channel, recipient, status pending, created_at (sandbox without configuration)", async () => {
    const r = await send(T.sandboxKey, { channel: "email", to: "Ana@Example.com", data: { subject: "Hi", content: "Hello" } });
    expect(r.status).toBe(202);
    expect(Object.keys(r.body.data).sort()).toEqual(["channel", "created_at", "id", "recipient", "status"]);
    expect(r.body.data).toMatchObject({ channel: "email", recipient: "ana@example.com", status: "pending" });
    expect(r.body.data.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const [row] = await sql`select status, tenant_id, environment, content, data from notifications where id = ${r.body.data.id}`;
    expect(row).toMatchObject({ tenant_id: T.tenant.id, environment: "sandbox" });
    expect(row!.content).toMatchObject({ subject: "Hi", text: "Hello" });
  });

  test("aliases: recipient, payload, template_id", async () => {
    await call("POST", "/v1/templates", {
      key: T.sandboxKey,
      body: { slug: "welcome-sms", name: "Welcome", channel: "sms", content: "Hi {{ name }}" },
    });
    const r = await send(T.sandboxKey, { channel: "sms", recipient: "+5511912345678", template_id: "welcome-sms", payload: { name: "Ana" } });
    expect(r.status).toBe(202);
    const [row] = await sql`select template_slug, data, content from notifications where id = ${r.body.data.id}`;
    expect(row).toMatchObject({ template_slug: "welcome-sms", data: { name: "Ana" }, content: { content: "Hi Ana" } });
  });

  test("metadata is stored, not processed", async () => {
    const r = await send(T.sandboxKey, { channel: "sms", to: "+5511912345678", data: { content: "x" }, metadata: { order: 42 } });
    const d = await call("GET", `/v1/notifications/${r.body.data.id}`, { key: T.sandboxKey });
    expect(d.body.data.metadata).toEqual({ order: 42 });
  });

  test("422 validation_failed: channel missing or unknown", async () => {
    const a = await send(T.sandboxKey, { to: "a@example.com" });
    expect(a.status).toBe(422);
    expect(a.body.error.code).toBe("validation_failed");
    expect(a.body.error.details.channel).toBeDefined();
    const b = await send(T.sandboxKey, { channel: "fax", to: "a@example.com" });
    expect(b.status).toBe(422);
    expect(b.body.error.details.channel).toBeDefined();
  });

  test("422 validation_failed when neither to nor recipient is given", async () => {
    const r = await send(T.sandboxKey, { channel: "sms", data: { content: "x" } });
    expect(r.status).toBe(422);
    expect(r.body.error.details.to).toBeDefined();
  });

  test.each([
    ["email", "not-an-email", "to"],
    ["sms", "11912345678", "to"],
    ["sms", "+0123", "recipient"],
    ["whatsapp", "+55 11 91234-5678", "to"],
    ["push", "short", "to"],
    ["push", '{"endpoint":"https://push.example/x"}', "to"],
    ["in_app", "no-such-subscriber", "recipient"],
  ])("422 for an invalid %s recipient %p (details.%s)", async (channel, recipient, field) => {
    const data = { content: "x", title: "t", body: "b", subject: "s" };
    const r = await send(T.sandboxKey, { channel, [field]: recipient, data });
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe("validation_failed");
    expect(r.body.error.details[field]).toBeDefined();
  });

  test("in_app recipient: an existing subscriber by external_id or id", async () => {
    const s = await call("POST", "/v1/subscribers", { key: T.sandboxKey, body: { external_id: "user-inapp-1" } });
    expect(s.status).toBeLessThan(300);
    const byExt = await send(T.sandboxKey, { channel: "in_app", to: "user-inapp-1", data: { title: "T", body: "B" } });
    expect(byExt.status).toBe(202);
    const byId = await send(T.sandboxKey, { channel: "in_app", to: s.body.data.id, data: { title: "T", body: "B" } });
    expect(byId.status).toBe(202);
    const [row] = await sql`select subscriber_id from notifications where id = ${byExt.body.data.id}`;
    expect(row!.subscriber_id).toBe(s.body.data.id);
  });

  test("push recipient: an FCM token or a Web Push subscription as JSON text", async () => {
    const token = "fcmTok_" + "a".repeat(140);
    expect((await send(T.sandboxKey, { channel: "push", to: token, data: { title: "T", body: "B" } })).status).toBe(202);
    const sub = JSON.stringify({
      endpoint: "https://push.example/sub/1",
      keys: { p256dh: Buffer.alloc(65, 4).toString("base64url"), auth: Buffer.alloc(16, 1).toString("base64url") },
    });
    expect((await send(T.sandboxKey, { channel: "push", to: sub, data: { title: "T", body: "B" } })).status).toBe(202);
  });

  test("422 email_domain_blocked for a blocked email domain", async () => {
    const r = await send(T.sandboxKey, { channel: "email", to: `x@${blocked}`, data: { subject: "s", content: "c" } });
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe("email_domain_blocked");
  });

  test("404 template_not_found for an unknown template", async () => {
    const r = await send(T.sandboxKey, { channel: "sms", to: "+5511912345678", template: "nope" });
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe("template_not_found");
  });

  test("production + draft template -> 422 template_not_active; sandbox accepts drafts", async () => {
    await call("POST", "/v1/channels", { key: T.secretKey, body: { channel: "sms", provider: "sandbox" } });
    await call("POST", "/v1/templates", { key: T.secretKey, body: { slug: "draft-sms", name: "D", channel: "sms", content: "x", status: "draft" } });
    const r = await send(T.secretKey, { channel: "sms", to: "+5511912345678", template: "draft-sms" });
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe("template_not_active");
    await call("POST", "/v1/templates", { key: T.sandboxKey, body: { slug: "draft-sms", name: "D", channel: "sms", content: "x", status: "draft" } });
    expect((await send(T.sandboxKey, { channel: "sms", to: "+5511912345678", template: "draft-sms" })).status).toBe(202);
  });

  test("422 when the template belongs to another channel", async () => {
    await call("POST", "/v1/templates", { key: T.sandboxKey, body: { slug: "mail-only", name: "M", channel: "email", content: "x", variants: { subject: "s" } } });
    const r = await send(T.sandboxKey, { channel: "sms", to: "+5511912345678", template: "mail-only" });
    expect(r.status).toBe(422);
    expect(r.body.error.details.template).toBeDefined();
  });

  test("production channel without configuration -> 422 channel_not_configured; in_app uses the inbox", async () => {
    const r = await send(T.secretKey, { channel: "whatsapp", to: "+5511912345678", data: { content: "x" } });
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe("channel_not_configured");
    await call("POST", "/v1/subscribers", { key: T.secretKey, body: { external_id: "prod-user" } });
    expect((await send(T.secretKey, { channel: "in_app", to: "prod-user", data: { title: "T" } })).status).toBe(202);
  });

  test.each([
    ["sms", {}, "data.content"],
    ["whatsapp", { title: "x" }, "data.content"],
    ["in_app", { content: "x" }, "data.title"],
    ["push", {}, "data.title"],
    ["email", { content: "no subject" }, "data.subject"],
    ["email", { subject: "no body" }, "data.html_body"],
  ])("422 without a template or the raw fields %s needs", async (channel, data, field) => {
    const to = channel === "email" ? "a@example.com" : channel === "push" ? "t".repeat(30) : channel === "in_app" ? "user-inapp-1" : "+5511912345678";
    const r = await send(T.sandboxKey, { channel, to, data });
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe("validation_failed");
    expect(r.body.error.details[field]).toBeDefined();
  });

  test("401 without a key, 403 with a read-only key", async () => {
    expect((await call("POST", "/v1/notifications", { body: { channel: "sms" } })).status).toBe(401);
    const ro = await createKey(T.tenant.id, { environment: "sandbox", permissions: ["read"] });
    const r = await send(ro.raw, { channel: "sms", to: "+5511912345678", data: { content: "x" } });
    expect(r.status).toBe(403);
  });

  test("400 invalid_json for a malformed body", async () => {
    const r = await call("POST", "/v1/notifications", { key: T.sandboxKey, rawBody: "{nope" });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe("invalid_json");
  });
});

describe("GET /v1/notifications", () => {
  let L: Awaited<ReturnType<typeof createTenant>>;
  const ids: string[] = [];
  beforeAll(async () => {
    L = await createListeningTenant();
    for (let i = 0; i < 5; i++) {
      const r = await send(L.sandboxKey, { channel: i % 2 ? "sms" : "email", to: i % 2 ? "+5511912345678" : `u${i}@example.com`, data: { content: "c", subject: "s" } });
      ids.push(r.body.data.id);
    }
    await sql`update notifications set status = 'delivered' where id = ${ids[0]!}`;
  });

  test("lists newest first with id, channel, recipient, status, template_id, created_at and meta", async () => {
    const r = await call("GET", "/v1/notifications", { key: L.sandboxKey });
    expect(r.status).toBe(200);
    expect(r.body.data.map((n: any) => n.id)).toEqual([...ids].reverse());
    // SPEC's list fields, plus the subscriber and the workflow step (issue 27's activity feed)
    expect(Object.keys(r.body.data[0]).sort()).toEqual(["channel", "created_at", "id", "recipient", "status", "subscriber_id", "template_id", "workflow_step"]);
    expect(r.body.meta).toEqual({ cursor: null, has_more: false });
  });

  test("cursor paging: limit 2 walks every row once", async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 5; i++) {
      const q: string = `/v1/notifications?limit=2${cursor ? `&cursor=${cursor}` : ""}`;
      const r = await call("GET", q, { key: L.sandboxKey });
      seen.push(...r.body.data.map((n: any) => n.id));
      cursor = r.body.meta.cursor;
      if (!r.body.meta.has_more) break;
    }
    expect(seen).toEqual([...ids].reverse());
  });

  test("status and channel filters", async () => {
    const d = await call("GET", "/v1/notifications?status=delivered", { key: L.sandboxKey });
    expect(d.body.data.map((n: any) => n.id)).toEqual([ids[0]]);
    const s = await call("GET", "/v1/notifications?channel=sms", { key: L.sandboxKey });
    expect(s.body.data.every((n: any) => n.channel === "sms")).toBe(true);
    expect(s.body.data.length).toBe(2);
  });

  test("422 for limit 0 or 101, a bad cursor, an unknown status", async () => {
    for (const q of ["limit=0", "limit=101", "cursor=zzz", "status=lost", "channel=fax"]) {
      const r = await call("GET", `/v1/notifications?${q}`, { key: L.sandboxKey });
      expect(r.status).toBe(422);
    }
  });

  test("limit max 100 is accepted", async () => {
    expect((await call("GET", "/v1/notifications?limit=100", { key: L.sandboxKey })).status).toBe(200);
  });

  test("another environment's and another tenant's lists do not show these", async () => {
    const prod = await call("GET", "/v1/notifications", { key: L.secretKey });
    expect(prod.body.data).toEqual([]);
    const o = await call("GET", "/v1/notifications", { key: other.sandboxKey });
    expect(o.body.data.some((n: any) => ids.includes(n.id))).toBe(false);
  });

  test("GET /v1/notifications/:id returns the DESIGN 6 detail with attempts", async () => {
    await sql`insert into notification_attempts (id, notification_id, tenant_id, attempt_number, status, provider, provider_response, error, duration_ms)
      values (${crypto.randomUUID()}, ${ids[0]!}, ${L.tenant.id}, 2, 'success', 'sandbox', '{"ok":true}', null, 5),
             (${crypto.randomUUID()}, ${ids[0]!}, ${L.tenant.id}, 1, 'failure', 'sandbox', '{}', '{"code":"x","message":"y"}', 7)`;
    const r = await call("GET", `/v1/notifications/${ids[0]}`, { key: L.sandboxKey });
    expect(r.status).toBe(200);
    for (const k of ["id", "channel", "recipient", "status", "template_id", "subscriber_id", "data", "metadata", "error", "created_at", "updated_at", "sent_at", "delivered_at", "failed_at", "attempts"]) {
      expect(r.body.data).toHaveProperty(k);
    }
    expect(r.body.data.attempts.map((a: any) => a.attempt_number)).toEqual([1, 2]);
    expect(Object.keys(r.body.data.attempts[0]).sort()).toEqual(["attempt_number", "created_at", "duration_ms", "error", "id", "provider", "provider_response", "status"]);
    const a = await call("GET", `/v1/notifications/${ids[0]}/attempts`, { key: L.sandboxKey });
    expect(a.status).toBe(200);
    expect(a.body.data.map((x: any) => [x.attempt_number, x.status])).toEqual([[1, "failure"], [2, "success"]]);
  });

  test("404 notification_not_found across tenants, environments, and for malformed ids", async () => {
    for (const [key, id] of [
      [other.sandboxKey, ids[0]],
      [L.secretKey, ids[0]],
      [L.sandboxKey, "not-a-uuid"],
      [L.sandboxKey, crypto.randomUUID()],
    ] as [string, string][]) {
      const d = await call("GET", `/v1/notifications/${id}`, { key });
      expect(d.status).toBe(404);
      expect(d.body.error.code).toBe("notification_not_found");
      const a = await call("GET", `/v1/notifications/${id}/attempts`, { key });
      expect(a.status).toBe(404);
      expect(a.body.error.code).toBe("notification_not_found");
    }
  });
});

describe("acceptNotification with a deterministic key (workflow steps: wfrun:<run_id>:step:<index>)", () => {
  test("the second accept returns the first notification: one row, one event, counted once", async () => {
    const W = await createListeningTenant();
    const input = { tenantId: W.tenant.id, environment: "sandbox", channel: "sms", recipient: "+5511912345678", data: { content: "x" }, idempotencyKey: "wfrun:r1:step:0" };
    const [a, b] = await Promise.all([acceptNotification(input), acceptNotification(input)]);
    const c = await acceptNotification(input);
    expect(new Set([a.id, b.id, c.id]).size).toBe(1);
    expect([a.created, b.created].filter(Boolean)).toHaveLength(1);
    expect(c.created).toBe(false);
    expect(await sql`select 1 from notifications where tenant_id = ${W.tenant.id}`).toHaveLength(1);
    expect(await sql`select 1 from events where tenant_id = ${W.tenant.id} and type = 'notification.created'`).toHaveLength(1);
    const o = await call("GET", "/v1/analytics/overview", { key: W.sandboxKey });
    expect(o.body.data.total).toBe(1);
  });
});
