// /v1/topics through app.handle (issue 22): create with its field rules and 409 on a taken key,
// Idempotency-Key, cursor-paged list, get, delete, members add/remove with added/already/not_found,
// the member list, scope isolation, and an erased subscriber leaving every topic.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { config } from "../../config";
import { sql } from "../../store/db";
import { call, createTenant } from "../support/fixtures";
import { connect, deletePrefix } from "../support/runtime-redis";

let T: Awaited<ReturnType<typeof createTenant>>;
let other: Awaited<ReturnType<typeof createTenant>>;
const key = () => T.sandboxKey;

beforeAll(async () => {
  T = await createTenant();
  other = await createTenant();
  const subs = Array.from({ length: 5 }, (_, i) => ({ external_id: `u${i}`, email: `u${i}@example.com` }));
  for (const s of subs) expect((await call("POST", "/v1/subscribers", { key: key(), body: s })).status).toBe(201);
});

afterAll(async () => {
  for (const t of [T, other]) {
    await sql`delete from events where tenant_id = ${t.tenant.id}`;
    await sql`delete from tenants where id = ${t.tenant.id}`;
  }
  const r = connect();
  await deletePrefix(r, config.redisPrefix);
  await r.quit();
});

const topicCount = async () => (await sql`select count(*)::int as n from topics where tenant_id = ${T.tenant.id}`)[0]!.n as number;

describe("POST /v1/topics", () => {
  test("201 with id, key, name, subscriber_count 0, created_at", async () => {
    const r = await call("POST", "/v1/topics", { key: key(), body: { key: "plan:pro.v1_a-b", name: "Pro" } });
    expect(r.status).toBe(201);
    expect(Object.keys(r.body.data).sort()).toEqual(["created_at", "id", "key", "name", "subscriber_count"]);
    expect(r.body.data).toMatchObject({ key: "plan:pro.v1_a-b", name: "Pro", subscriber_count: 0 });
  });

  test("422 with details per field, nothing created", async () => {
    const before = await topicCount();
    const bad: [Record<string, unknown>, string][] = [
      [{ name: "n" }, "key"],
      [{ key: "", name: "n" }, "key"],
      [{ key: "Upper", name: "n" }, "key"],
      [{ key: "has space", name: "n" }, "key"],
      [{ key: "a".repeat(101), name: "n" }, "key"],
      [{ key: 5, name: "n" }, "key"],
      [{ key: "ok" }, "name"],
      [{ key: "ok", name: "" }, "name"],
      [{ key: "ok", name: "n", extra: 1 }, "extra"],
    ];
    for (const [body, field] of bad) {
      const r = await call("POST", "/v1/topics", { key: key(), body });
      expect(r.status).toBe(422);
      expect(r.body.error.code).toBe("validation_failed");
      expect(Object.keys(r.body.error.details)).toContain(field);
    }
    expect(await topicCount()).toBe(before);
    expect((await call("POST", "/v1/topics", { key: key(), body: { key: "a".repeat(100), name: "n" } })).status).toBe(201);
  });

  test("409 topic_already_exists on a taken key; the same key in another tenant is free", async () => {
    expect((await call("POST", "/v1/topics", { key: key(), body: { key: "dup", name: "a" } })).status).toBe(201);
    const r = await call("POST", "/v1/topics", { key: key(), body: { key: "dup", name: "b" } });
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe("topic_already_exists");
    expect((await call("POST", "/v1/topics", { key: other.sandboxKey, body: { key: "dup", name: "b" } })).status).toBe(201);
  });

  test("Idempotency-Key: a replay answers the first response and creates nothing", async () => {
    const headers = { "idempotency-key": `topic-${crypto.randomUUID()}` };
    const a = await call("POST", "/v1/topics", { key: key(), body: { key: "idem", name: "i" }, headers });
    const before = await topicCount();
    const b = await call("POST", "/v1/topics", { key: key(), body: { key: "idem", name: "i" }, headers });
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.headers.get("idempotent-replayed")).toBe("true");
    expect(b.body.data.id).toBe(a.body.data.id);
    expect(await topicCount()).toBe(before);
  });
});

describe("GET and DELETE", () => {
  test("list is cursor-paged newest first, every topic once", async () => {
    for (let i = 0; i < 5; i++) await call("POST", "/v1/topics", { key: key(), body: { key: `page-${i}`, name: `p${i}` } });
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const r: any = await call("GET", `/v1/topics?limit=2${cursor ? `&cursor=${cursor}` : ""}`, { key: key() });
      expect(r.status).toBe(200);
      expect(r.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...r.body.data.map((t: any) => t.key));
      cursor = r.body.meta.cursor;
      expect(r.body.meta.has_more).toBe(cursor !== null);
      pages++;
    } while (cursor);
    expect(seen.length).toBe(await topicCount());
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.indexOf("page-4")).toBeLessThan(seen.indexOf("page-0"));
    expect(pages).toBeGreaterThan(2);
    expect((await call("GET", "/v1/topics?limit=0", { key: key() })).status).toBe(422);
    expect((await call("GET", "/v1/topics?cursor=nope", { key: key() })).status).toBe(422);
  });

  test("get by key; 404 topic_not_found for unknown and for another tenant's", async () => {
    const r = await call("GET", "/v1/topics/page-1", { key: key() });
    expect(r.status).toBe(200);
    expect(r.body.data.name).toBe("p1");
    const x = await call("GET", "/v1/topics/nope", { key: key() });
    expect(x.status).toBe(404);
    expect(x.body.error.code).toBe("topic_not_found");
    await call("POST", "/v1/topics", { key: other.sandboxKey, body: { key: "theirs", name: "t" } });
    expect((await call("GET", "/v1/topics/theirs", { key: key() })).status).toBe(404);
  });

  test("delete: 204, then 404", async () => {
    expect((await call("DELETE", "/v1/topics/page-2", { key: key() })).status).toBe(204);
    expect((await call("GET", "/v1/topics/page-2", { key: key() })).status).toBe(404);
    expect((await call("DELETE", "/v1/topics/page-2", { key: key() })).status).toBe(404);
  });
});

describe("members", () => {
  test("add: added, already and not_found (external_id or id); the count follows", async () => {
    await call("POST", "/v1/topics", { key: key(), body: { key: "m", name: "members" } });
    const u1 = (await call("GET", "/v1/subscribers/u1", { key: key() })).body.data.id;
    const a = await call("POST", "/v1/topics/m/subscribers", { key: key(), body: { subscribers: ["u0", u1, "ghost"] } });
    expect(a.status).toBe(200);
    expect(a.body.data).toEqual({ added: 2, already: 0, not_found: ["ghost"] });
    const b = await call("POST", "/v1/topics/m/subscribers", { key: key(), body: { subscribers: ["u0", "u1", "u2", "u2"] } });
    expect(b.body.data).toEqual({ added: 1, already: 2, not_found: [] });
    expect((await call("GET", "/v1/topics/m", { key: key() })).body.data.subscriber_count).toBe(3);
  });

  test("member list is cursor-paged and holds each member once", async () => {
    const ids: string[] = [];
    let cursor: string | null = null;
    do {
      const r: any = await call("GET", `/v1/topics/m/subscribers?limit=2${cursor ? `&cursor=${cursor}` : ""}`, { key: key() });
      expect(r.status).toBe(200);
      ids.push(...r.body.data.map((s: any) => s.external_id));
      cursor = r.body.meta.cursor;
    } while (cursor);
    expect(ids.sort()).toEqual(["u0", "u1", "u2"]);
    expect((await call("GET", "/v1/topics/nope/subscribers", { key: key() })).status).toBe(404);
  });

  test("remove: removed, already (not members), not_found; the count follows", async () => {
    const r = await call("DELETE", "/v1/topics/m/subscribers", { key: key(), body: { subscribers: ["u2", "u3", "ghost"] } });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ removed: 1, already: 1, not_found: ["ghost"] });
    expect((await call("GET", "/v1/topics/m", { key: key() })).body.data.subscriber_count).toBe(2);
  });

  test("422 on a bad list (empty, over 1,000, not strings) with details keyed by index; 404 on an unknown topic", async () => {
    const bad = async (body: unknown, field: string) => {
      const r = await call("POST", "/v1/topics/m/subscribers", { key: key(), body });
      expect(r.status).toBe(422);
      expect(Object.keys(r.body.error.details)).toContain(field);
    };
    await bad({}, "subscribers");
    await bad({ subscribers: [] }, "subscribers");
    await bad({ subscribers: Array.from({ length: 1001 }, (_, i) => `x${i}`) }, "subscribers");
    await bad({ subscribers: ["u4", 7] }, "subscribers[1]");
    expect((await call("GET", "/v1/topics/m", { key: key() })).body.data.subscriber_count).toBe(2);
    const ok = await call("POST", "/v1/topics/m/subscribers", { key: key(), body: { subscribers: Array.from({ length: 1000 }, (_, i) => `x${i}`) } });
    expect(ok.body.data.not_found.length).toBe(1000);
    expect((await call("POST", "/v1/topics/nope/subscribers", { key: key(), body: { subscribers: ["u0"] } })).status).toBe(404);
  });

  test("another tenant's subscribers are not_found", async () => {
    await call("POST", "/v1/subscribers", { key: other.sandboxKey, body: { external_id: "theirs-1" } });
    const r = await call("POST", "/v1/topics/m/subscribers", { key: key(), body: { subscribers: ["theirs-1"] } });
    expect(r.body.data).toEqual({ added: 0, already: 0, not_found: ["theirs-1"] });
  });

  test("an erased subscriber leaves every topic (and the counts follow)", async () => {
    await call("POST", "/v1/topics", { key: key(), body: { key: "m2", name: "second" } });
    await call("POST", "/v1/topics/m2/subscribers", { key: key(), body: { subscribers: ["u0", "u4"] } });
    expect((await call("DELETE", "/v1/subscribers/u0", { key: key() })).status).toBe(204);
    for (const [topic, left] of [["m", ["u1"]], ["m2", ["u4"]]] as const) {
      const t = await call("GET", `/v1/topics/${topic}`, { key: key() });
      expect(t.body.data.subscriber_count).toBe(left.length);
      const list = await call("GET", `/v1/topics/${topic}/subscribers`, { key: key() });
      expect(list.body.data.map((s: any) => s.external_id)).toEqual([...left]);
    }
    const rows = await sql`select count(*)::int as n from topic_subscribers m join topics t on t.id = m.topic_id where t.tenant_id = ${T.tenant.id} and m.subscriber_id in (select id from subscribers where deleted_at is not null)`;
    expect(rows[0]!.n).toBe(0);
  });
});
