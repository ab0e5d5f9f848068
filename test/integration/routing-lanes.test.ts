// Priority lanes through the channel-sender process kind as production starts it (actors/index.ts: a
// host per lane; issue 23, docs/routing.md): high-priority sends of two tenants go out while a low flood
// still waits, and low work keeps moving under a high flood. Progress and order are asserted, never timings.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startActorHosts, type Running } from "../../actors";
import { config } from "../../config";
import { sql } from "../../store/db";
import { redis } from "../../store/redis";
import { call, createTenant } from "../support/fixtures";
import * as fakeSendgrid from "../support/fake-sendgrid";
import { connect, deletePrefix } from "../support/runtime-redis";
import { waitForStatus } from "./delivery-support";

let sg: fakeSendgrid.FakeSendgrid;
let hosts: Running | null = null;

beforeAll(async () => {
  sg = await fakeSendgrid.start();
  // every send takes 300 ms at the provider: a flood is a backlog for seconds
  sg.always({ kind: "hang", ms: 300 });
});

afterAll(async () => {
  await hosts?.stop();
  await sg.stop();
  const r = connect();
  await deletePrefix(r, config.redisPrefix);
  await r.quit();
});

async function emailTenant() {
  const t = await createTenant();
  const r = await call("POST", "/v1/channels", {
    key: t.secretKey,
    body: { channel: "email", provider: "sendgrid", credentials: { api_key: "SG.lanes" }, settings: { from_email: "hi@acme.test", base_url: sg.url, rate_limit_per_second: 100000 } },
  });
  if (r.status !== 201) throw new Error(`setup: ${r.status} ${r.text}`);
  return t;
}

async function sendMany(key: string, n: number, priority: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i += 50) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(50, n - i) }, (_, k) =>
        call("POST", "/v1/notifications", { key, body: { channel: "email", to: `u${i + k}@example.com`, priority, data: { subject: "s", content: "x" } } }),
      ),
    );
    for (const r of batch) {
      if (r.status !== 202) throw new Error(`accept: ${r.status} ${r.text}`);
      ids.push(r.body.data.id);
    }
  }
  return ids;
}

async function settled(ids: string[], timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [row] = await sql<{ n: number }[]>`select count(*)::int as n from notifications where id = any(${ids}::uuid[]) and status = 'pending'`;
    if (row!.n === 0 || Date.now() > deadline) return row!.n;
    await Bun.sleep(100);
  }
}

describe("priority lanes", () => {
  test("priority is stored and returned; a value outside high|normal|low is 422 naming it", async () => {
    const t = await emailTenant();
    const [id] = await sendMany(t.secretKey, 1, "high");
    const d = await call("GET", `/v1/notifications/${id}`, { key: t.secretKey });
    expect(d.body.data.priority).toBe("high");
    const plain = await call("POST", "/v1/notifications", { key: t.secretKey, body: { channel: "email", to: "p@example.com", data: { subject: "s", content: "x" } } });
    expect((await call("GET", `/v1/notifications/${plain.body.data.id}`, { key: t.secretKey })).body.data.priority).toBe("normal");
    const bad = await call("POST", "/v1/notifications", { key: t.secretKey, body: { channel: "email", to: "p@example.com", priority: "urgent", data: { subject: "s", content: "x" } } });
    expect(bad.status).toBe(422);
    expect(bad.body.error.details.priority).toEqual(["must be one of high, normal, low"]);
    // each lane has streams of its own, named for it
    const keys = await redis.keys(`${config.redisPrefix}:{channel-sender-high:*}`);
    expect(keys.length).toBeGreaterThan(0);
  });

  test("high-priority sends of tenants A and B go out while tenant A's low flood is still queued", async () => {
    const [a, b] = [await emailTenant(), await emailTenant()];
    const flood = await sendMany(a.secretKey, 600, "low");
    hosts = await startActorHosts(["channel-sender"]);
    // the flood is being worked on
    await sg.waitForRequests(20, { kind: "send", timeoutMs: 60_000 });
    const highA = await sendMany(a.secretKey, 5, "high");
    const highB = await sendMany(b.secretKey, 5, "high");
    for (const id of [...highA, ...highB]) expect((await waitForStatus(id, ["sent", "failed"], 60_000))!.status).toBe("sent");
    // every high one is out, and the low flood is not: they did not wait behind it
    const [left] = await sql<{ n: number }[]>`select count(*)::int as n from notifications where id = any(${flood}::uuid[]) and status = 'pending'`;
    expect(left!.n).toBeGreaterThan(0);
    const [order] = await sql<{ last_high: Date; last_low: Date }[]>`
      select (select max(sent_at) from notifications where id = any(${[...highA, ...highB]}::uuid[])) as last_high, null as last_low`;
    // the flood drains in the end
    expect(await settled(flood, 120_000)).toBe(0);
    // most of the flood went out after the last high-priority send (in one shared queue, tenant A's high
    // ones would have waited behind nearly all of A's earlier low ones)
    const [after] = await sql<{ n: number }[]>`select count(*)::int as n from notifications where id = any(${flood}::uuid[]) and sent_at > ${order!.last_high}`;
    expect(after!.n).toBeGreaterThan(flood.length / 2);
  }, 240_000);

  test("low work keeps its share: under a high flood, low sends finish before the high flood does", async () => {
    const t = await emailTenant();
    await hosts?.stop();
    hosts = null;
    const high = await sendMany(t.secretKey, 600, "high");
    const low = await sendMany(t.secretKey, 10, "low");
    hosts = await startActorHosts(["channel-sender"]);
    expect(await settled(low, 120_000)).toBe(0);
    const [left] = await sql<{ n: number }[]>`select count(*)::int as n from notifications where id = any(${high}::uuid[]) and status = 'pending'`;
    expect(left!.n).toBeGreaterThan(0);
    expect(await settled(high, 120_000)).toBe(0);
  }, 240_000);
});
