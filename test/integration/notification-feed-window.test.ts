// The feed's partition-key windows (store/notification-feed.ts): a page reads the newest days first
// and widens only when they cannot fill it; paging returns exactly what an unbounded read returns,
// rows older than every window and rows whose created_at lies beside their id's moment included.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { sql } from "../../store/db";
import { explainNotificationFeed, feedWindows, ID_TIME_SKEW_MS, listNotificationFeed, type FeedFilter } from "../../store/notification-feed";
import { DAY_MS, dayStart } from "../../store/history-keys";
import { pageOf, type Cursor } from "../../store/cursor";
import { createTenant } from "../support/fixtures";
import { dropTenant } from "./workflow-support";

let T: Awaited<ReturnType<typeof createTenant>>;
const scope = () => ({ tenantId: T.tenant.id, environment: "production" });
const now = Date.now();
// the first window's lower bound: midnight starting yesterday (UTC), as feedWindows computes it
const edge = dayStart(now + ID_TIME_SKEW_MS) - DAY_MS;

beforeAll(async () => {
  T = await createTenant();
  const tenant = T.tenant.id;
  // rows at chosen moments (seconds before now), id made at that moment and created_at `skew` seconds later
  const at = async (secondsAgo: number[], skewSeconds = 0, channel = "email") => {
    await sql`
      insert into notifications (id, tenant_id, environment, channel, recipient, status, created_at, updated_at)
      select nms_uuid_v7_at(to_timestamp(${now / 1000}::float8 - s)), ${tenant}, 'production', ${channel}, 'a' || s || '@example.com', 'delivered',
             to_timestamp(${now / 1000}::float8 - s + ${skewSeconds}), now()
      from unnest(${secondsAgo}::float8[]) s`;
  };
  const edgeAgo = (now - edge) / 1000;
  // a few rows now; rows around the first window's edge, some with their id just below it and their
  // created_at just above it (within the margin); rows 3-5 days back (second window); rows 20-40 days
  // back (only the last, unbounded window); two rows sharing one created_at (ties go by id)
  await at([5, 60, 3600]);
  await at([edgeAgo - 700, edgeAgo - 300, edgeAgo - 5, edgeAgo - 2, edgeAgo + 5, edgeAgo + 200]);
  await at([edgeAgo + 60, edgeAgo + 240], 300); // ids below the edge, created_at above it
  await at(Array.from({ length: 12 }, (_, i) => 3 * 86_400 + i * 14_400));
  await at(Array.from({ length: 9 }, (_, i) => 20 * 86_400 + i * 200_000), 0, "sms");
  await sql`
    insert into notifications (id, tenant_id, environment, channel, recipient, status, created_at, updated_at)
    select nms_uuid_v7_at(now() - interval '10 days'), ${tenant}, 'production', 'email', 'tie' || g || '@example.com', 'delivered',
           date_trunc('second', now() - interval '10 days'), now()
    from generate_series(1, 2) g`;
});

afterAll(async () => {
  if (T) await dropTenant(T.tenant.id);
});

/** Every row the filters allow, in the feed's order, read without any window. */
async function truth(f: { channel?: string; after?: Date; before?: Date } = {}) {
  const rows = await sql<{ id: string }[]>`
    select id from notifications where tenant_id = ${T.tenant.id} and environment = 'production'
      ${f.channel ? sql`and channel = ${f.channel}` : sql``}
      ${f.after ? sql`and created_at >= ${f.after}` : sql``}
      ${f.before ? sql`and created_at < ${f.before}` : sql``}
    order by created_at desc, id desc`;
  return rows.map((r) => r.id);
}

/** Pages through the feed the way GET /v1/notifications does; returns ids in order. */
async function walk(f: FeedFilter, limit: number) {
  const ids: string[] = [];
  let cursor: Cursor | null = null;
  for (let i = 0; i < 200; i++) {
    const rows = await listNotificationFeed(scope(), f, { limit, cursor });
    const { page, meta } = pageOf(rows, limit, (r) => ({ t: r.created_at.toISOString(), id: r.id }));
    ids.push(...page.map((r) => r.id));
    if (!meta.has_more) return ids;
    cursor = { t: page[page.length - 1]!.created_at.toISOString(), id: page[page.length - 1]!.id };
  }
  throw new Error("feed did not end");
}

test("paging with every page size returns every row once, newest first, across the windows' edges", async () => {
  const all = await truth();
  expect(all.length).toBe(34);
  // limit 6: the newest window holds 7 rows, its 6th just above the edge, while 2 rows below it in id come first by created_at
  for (const limit of [1, 2, 3, 5, 6, 7, 50]) expect(await walk({}, limit)).toEqual(all);
});

test("filters and time bounds keep their meaning: created_after / created_before, channel", async () => {
  const after = new Date(now - 4 * DAY_MS);
  const before = new Date(now - 2 * 3600_000);
  for (const limit of [1, 4]) {
    expect(await walk({ createdAfter: after }, limit)).toEqual(await truth({ after }));
    expect(await walk({ createdBefore: before }, limit)).toEqual(await truth({ before }));
    expect(await walk({ createdAfter: after, createdBefore: before }, limit)).toEqual(await truth({ after, before }));
    // only rows older than every window: the walk reaches them through its last window
    expect(await walk({ channel: "sms" }, limit)).toEqual(await truth({ channel: "sms" }));
  }
});

test("a page the newest days fill plans only their partitions: the days ahead and the default are pruned while planning", async () => {
  const today = new Date(dayStart(now)).toISOString().slice(0, 10);
  // days ahead exist (the partition job makes 7); the window ends after tomorrow
  // (from the legacy partition's end: a fresh test database's legacy partition holds the first days)
  await sql`select nms_create_day_partition('notifications', d::date)
            from history_partitioned_tables h, generate_series(greatest(${today}::date, (nms_uuid_v7_time(h.legacy_bound) at time zone 'UTC')::date), ${today}::date + 7, interval '1 day') d
            where h.table_name = 'notifications'`;
  const w = feedWindows({}, { limit: 3, cursor: null }, now)[0]!;
  expect(w.hi! - w.lo!).toBe(3 * DAY_MS);
  const lines = (await explainNotificationFeed(scope(), {}, { limit: 3, cursor: null }, { analyze: true, window: w })) as string[];
  const parts = new Set(lines.flatMap((l) => [...l.matchAll(/ on (notifications_(p\d{8}|legacy|default))\b/g)].map((m) => m[1]!)));
  const ahead = (d: number) => `notifications_p${new Date(dayStart(now) + d * DAY_MS).toISOString().slice(0, 10).replace(/-/g, "")}`;
  expect(parts.size).toBeGreaterThan(0);
  for (const d of [2, 3, 4, 5]) expect(parts.has(ahead(d))).toBe(false);
  expect(parts.has("notifications_default")).toBe(false);
  // pruned at plan time (a literal bound), not at execution: no "Subplans Removed"
  expect(lines.some((l) => l.includes("Subplans Removed"))).toBe(false);
});
