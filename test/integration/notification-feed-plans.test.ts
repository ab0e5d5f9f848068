// The activity feed is indexed (issue 27 item 3): with a tenant of 60,000 notifications (and the
// statistics ANALYZE gathers), PostgreSQL reads each filter of GET /v1/notifications through the
// index made for it, and never scans the table. The plans printed here are the ones docs/notifications.md shows.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { genericPlans, poolApplicationName, sql } from "../../store/db";
import { explainNotificationFeed, feedWindows, listNotificationFeed, type FeedFilter } from "../../store/notification-feed";
import { DAY_MS, dayStart } from "../../store/history-keys";
import { createTenant } from "../support/fixtures";
import { dropTenant } from "./workflow-support";

let T: Awaited<ReturnType<typeof createTenant>>;
let subscriberId: string;
const ROWS = 60_000;

beforeAll(async () => {
  T = await createTenant();
  const tenant = T.tenant.id;
  const [wf] = await sql<{ id: string }[]>`
    insert into workflows (id, tenant_id, environment, lineage_id, slug, name, steps, version)
    values (gen_random_uuid(), ${tenant}, 'production', gen_random_uuid(), 'onboarding', 'Onboarding', '[]', 1) returning id`;
  // 3,000 runs of the workflow, each with one step notification below
  await sql`
    insert into workflow_runs (id, tenant_id, environment, workflow_id, workflow_version, workflow_slug, recipient, status, started_at)
    select gen_random_uuid(), ${tenant}, 'production', ${wf!.id}, 1, 'onboarding', 'user-' || i, 'completed', now() - (i || ' minutes')::interval
    from generate_series(1, 3000) i`;
  const runs = await sql<{ id: string }[]>`select id from workflow_runs where tenant_id = ${tenant} order by started_at`;
  subscriberId = crypto.randomUUID();
  // 60,000 notifications over 30 days: 5,000 addresses, 20 templates, 2,000 subscribers, 5 channels;
  // 2% failed, 1% bounced, the rest delivered; every 200th a workflow step (one in 20 made the walk of
  // the time index a near tie with the workflow index, and the plan flipped with the test database's
  // history; a workflow's share of a tenant's feed is what the index is for)
  await sql`
    insert into notifications (id, tenant_id, environment, channel, recipient, subscriber_id, template_slug, status, idempotency_key, created_at, updated_at)
    select nms_uuid_v7_at(now() - (i * 43 || ' seconds')::interval), ${tenant}, 'production',
      (array['email','sms','in_app','push','whatsapp'])[1 + i % 5],
      'user' || (i % 5000) || '@example.com',
      case when i % 2000 = 0 then ${subscriberId}::uuid else md5('s' || (i % 2000))::uuid end,
      case when i % 7 = 0 then null else 'template-' || (i % 20) end,
      case when i % 50 = 0 then 'failed' when i % 100 = 1 then 'bounced' else 'delivered' end,
      case when i % 200 = 0 then 'wfrun:' || (${runs.map((r) => r.id)}::text[])[1 + (i / 200) % 3000] || ':step:0' end,
      now() - (i * 43 || ' seconds')::interval, now()
    from generate_series(1, ${ROWS}) i`;
  // statistics from (nearly) every row rather than a random sample of 30,000: the plans compared here
  // must not depend on which rows a sample happened to draw (once, under load, the subscriber filter's
  // estimate came out high enough that the time index won)
  await sql.begin(async (tx) => {
    await tx`set local default_statistics_target = 1000`;
    await tx`analyze notifications`;
    await tx`analyze workflow_runs`;
  });
}, 120_000);

afterAll(async () => {
  if (T) await dropTenant(T.tenant.id);
});

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  Plans?: PlanNode[];
}

function nodes(n: PlanNode): PlanNode[] {
  return [n, ...(n.Plans ?? []).flatMap(nodes)];
}

// notifications is partitioned by day (docs/operations.md#partitioning): a plan reads its partitions
// (notifications_legacy, notifications_p<day>, notifications_default) through their copies of each
// index, which pg_inherits ties to the index made on the parent
const isNotifications = (rel: string | undefined) => rel === "notifications" || /^notifications_(legacy|default|p\d{8})$/.test(rel ?? "");
async function parentIndexes(): Promise<Map<string, string>> {
  const rows = await sql<{ child: string; parent: string }[]>`
    select c.relname as child, p.relname as parent from pg_inherits i
    join pg_class c on c.oid = i.inhrelid join pg_class p on p.oid = i.inhparent
    where p.relkind = 'I'`;
  return new Map(rows.map((r) => [r.child, r.parent]));
}

async function plan(f: FeedFilter, generic = false) {
  // A window over whole days of rows, as each window of a page is on day partitions: here the test
  // database's legacy partition holds all 30 days, and a 2-day window over a sliver of it would make a
  // range read of the primary key the cheaper plan for a tenant alone in the table.
  const page = { limit: 21, cursor: null };
  const window = { lo: dayStart(Date.now() - 31 * DAY_MS), hi: feedWindows(f, page)[0]!.hi };
  const [doc] = (await explainNotificationFeed({ tenantId: T.tenant.id, environment: "production" }, f, page, { window, generic })) as { Plan: PlanNode }[];
  const all = nodes(doc!.Plan);
  const onNotifications = all.filter((n) => isNotifications(n["Relation Name"]));
  const parents = await parentIndexes();
  expect(onNotifications.length).toBeGreaterThan(0);
  // the day partitions made ahead are empty: a sequential scan of nothing costs nothing and is allowed
  const filled = new Set(
    (await sql<{ relname: string }[]>`select relname from pg_class where relname like 'notifications%' and relkind = 'r' and reltuples > 0`).map((r) => r.relname),
  );
  // an index read is an Index (Only) Scan on a partition, or a Bitmap Heap Scan on one whose Bitmap Index Scans
  // (under it, through BitmapAnd/Or) name the index: the planner takes either for the same index
  const bitmapIndexes = (n: PlanNode): string[] =>
    (n.Plans ?? []).flatMap((c) => (c["Node Type"] === "Bitmap Index Scan" ? [c["Index Name"]!] : c["Node Type"].startsWith("Bitmap") ? bitmapIndexes(c) : []));
  const used = onNotifications.flatMap((n) => (n["Node Type"] === "Bitmap Heap Scan" ? bitmapIndexes(n) : n["Index Name"] ? [n["Index Name"]] : []));
  return {
    indexes: used.map((x) => parents.get(x) ?? x),
    seqScans: onNotifications.filter((n) => n["Node Type"] === "Seq Scan" && filled.has(n["Relation Name"]!)).length,
  };
}

const CASES: [string, FeedFilter, string][] = [
  ["no filter", {}, "notifications_list_by_time"],
  ["recipient", { recipient: "user42@example.com" }, "notifications_feed_recipient"],
  ["subscriber", { subscriberId: "" }, "notifications_feed_subscriber"],
  ["template", { template: "template-3" }, "notifications_feed_template"],
  ["workflow", { workflow: "onboarding" }, "notifications_feed_workflow_run"],
  ["status failed", { status: "failed" }, "notifications_feed_unhappy"],
  ["status bounced and channel", { status: "bounced", channel: "email" }, "notifications_feed_unhappy"],
  ["status delivered", { status: "delivered" }, "notifications_list_by_time"],
  ["channel", { channel: "sms" }, "notifications_list_by_time"],
  ["time range", { createdAfter: new Date(Date.now() - 3 * 86_400_000), createdBefore: new Date(Date.now() - 2 * 86_400_000) }, "notifications_list_by_time"],
];

for (const [name, filter, index] of CASES) {
  test(`${name}: read through ${index}, no sequential scan of notifications`, async () => {
    const f = name === "subscriber" ? { subscriberId } : filter;
    const p = await plan(f);
    expect(p.seqScans).toBe(0);
    expect(p.indexes).toContain(index);
  });
  // the feed runs on generic plans (store/db.ts genericPlans): planned once without the filter's values, the
  // same index must serve (the unhappy statuses' literal list is what lets a generic plan use the partial index)
  test(`${name}, generic plan: read through ${index}, no sequential scan of notifications`, async () => {
    const f = name === "subscriber" ? { subscriberId } : filter;
    const p = await plan(f, true);
    expect(p.seqScans).toBe(0);
    expect(p.indexes).toContain(index);
  });
}

test("the feed reads on the generic-plan pool: its connections force generic plans", async () => {
  const rows = await listNotificationFeed({ tenantId: T.tenant.id, environment: "production" }, { template: "template-3" }, { limit: 5, cursor: null });
  expect(rows.length).toBe(6);
  // the pool's connection that ran it shows the statement as its last query (pg_stat_activity keeps it while idle)
  const ran = await sql<{ query: string }[]>`select query from pg_stat_activity where application_name = ${`${poolApplicationName}-generic`}`;
  expect(ran.some((r) => r.query.includes("from notifications") && r.query.includes("template_slug ="))).toBe(true);
  const [mode] = await genericPlans`show plan_cache_mode`;
  expect(mode!.plan_cache_mode).toBe("force_generic_plan");
});
