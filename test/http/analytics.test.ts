// /v1/analytics/* (SPEC "Analytics", DESIGN.md 6): counters total, sent, delivered, failed, bounced,
// suppressed, opened, clicked, complained from the rollups; delivery_rate; period/granularity/limit validation.
import { beforeAll, describe, expect, test } from "bun:test";
import { applyCounters, compactCounters, type Counter } from "../../store/analytics";
import { sql } from "../../store/db";
import { call, createTenant } from "../support/fixtures";

let T: Awaited<ReturnType<typeof createTenant>>;
const HOUR = 3_600_000;

async function bump(createdAt: Date, channel: string, template: string | null, counts: Partial<Record<Counter, number>>) {
  await applyCounters(
    sql,
    Object.entries(counts).map(([counter, by]) => ({
      tenantId: T.tenant.id,
      environment: "production",
      createdAt,
      channel,
      template,
      counter: counter as Counter,
      by,
    })),
  );
}

beforeAll(async () => {
  T = await createTenant();
  const now = Date.now();
  await bump(new Date(now), "email", "welcome", { total: 10, sent: 8, delivered: 6, failed: 1, bounced: 1, suppressed: 1, opened: 4, clicked: 2, complained: 1 });
  await bump(new Date(now - 2 * HOUR), "sms", "otp", { total: 20, sent: 20, delivered: 18, failed: 2 });
  await bump(new Date(now - 2 * HOUR), "sms", null, { total: 5, sent: 5, delivered: 5 });
  await bump(new Date(now - 3 * 24 * HOUR), "email", "digest", { total: 100, sent: 100, delivered: 90 });
  await bump(new Date(now - 20 * 24 * HOUR), "push", "promo", { total: 7, sent: 7, delivered: 7 });
});

const get = (path: string, key = T.secretKey) => call("GET", path, { key });

describe("GET /v1/analytics/overview", () => {
  test("default period 24h: counters and delivery_rate = delivered / sent", async () => {
    const r = await get("/v1/analytics/overview");
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({
      period: "24h",
      total: 35,
      sent: 33,
      delivered: 29,
      failed: 3,
      bounced: 1,
      suppressed: 1,
      opened: 4,
      clicked: 2,
      complained: 1,
      delivery_rate: Math.round((29 / 33) * 10000) / 10000,
    });
  });

  test("1h, 7d and 30d windows", async () => {
    expect((await get("/v1/analytics/overview?period=1h")).body.data.total).toBe(10);
    expect((await get("/v1/analytics/overview?period=7d")).body.data.total).toBe(135);
    expect((await get("/v1/analytics/overview?period=30d")).body.data.total).toBe(142);
  });

  test("422 for an unknown period", async () => {
    const r = await get("/v1/analytics/overview?period=2h");
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe("validation_failed");
    expect(r.body.error.details.period).toBeDefined();
  });

  test("another tenant and the other environment see zeros, delivery_rate 0", async () => {
    const other = await createTenant();
    expect((await get("/v1/analytics/overview", other.secretKey)).body.data).toMatchObject({ total: 0, sent: 0, delivery_rate: 0 });
    expect((await get("/v1/analytics/overview", T.sandboxKey)).body.data.total).toBe(0);
  });

  test("401 without a key", async () => {
    expect((await call("GET", "/v1/analytics/overview")).status).toBe(401);
  });
});

describe("GET /v1/analytics/channels", () => {
  test("one row per channel with every counter", async () => {
    const r = await get("/v1/analytics/channels?period=7d");
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual([
      { channel: "email", total: 110, sent: 108, delivered: 96, failed: 1, bounced: 1, suppressed: 1, opened: 4, clicked: 2, complained: 1 },
      { channel: "sms", total: 25, sent: 25, delivered: 23, failed: 2, bounced: 0, suppressed: 0, opened: 0, clicked: 0, complained: 0 },
    ]);
  });
  test("422 for an unknown period", async () => {
    expect((await get("/v1/analytics/channels?period=week")).status).toBe(422);
  });
});

describe("GET /v1/analytics/timeseries", () => {
  test("24h defaults to hourly points from the first bucket to now, empty hours as zeros", async () => {
    const r = await get("/v1/analytics/timeseries");
    expect(r.status).toBe(200);
    expect(r.body.data.granularity).toBe("hour");
    const points = r.body.data.points;
    expect(points.length).toBe(25);
    expect(Object.keys(points[0]).sort()).toEqual(["bounced", "clicked", "complained", "delivered", "failed", "opened", "sent", "suppressed", "timestamp", "total"]);
    expect(points.reduce((s: number, p: any) => s + p.total, 0)).toBe(35);
    expect(points[points.length - 1].total).toBe(10);
    expect(points[points.length - 3].total).toBe(25);
    expect(points[0].timestamp).toMatch(/T\d\d:00:00\.000Z$/);
  });

  test("7d and 30d default to daily points", async () => {
    const w = await get("/v1/analytics/timeseries?period=7d");
    expect(w.body.data.granularity).toBe("day");
    expect(w.body.data.points.length).toBe(8);
    expect(w.body.data.points[0].timestamp).toMatch(/T00:00:00\.000Z$/);
    expect(w.body.data.points.reduce((s: number, p: any) => s + p.total, 0)).toBe(135);
    const m = await get("/v1/analytics/timeseries?period=30d");
    expect(m.body.data.points.length).toBe(31);
    expect(m.body.data.points.reduce((s: number, p: any) => s + p.delivered, 0)).toBe(126);
  });

  test("explicit granularity wins", async () => {
    const r = await get("/v1/analytics/timeseries?period=24h&granularity=day");
    expect(r.body.data.granularity).toBe("day");
    expect(r.body.data.points.reduce((s: number, p: any) => s + p.total, 0)).toBe(35);
  });

  test("period 1h: the last hour minute by minute (61 points), counted from the notifications themselves", async () => {
    const r = await get("/v1/analytics/timeseries?period=1h");
    expect(r.status).toBe(200);
    expect(r.body.data.granularity).toBe("minute");
    expect(r.body.data.points.length).toBeGreaterThanOrEqual(60);
    expect(r.body.data.points.length).toBeLessThanOrEqual(61);
    const first = Date.parse(r.body.data.points[0].timestamp);
    expect(Date.now() - first).toBeGreaterThanOrEqual(3_600_000);
    expect(Date.now() - first).toBeLessThan(3_660_000);
    // counted from the notifications themselves (this file's rollups are seeded without any): two sends appear in the current minute
    const total = (body: any) => body.data.points.reduce((s: number, p: any) => s + p.total, 0);
    expect(total(r.body)).toBe(0);
    for (let i = 0; i < 2; i++) {
      expect((await call("POST", "/v1/notifications", { key: T.sandboxKey, body: { channel: "sms", to: "+5511912345678", data: { content: "x" } } })).status).toBe(202);
    }
    const sandbox = await get("/v1/analytics/timeseries?period=1h", T.sandboxKey);
    expect(total(sandbox.body)).toBe(2);
    expect(sandbox.body.data.points.at(-1).total + (sandbox.body.data.points.at(-2)?.total ?? 0)).toBe(2);
    expect(total((await get("/v1/analytics/timeseries?period=1h")).body)).toBe(0);
  });

  test("422 for minute outside 1h, another granularity with 1h, or an unknown one", async () => {
    expect((await get("/v1/analytics/timeseries?granularity=minute")).status).toBe(422);
    expect((await get("/v1/analytics/timeseries?period=1h&granularity=hour")).status).toBe(422);
    expect((await get("/v1/analytics/timeseries?granularity=second")).status).toBe(422);
  });
});

describe("GET /v1/analytics/templates", () => {
  test("rows {template, ...counters} by total, descending; raw-content sends are not a template", async () => {
    const r = await get("/v1/analytics/templates?period=30d");
    expect(r.status).toBe(200);
    expect(r.body.data.map((x: any) => [x.template, x.total])).toEqual([
      ["digest", 100],
      ["otp", 20],
      ["welcome", 10],
      ["promo", 7],
    ]);
    expect(r.body.data[0]).toEqual({ template: "digest", total: 100, sent: 100, delivered: 90, failed: 0, bounced: 0, suppressed: 0, opened: 0, clicked: 0, complained: 0 });
  });

  test("limit (default 10, max 100)", async () => {
    expect((await get("/v1/analytics/templates?period=30d&limit=2")).body.data.map((x: any) => x.template)).toEqual(["digest", "otp"]);
    expect((await get("/v1/analytics/templates?limit=100")).status).toBe(200);
    for (const bad of ["0", "101", "x"]) expect((await get(`/v1/analytics/templates?limit=${bad}`)).status).toBe(422);
  });

  test("422 for an unknown period", async () => {
    expect((await get("/v1/analytics/templates?period=90d")).status).toBe(422);
  });
});

describe("rollups follow real sends", () => {
  test("accepting a notification counts it in total for its channel and template", async () => {
    const A = await createTenant();
    await call("POST", "/v1/templates", { key: A.sandboxKey, body: { slug: "t-count", name: "C", channel: "sms", content: "hi" } });
    for (let i = 0; i < 3; i++) {
      expect((await call("POST", "/v1/notifications", { key: A.sandboxKey, body: { channel: "sms", to: "+5511912345678", template: "t-count" } })).status).toBe(202);
    }
    const t = await get("/v1/analytics/templates", A.sandboxKey);
    expect(t.body.data).toEqual([{ template: "t-count", total: 3, sent: 0, delivered: 0, failed: 0, bounced: 0, suppressed: 0, opened: 0, clicked: 0, complained: 0 }]);
  });
});

describe("compaction", () => {
  test("folding delta rows into shard 0 keeps every answer the same", async () => {
    const before = await Promise.all(["/v1/analytics/overview?period=30d", "/v1/analytics/channels?period=30d", "/v1/analytics/templates?period=30d"].map((p) => get(p)));
    await compactCounters();
    const [{ n }] = await sql`select count(*)::int as n from notification_stats_hourly where tenant_id = ${T.tenant.id} and shard <> 0`;
    expect(n).toBe(0);
    const after = await Promise.all(["/v1/analytics/overview?period=30d", "/v1/analytics/channels?period=30d", "/v1/analytics/templates?period=30d"].map((p) => get(p)));
    expect(after.map((r) => r.body)).toEqual(before.map((r) => r.body));
  });
});
