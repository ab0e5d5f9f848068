// EXPLAIN ANALYZE of the hot reads of the day-partitioned history tables, without and with their
// partition-key bounds (store/history-keys.ts): planning time, execution time and partitions in the plan.
// Usage: node scripts/launch.mjs bench scripts/explain-history-reads.ts <tenant id> [environment]
// (after `npm run bench:history -- --fill-only 1`, which prints the tenant). Each statement runs 3
// times in one session and the last run is shown (the first plans with a cold catalogue cache).
export {};
const { sql } = await import("../store/db");
const { feedQuery, feedWindows } = await import("../store/notification-feed");
const { createdSince, keyDays } = await import("../store/history-keys");
const { providerMessageQuery, receiptWindows } = await import("../store/notifications");
const { inboxEventsQuery } = await import("../domain/inbox/inbox");
const { deliveriesQuery } = await import("../store/webhook-deliveries");

const tenantId = process.argv[2];
const environment = process.argv[3] ?? "sandbox";
if (!tenantId) throw new Error("usage: explain-history-reads.ts <tenant id> [environment]");
const scope = { tenantId, environment };

function summary(lines: string[]) {
  const ms = (k: string) => Number(lines.find((l) => l.trim().startsWith(k))?.replace(/[^\d.]/g, "") ?? NaN);
  const parts = new Set(lines.flatMap((l) => [...l.matchAll(/ on (\w+_(p\d{8}|legacy|default))\b/g)].map((m) => m[1])));
  const never = lines.filter((l) => l.includes("never executed")).length;
  return `planning ${ms("Planning Time").toFixed(2)} ms, execution ${ms("Execution Time").toFixed(2)} ms, ${parts.size} partitions in the plan${never ? ` (${never} never executed)` : ""}`;
}

async function explain(name: string, q: () => any) {
  const c = await sql.reserve();
  try {
    await c`set jit = off`;
    let lines: string[] = [];
    for (let i = 0; i < 3; i++) lines = (await c`explain (analyze, buffers off, costs off, timing off) ${q()}`).map((r: any) => r["QUERY PLAN"]);
    console.log(`${name}: ${summary(lines)}`);
    if (process.env.PLANS) console.log(lines.map((l) => `    ${l}`).join("\n"));
  } finally {
    c.release();
  }
}

const [n] = await sql<{ id: string }[]>`select id from notifications where tenant_id = ${tenantId} and created_at < now() - interval '3 days' order by created_at desc limit 1`;
const id = n!.id;
const page = { limit: 50, cursor: null };
const deep = { limit: 50, cursor: { t: new Date(Date.now() - 20 * 86_400_000).toISOString(), id: "01a0f000-0000-7000-8000-000000000000" } };

await explain("feed first page, unbounded (before)", () => explainSql(page, { lo: null, hi: null }));
await explain("feed first page, first window (after)", () => explainSql(page, feedWindows({}, page)[0]!));
await explain("feed page 20 days back, unbounded (before)", () => explainSql(deep, { lo: null, hi: null }));
await explain("feed page 20 days back, first window (after)", () => explainSql(deep, feedWindows({}, deep)[0]!));
await explain("detail by id (before)", () => sql`select * from notifications where id = ${id} and tenant_id = ${tenantId} and environment = ${environment}`);
await explain("detail by id (after)", () => sql`select * from notifications where id = ${id} ${keyDays("id", [id])} and tenant_id = ${tenantId} and environment = ${environment}`);
await explain("attempts of a notification (before)", () => sql`select * from notification_attempts where notification_id = ${id} order by attempt_number`);
await explain("attempts of a notification (after)", () => sql`select * from notification_attempts where notification_id = ${id} ${keyDays("notification_id", [id])} order by attempt_number`);
const hour = new Date(Date.now() - 3_600_000);
await explain("last hour by minute (before)", () => sql`select date_trunc('minute', created_at), count(*) from notifications
  where tenant_id = ${tenantId} and environment = ${environment} and created_at >= ${hour} group by 1`);
await explain("last hour by minute (after)", () => sql`select date_trunc('minute', created_at), count(*) from notifications
  where tenant_id = ${tenantId} and environment = ${environment} and created_at >= ${hour} ${createdSince("id", hour.getTime())} group by 1`);

// receipts by provider message id (none matches: every window is read, as for a receipt of an unknown message)
const receipt = { tenantId, environment, channel: "email", messageId: "explain-none" };
await explain("receipt by provider message id, unbounded (before)", () => providerMessageQuery(receipt, { lo: null, hi: null }));
await explain("receipt by provider message id, first window (after)", () => providerMessageQuery(receipt, receiptWindows()[0]!));
await explain("receipt by provider message id, second window (after)", () => providerMessageQuery(receipt, receiptWindows()[1]!));
// the inbox stream's replay after an event 3 days old
const [e] = await sql<{ id: string }[]>`select id from events where tenant_id = ${tenantId} and environment = ${environment}
  and created_at < now() - interval '3 days' order by created_at desc limit 1`;
const sub = "00000000-0000-0000-0000-000000000000";
await explain("inbox replay after a 3-day-old event (before)", () => sql`
  with last as (select created_at, id from events where id = ${e!.id} and tenant_id = ${tenantId} and environment = ${environment})
  select e.id, e.type, e.created_at, e.data from events e, last
  where e.tenant_id = ${tenantId} and e.environment = ${environment} and e.type in ('inbox.notification.received', 'inbox.notification.read')
    and e.data ->> 'subscriber_id' = ${sub} and (e.created_at, e.id) > (last.created_at, last.id)
  order by e.created_at, e.id limit 1000`);
await explain("inbox replay after a 3-day-old event (after)", () => inboxEventsQuery(scope, sub, e!.id, 1000));
// a webhook's deliveries list (the bench fills no deliveries: the plan's partitions are the point)
const webhookId = "00000000-0000-0000-0000-000000000000";
await explain("webhook deliveries first page (before)", () => sql`select * from webhook_deliveries where webhook_id = ${webhookId} order by id desc limit 21`);
await explain("webhook deliveries first page (after)", () => deliveriesQuery(webhookId, { limit: 20, cursor: null }));
await explain("webhook deliveries of one event (before)", () =>
  sql`select * from webhook_deliveries where webhook_id = ${webhookId} and event_id = ${e!.id}::uuid order by id desc limit 21`);
await explain("webhook deliveries of one event (after)", () => deliveriesQuery(webhookId, { limit: 20, cursor: null, eventId: e!.id }));

function explainSql(p: typeof page | typeof deep, w: { lo: number | null; hi: number | null }) {
  return feedQuery(scope, {}, p, w);
}
await sql.end({ timeout: 5 });
process.exit(0);
