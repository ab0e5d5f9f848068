// HTTP tests of the in-app inbox routes (SPEC "Subscribers" notifications rows, DESIGN.md 5 and
// 6): deliverToInbox, list/read/read-all/unread-count, inbox.* events, publishable-key access.
import { beforeAll, describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { call, createKey, createTenant } from "../support/fixtures";
import { sql } from "../../store/db";
import { newId } from "../../store/ids";
import { deliverToInbox } from "../../domain/inbox/inbox";

let t: Awaited<ReturnType<typeof createTenant>>;
let key: string;
let scope: { tenantId: string; environment: string };
const uniq = () => crypto.randomUUID().slice(0, 8);

beforeAll(async () => {
  t = await createTenant();
  key = t.secretKey;
  scope = { tenantId: t.tenant.id, environment: "production" };
});

async function subscriber(ext = `in-${uniq()}`) {
  const r = await call("POST", "/v1/subscribers", { key, body: { external_id: ext } });
  expect(r.status).toBe(201);
  return r.body.data as { id: string; external_id: string };
}

async function deliver(recipient: string, n = 1) {
  const out: { itemId: string; notificationId: string }[] = [];
  for (let i = 0; i < n; i++) {
    const notificationId = newId();
    const r = await deliverToInbox({ ...scope, recipient, notificationId, title: `Title ${i}`, body: `Body ${i}`, data: { i } });
    out.push({ itemId: r.itemId, notificationId });
  }
  return out;
}

const eventsOf = (subscriberId: string, type: string) =>
  sql`select * from events where tenant_id = ${scope.tenantId} and type = ${type} and data ->> 'subscriber_id' = ${subscriberId} order by created_at, id`;

describe("deliverToInbox", () => {
  test("resolves by id or external_id, is idempotent per notification and emits inbox.notification.received once", async () => {
    const sub = await subscriber();
    const notificationId = newId();
    const a = await deliverToInbox({ ...scope, recipient: sub.external_id, notificationId, title: "Hi", body: "There", data: { x: 1 } });
    const b = await deliverToInbox({ ...scope, recipient: sub.id, notificationId, title: "Hi", body: "There", data: { x: 1 } });
    expect(b.itemId).toBe(a.itemId);
    const events = await eventsOf(sub.id, "inbox.notification.received");
    expect(events.length).toBe(1);
    expect(events[0]!.data.subscriber_id).toBe(sub.id);
    expect(events[0]!.data.external_id).toBe(sub.external_id);
    expect(events[0]!.data.item).toMatchObject({ id: a.itemId, notification_id: notificationId, title: "Hi", body: "There", data: { x: 1 }, read: false, read_at: null });
  });

  test("an unknown, deleted, other-environment or other-tenant subscriber throws code subscriber_not_found", async () => {
    const sub = await subscriber();
    const other = await createTenant();
    const attempts = [
      () => deliverToInbox({ ...scope, recipient: `nobody-${uniq()}`, notificationId: newId() }),
      () => deliverToInbox({ ...scope, environment: "sandbox", recipient: sub.external_id, notificationId: newId() }),
      () => deliverToInbox({ tenantId: other.tenant.id, environment: "production", recipient: sub.id, notificationId: newId() }),
    ];
    for (const attempt of attempts) await expect(attempt()).rejects.toMatchObject({ code: "subscriber_not_found" });
    await call("DELETE", `/v1/subscribers/${sub.id}`, { key });
    await expect(deliverToInbox({ ...scope, recipient: sub.id, notificationId: newId() })).rejects.toMatchObject({ code: "subscriber_not_found" });
  });
});

describe("GET /v1/subscribers/:id/notifications", () => {
  test("lists DESIGN.md 6 items newest first with meta {total, limit, offset, unread_count}", async () => {
    const sub = await subscriber();
    const items = await deliver(sub.external_id, 3);
    const r = await call("GET", `/v1/subscribers/${sub.external_id}/notifications`, { key });
    expect(r.status).toBe(200);
    expect(r.body.meta).toEqual({ total: 3, limit: 20, offset: 0, unread_count: 3 });
    expect(r.body.data.map((i: any) => i.id)).toEqual(items.map((i) => i.itemId).reverse());
    expect(Object.keys(r.body.data[0]).sort()).toEqual(["body", "created_at", "data", "id", "notification_id", "read", "read_at", "title"]);
    expect(r.body.data[0]).toMatchObject({ title: "Title 2", body: "Body 2", data: { i: 2 }, read: false, read_at: null });
  });

  test("limit, offset and unread_only", async () => {
    const sub = await subscriber();
    const items = await deliver(sub.id, 5);
    await call("POST", `/v1/subscribers/${sub.id}/notifications/${items[0]!.itemId}/read`, { key });
    const page = await call("GET", `/v1/subscribers/${sub.id}/notifications?limit=2&offset=1`, { key });
    expect(page.body.data.map((i: any) => i.id)).toEqual([items[3]!.itemId, items[2]!.itemId]);
    expect(page.body.meta).toEqual({ total: 5, limit: 2, offset: 1, unread_count: 4 });
    const unread = await call("GET", `/v1/subscribers/${sub.id}/notifications?unread_only=true`, { key });
    expect(unread.body.data.length).toBe(4);
    expect(unread.body.data.every((i: any) => i.read === false)).toBe(true);
    expect(unread.body.meta.total).toBe(4);
    for (const q of ["limit=101", "limit=0", "unread_only=maybe", "offset=-2"]) {
      expect((await call("GET", `/v1/subscribers/${sub.id}/notifications?${q}`, { key })).status).toBe(422);
    }
  });

  test("unknown subscriber is 404; another tenant's subscriber is 404", async () => {
    const sub = await subscriber();
    const other = await createTenant();
    expect((await call("GET", `/v1/subscribers/nobody-${uniq()}/notifications`, { key })).status).toBe(404);
    expect((await call("GET", `/v1/subscribers/${sub.id}/notifications`, { key: other.secretKey })).status).toBe(404);
  });
});

describe("read, read-all, unread-count", () => {
  test("POST .../:notif_id/read accepts the item id or the notification id, returns the item, emits inbox.notification.read once", async () => {
    const sub = await subscriber();
    const [a, b] = await deliver(sub.id, 2);
    const r1 = await call("POST", `/v1/subscribers/${sub.id}/notifications/${a!.itemId}/read`, { key });
    expect(r1.status).toBe(200);
    expect(r1.body.data).toMatchObject({ id: a!.itemId, read: true });
    expect(Date.parse(r1.body.data.read_at)).toBeGreaterThan(0);
    const r2 = await call("POST", `/v1/subscribers/${sub.external_id}/notifications/${b!.notificationId}/read`, { key });
    expect(r2.body.data.id).toBe(b!.itemId);
    const again = await call("POST", `/v1/subscribers/${sub.id}/notifications/${a!.itemId}/read`, { key });
    expect(again.body.data.read_at).toBe(r1.body.data.read_at);
    const events = await eventsOf(sub.id, "inbox.notification.read");
    expect(events.map((e: any) => e.data.item.id).sort()).toEqual([a!.itemId, b!.itemId].sort());
    expect(events[0]!.data.external_id).toBe(sub.external_id);
  });

  test("reading an unknown item, or another subscriber's item, is 404", async () => {
    const sub = await subscriber();
    const other = await subscriber();
    const [item] = await deliver(other.id, 1);
    expect((await call("POST", `/v1/subscribers/${sub.id}/notifications/${item!.itemId}/read`, { key })).status).toBe(404);
    expect((await call("POST", `/v1/subscribers/${sub.id}/notifications/${newId()}/read`, { key })).status).toBe(404);
    expect((await call("POST", `/v1/subscribers/${sub.id}/notifications/not-a-uuid/read`, { key })).status).toBe(404);
  });

  test("read-all returns {data: {updated: n}}, unread-count {data: {count}}", async () => {
    const sub = await subscriber();
    await deliver(sub.id, 4);
    expect((await call("GET", `/v1/subscribers/${sub.id}/notifications/unread-count`, { key })).body).toEqual({ data: { count: 4 } });
    const all = await call("POST", `/v1/subscribers/${sub.id}/notifications/read-all`, { key });
    expect(all.status).toBe(200);
    expect(all.body).toEqual({ data: { updated: 4 } });
    expect((await call("POST", `/v1/subscribers/${sub.id}/notifications/read-all`, { key })).body).toEqual({ data: { updated: 0 } });
    expect((await call("GET", `/v1/subscribers/${sub.id}/notifications/unread-count`, { key })).body).toEqual({ data: { count: 0 } });
    expect((await eventsOf(sub.id, "inbox.notification.read")).length).toBe(4);
  });

  test("a read-only secret key can list but not mark read", async () => {
    const sub = await subscriber();
    const [item] = await deliver(sub.id, 1);
    const ro = await createKey(t.tenant.id, { permissions: ["read"] });
    expect((await call("GET", `/v1/subscribers/${sub.id}/notifications`, { key: ro.raw })).status).toBe(200);
    expect((await call("POST", `/v1/subscribers/${sub.id}/notifications/${item!.itemId}/read`, { key: ro.raw })).status).toBe(403);
  });
});

describe("publishable keys (DESIGN.md 5: X-Subscriber-Id, X-Subscriber-Hash, Origin)", () => {
  let pk: string;
  let secret: string;
  const ORIGIN = "http://localhost:5173";
  beforeAll(async () => {
    await sql`update tenants set developer_mode = true where id = ${t.tenant.id}`;
    pk = (await createKey(t.tenant.id, { keyType: "publishable" })).raw;
    secret = (await sql`select inbox_secret from tenants where id = ${t.tenant.id}`)[0]!.inbox_secret;
  });
  const hmac = (ext: string) => createHmac("sha256", secret).update(ext).digest("hex");
  const asSubscriber = (ext: string, hash = hmac(ext)) => ({
    key: pk,
    headers: { origin: ORIGIN, "x-subscriber-id": ext, "x-subscriber-hash": hash },
  });

  test("the right hash reaches the subscriber's own inbox, by external_id or id", async () => {
    const sub = await subscriber();
    const [item] = await deliver(sub.id, 1);
    const list = await call("GET", `/v1/subscribers/${sub.external_id}/notifications`, asSubscriber(sub.external_id));
    expect(list.status).toBe(200);
    expect(list.body.data[0].id).toBe(item!.itemId);
    expect((await call("GET", `/v1/subscribers/${sub.id}/notifications/unread-count`, asSubscriber(sub.external_id))).body).toEqual({ data: { count: 1 } });
    const read = await call("POST", `/v1/subscribers/${sub.id}/notifications/${item!.itemId}/read`, asSubscriber(sub.external_id));
    expect(read.status).toBe(200);
    const prefs = await call("PUT", `/v1/subscribers/${sub.external_id}/preferences`, {
      ...asSubscriber(sub.external_id),
      body: { preferences: [{ category: "all", channel: "email", enabled: false }] },
    });
    expect(prefs.status).toBe(200);
  });

  test("a wrong subscriber hash gets 403", async () => {
    const sub = await subscriber();
    const r = await call("GET", `/v1/subscribers/${sub.external_id}/notifications`, asSubscriber(sub.external_id, hmac("someone-else")));
    expect(r.status).toBe(403);
    const noHash = await call("GET", `/v1/subscribers/${sub.external_id}/notifications`, { key: pk, headers: { origin: ORIGIN, "x-subscriber-id": sub.external_id } });
    expect(noHash.status).toBe(403);
  });

  test("a valid hash for subscriber A can not reach subscriber B (403)", async () => {
    const a = await subscriber();
    const b = await subscriber();
    expect((await call("GET", `/v1/subscribers/${b.external_id}/notifications`, asSubscriber(a.external_id))).status).toBe(403);
    expect((await call("GET", `/v1/subscribers/${b.id}/notifications`, asSubscriber(a.external_id))).status).toBe(403);
    expect((await call("POST", `/v1/subscribers/${b.id}/notifications/read-all`, asSubscriber(a.external_id))).status).toBe(403);
  });

  test("a publishable key can not reach the secret-key subscriber routes (403)", async () => {
    const sub = await subscriber();
    expect((await call("GET", `/v1/subscribers/${sub.id}`, asSubscriber(sub.external_id))).status).toBe(403);
    expect((await call("GET", "/v1/subscribers", asSubscriber(sub.external_id))).status).toBe(403);
    expect((await call("DELETE", `/v1/subscribers/${sub.id}`, asSubscriber(sub.external_id))).status).toBe(403);
  });

  test("an Origin outside the allowed ones gets 403 origin_not_allowed", async () => {
    const sub = await subscriber();
    const r = await call("GET", `/v1/subscribers/${sub.external_id}/notifications`, {
      key: pk,
      headers: { origin: "https://evil.example", "x-subscriber-id": sub.external_id, "x-subscriber-hash": hmac(sub.external_id) },
    });
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe("origin_not_allowed");
  });
});
