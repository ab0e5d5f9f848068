// Per-request statements on the day-partitioned history given partition-key bounds (deliveries, inbox replay,
// receipts, webhook replay and dispatcher, offboarding): each still reaches a 40-day-old partition, pages stay exact.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { sql } from "../../store/db";
import { pageOf, type Cursor } from "../../store/cursor";
import {
  applyReceiptUpdate,
  findNotificationContent,
  lockByProviderMessageId,
  lockNotification,
} from "../../store/notifications";
import {
  deliveriesQuery,
  findDelivery,
  insertPendingDeliveries,
  listDeliveries,
  loadAttemptContext,
  replayCandidates,
  writeAttemptRecords,
  type DeliveryStatus,
} from "../../store/webhook-deliveries";
import { markManualRelayed } from "../../store/webhook-attempt-markers";
import { notificationStates, notificationStatus } from "../../store/workflow-runs";
import { deleteTenantBatch } from "../../store/offboardings";
import { inboxEventsSince } from "../../domain/inbox/inbox";
import { DAY_MS } from "../../store/history-keys";
import { newId } from "../../store/ids";
import { createTenant } from "../support/fixtures";
import { dropTenant } from "./workflow-support";

let T: Awaited<ReturnType<typeof createTenant>>;
let T2: Awaited<ReturnType<typeof createTenant>>;
const scope = () => ({ tenantId: T.tenant.id, environment: "production" });
const now = Date.now();
const ago = (days: number, plusMs = 0) => now - days * DAY_MS + plusMs;

/** A UUID v7 of the moment `ms` (SQL nms_uuid_v7_at, random bits below): a row made then. */
async function idAt(ms: number): Promise<string> {
  const [r] = await sql<{ id: string }[]>`select nms_uuid_v7_at(to_timestamp(${ms / 1000}::float8))::text as id`;
  return r!.id;
}

async function insertEvent(type: string, ms: number, data: Record<string, unknown>): Promise<string> {
  const id = await idAt(ms);
  await sql`insert into events (id, tenant_id, environment, type, data, created_at)
            values (${id}, ${T.tenant.id}, 'production', ${type}, ${sql.json(data as any)}, ${new Date(ms)})`;
  return id;
}

async function insertNotification(tenantId: string, ms: number, pmid: string | null, status = "sent"): Promise<string> {
  const id = await idAt(ms);
  await sql`insert into notifications (id, tenant_id, environment, channel, recipient, status, provider_message_id, content, created_at, updated_at)
            values (${id}, ${tenantId}, 'production', 'email', 'a@example.com', ${status}, ${pmid}, ${sql.json({ subject: "s" })}, ${new Date(ms)}, ${new Date(ms)})`;
  return id;
}

let webhookId: string;
const ev: Record<string, string> = {};
const notif: Record<string, string> = {};
const deliveries: string[] = [];

beforeAll(async () => {
  T = await createTenant();
  T2 = await createTenant();
  webhookId = crypto.randomUUID();
  await sql`insert into webhooks (id, tenant_id, environment, url, events, active, secret_enc, created_at)
    values (${webhookId}, ${T.tenant.id}, 'production', 'https://receiver.invalid/h', ${["notification.delivered"]}, false, 'unused', ${new Date(ago(60))})`;
  // events 40 days, 4 days and minutes old
  ev.old = await insertEvent("notification.delivered", ago(40), {});
  ev.mid = await insertEvent("notification.delivered", ago(4), {});
  ev.new = await insertEvent("notification.delivered", ago(0, -600_000), {});
  // deliveries: the old event's first attempt 40 days ago and a manual retry an hour ago (the newest
  // delivery of the list sits in the oldest partition), the others at their event's time
  const d = async (eventId: string, attempt: number, ms: number, status: DeliveryStatus, kind = "auto") => {
    const id = await idAt(ms);
    await sql`insert into webhook_deliveries (id, webhook_id, tenant_id, event_id, event_type, attempt, status, kind, created_at)
              values (${id}, ${webhookId}, ${T.tenant.id}, ${eventId}, 'notification.delivered', ${attempt}, ${status}, ${kind}, ${new Date(ms)})`;
    deliveries.push(id);
  };
  await d(ev.old!, 1, ago(40, 1000), "failed");
  await d(ev.old!, 2, ago(0, -3_600_000), "failed", "manual");
  await d(ev.mid!, 1, ago(4, 1000), "success");
  await d(ev.new!, 1, ago(0, -599_000), "failed");
  await d(ev.new!, 2, ago(0, -300_000), "failed");
  await d(ev.new!, 3, ago(0, -1_000), "success");
  // notifications with provider message ids: 40 days, 4 days and minutes old
  notif.old = await insertNotification(T.tenant.id, ago(40), "pm-old");
  notif.mid = await insertNotification(T.tenant.id, ago(4), "pm-mid");
  notif.new = await insertNotification(T.tenant.id, ago(0, -60_000), "pm-new");
});

afterAll(async () => {
  for (const t of [T, T2]) {
    if (!t) continue;
    await sql`delete from webhook_deliveries where tenant_id = ${t.tenant.id}`;
    await sql`delete from notification_attempts where tenant_id = ${t.tenant.id}`;
    await sql`delete from notification_engagements where tenant_id = ${t.tenant.id}`;
    await sql`delete from notifications where tenant_id = ${t.tenant.id}`;
    await dropTenant(t.tenant.id);
  }
});

/** Every delivery of the webhook the filters allow, newest first, read without bounds. */
async function truth(f: { status?: string; eventId?: string } = {}) {
  const rows = await sql<{ id: string }[]>`
    select id from webhook_deliveries where webhook_id = ${webhookId}
      ${f.status ? sql`and status = ${f.status}` : sql``} ${f.eventId ? sql`and event_id = ${f.eventId}::uuid` : sql``}
    order by id desc`;
  return rows.map((r) => r.id);
}

async function walk(f: { status?: DeliveryStatus; eventId?: string }, limit: number) {
  const ids: string[] = [];
  let cursor: Cursor | null = null;
  for (let i = 0; i < 50; i++) {
    const rows = await listDeliveries(webhookId, { limit, cursor, ...f });
    const { page, meta } = pageOf(rows, limit, (r) => ({ t: r.created_at.toISOString(), id: r.id }));
    ids.push(...page.map((r) => r.id));
    if (!meta.has_more) return ids;
    cursor = { t: page[page.length - 1]!.created_at.toISOString(), id: page[page.length - 1]!.id };
  }
  throw new Error("deliveries list did not end");
}

test("webhook deliveries list: every page size returns every delivery once, newest first, a retry of a 40-day-old event included", async () => {
  const all = await truth();
  expect(all.length).toBe(6);
  // the manual retry of the old event comes right after the new event's three, before the 4-day-old
  // event's delivery, and sits in the 40-day-old partition (its event's day)
  expect(all.indexOf(deliveries[1]!)).toBe(3);
  for (const limit of [1, 2, 3, 5, 6, 20]) expect(await walk({}, limit)).toEqual(all);
  for (const limit of [1, 2, 20]) {
    expect(await walk({ status: "failed" }, limit)).toEqual(await truth({ status: "failed" }));
    expect(await walk({ eventId: ev.old! }, limit)).toEqual(await truth({ eventId: ev.old! }));
  }
  expect((await truth({ eventId: ev.old! })).length).toBe(2);
  // a delivery found by id in the 40-day-old partition (retry of a delivery: findDelivery)
  expect((await findDelivery(sql, webhookId, deliveries[0]!))?.event_id).toBe(ev.old!);
  expect((await findDelivery(sql, webhookId, deliveries[1]!))?.attempt).toBe(2);
});

test("webhook deliveries list: the days ahead are pruned while planning, an event filter plans one day", async () => {
  const relations = async (q: any) => {
    const [row] = await sql<{ "QUERY PLAN": any }[]>`explain (format json) ${q}`;
    const names = new Set<string>();
    const visit = (n: any) => {
      if (n["Relation Name"]) names.add(n["Relation Name"]);
      for (const c of n.Plans ?? []) visit(c);
    };
    visit(row!["QUERY PLAN"][0].Plan);
    return names;
  };
  const partitions = await sql<{ name: string }[]>`
    select c.relname as name from pg_partition_tree('webhook_deliveries'::regclass) t join pg_class c on c.oid = t.relid where t.isleaf`;
  const ahead = partitions.map((p) => p.name).filter((n) => /_p\d{8}$/.test(n) && Date.parse(`${n.slice(-8, -4)}-${n.slice(-4, -2)}-${n.slice(-2)}`) > now + 2 * DAY_MS);
  expect(ahead.length).toBeGreaterThan(0);
  const first = await relations(deliveriesQuery(webhookId, { limit: 20, cursor: null }));
  expect(first.size).toBeGreaterThan(0);
  for (const n of [...ahead, "webhook_deliveries_default"]) expect(first.has(n)).toBe(false);
  const page = await relations(deliveriesQuery(webhookId, { limit: 20, cursor: { t: "", id: deliveries[2]! } }));
  for (const n of ahead) expect(page.has(n)).toBe(false);
  const oneDay = await relations(deliveriesQuery(webhookId, { limit: 20, cursor: null, eventId: ev.mid! }));
  expect(oneDay.size).toBe(1);
});

test("inbox stream replay after a 40-day-old event returns every later event of the subscriber, oldest first", async () => {
  const sub = crypto.randomUUID();
  const first = await insertEvent("inbox.notification.received", ago(40), { subscriber_id: sub });
  const later = [
    await insertEvent("inbox.notification.received", ago(39), { subscriber_id: sub }),
    await insertEvent("inbox.notification.read", ago(4), { subscriber_id: sub }),
    await insertEvent("inbox.notification.received", ago(0, -5_000), { subscriber_id: sub }),
  ];
  await insertEvent("inbox.notification.received", ago(20), { subscriber_id: crypto.randomUUID() }); // someone else's
  expect((await inboxEventsSince(scope(), sub, first)).map((e) => e.id)).toEqual(later);
  expect((await inboxEventsSince(scope(), sub, later[0]!)).map((e) => e.id)).toEqual(later.slice(1));
  expect(await inboxEventsSince(scope(), sub, later[2]!)).toEqual([]);
  expect(await inboxEventsSince(scope(), sub, crypto.randomUUID())).toEqual([]);
});

test("a receipt finds its notification by provider message id in any window, a 40-day-old one included", async () => {
  const where = (messageId: string) => ({ tenantId: T.tenant.id, environment: "production", channel: "email", messageId });
  for (const [pmid, id] of [["pm-new", notif.new], ["pm-mid", notif.mid], ["pm-old", notif.old]] as const) {
    const row = await sql.begin((tx) => lockByProviderMessageId(tx, where(pmid)));
    expect(row?.id).toBe(id!);
  }
  expect(await sql.begin((tx) => lockByProviderMessageId(tx, where("pm-unknown")))).toBeNull();
  expect(await sql.begin((tx) => lockByProviderMessageId(tx, { ...where("pm-old"), channel: "sms" }))).toBeNull();
  // the reads and writes by id of a tracking token and a receipt reach the old partition too
  expect((await sql.begin((tx) => lockNotification(tx, notif.old!)))?.id).toBe(notif.old!);
  expect((await findNotificationContent(notif.old!))?.content).toEqual({ subject: "s" });
  await sql.begin((tx) =>
    applyReceiptUpdate(tx, notif.old!, {
      status: "delivered", error: null, sentAt: null, deliveredAt: new Date(), failedAt: null, bouncedAt: null, openedAt: null, clickedAt: null, complainedAt: null,
    }),
  );
  expect(await notificationStatus(notif.old!)).toBe("delivered");
  const states = await notificationStates([notif.old!, notif.new!]);
  expect([states.get(notif.old!)?.status, states.get(notif.new!)?.status]).toEqual(["delivered", "sent"]);
});

test("webhook replay and the dispatcher's context reach a 40-day-old event", async () => {
  const found = await replayCandidates(scope(), webhookId, { types: ["notification.delivered"], since: new Date(ago(41)), until: new Date(now + 1000), limit: 10 });
  // the mid and new events have a successful delivery; the old one's two attempts failed
  expect(found.map((e) => e.id)).toEqual([ev.old!]);
  const narrow = await replayCandidates(scope(), webhookId, { types: ["notification.delivered"], since: new Date(ago(40, -1000)), until: new Date(ago(39)), limit: 10 });
  expect(narrow.map((e) => e.id)).toEqual([ev.old!]);
  const [oldCtx, newCtx] = await Promise.all([
    loadAttemptContext({ webhookId, eventId: ev.old!, attempt: 2, deliveryId: null }),
    loadAttemptContext({ webhookId, eventId: ev.new!, attempt: null, deliveryId: null }),
  ]);
  expect(oldCtx.event?.id).toBe(ev.old!);
  expect([oldCtx.maxAttempt, oldCtx.succeeded, oldCtx.sameAttempt?.kind]).toEqual([2, false, "manual"]);
  expect([newCtx.maxAttempt, newCtx.succeeded]).toEqual([3, true]);
  const manual = await loadAttemptContext({ webhookId, eventId: ev.old!, attempt: null, deliveryId: deliveries[1]! });
  expect(manual.manual).toEqual({ status: "failed", attempt: 2 });
});

test("a manual attempt of a 40-day-old event: numbered after its last attempt, marked when relayed, completed when recorded", async () => {
  const webhook2 = crypto.randomUUID();
  await sql`insert into webhooks (id, tenant_id, environment, url, events, active, secret_enc)
    values (${webhook2}, ${T.tenant.id}, 'production', 'https://receiver.invalid/m', ${["notification.delivered"]}, true, 'unused')`;
  await sql`insert into webhook_deliveries (id, webhook_id, tenant_id, event_id, event_type, attempt, status, kind, created_at)
            values (${await idAt(ago(40, 2000))}, ${webhook2}, ${T.tenant.id}, ${ev.old!}, 'notification.delivered', 4, 'failed', 'auto', ${new Date(ago(40, 2000))})`;
  const [pending] = await sql.begin((tx) =>
    // a UUID v7 as the routes make (newId): reads bound the event's day by the delivery id's time, and
    // a random v4 id read as a time fell before the 40-day-old event about once in 150 runs
    insertPendingDeliveries(tx, { id: webhook2, tenantId: T.tenant.id }, [{ id: newId(), eventId: ev.old!, eventType: "notification.delivered" }]),
  );
  expect([pending!.attempt, pending!.status]).toEqual([5, "pending"]);
  await sql.begin((tx) => markManualRelayed(tx, [{ webhookId: webhook2, eventId: ev.old!, deliveryId: pending!.id }]));
  const [due] = await sql<{ attempt: number; delivery_id: string }[]>`select attempt, delivery_id from webhook_due where webhook_id = ${webhook2}`;
  expect(due).toEqual({ attempt: 5, delivery_id: pending!.id });
  const written = await sql.begin((tx) =>
    writeAttemptRecords(
      tx,
      [{ id: pending!.id, webhookId: webhook2, tenantId: T.tenant.id, eventId: ev.old!, eventType: "notification.delivered", attempt: 5, kind: "manual",
         status: "success", responseStatus: 200, responseBody: "ok", durationMs: 3, error: null, nextRetryAt: null }],
      { afterMs: 86_400_000, reason: "test" },
    ),
  );
  expect(written).toEqual([true]);
  expect((await findDelivery(sql, webhook2, pending!.id))?.status).toBe("success");
  expect((await sql`select 1 from webhook_due where webhook_id = ${webhook2}`).length).toBe(0);
  await sql`delete from webhook_deliveries where webhook_id = ${webhook2}`;
  await sql`delete from webhooks where id = ${webhook2}`;
});

test("an offboarding batch of 40-day-old notifications takes their attempts and engagement records along", async () => {
  const ids = [await insertNotification(T2.tenant.id, ago(40), null, "delivered"), await insertNotification(T2.tenant.id, ago(0, -1000), null, "delivered")];
  for (const id of ids) {
    await sql`insert into notification_attempts (id, notification_id, tenant_id, attempt_number, status, created_at)
              values (${crypto.randomUUID()}, ${id}, ${T2.tenant.id}, 1, 'success', now())`;
    await sql`insert into notification_engagements (id, tenant_id, environment, notification_id, kind, source, created_at)
              values (${crypto.randomUUID()}, ${T2.tenant.id}, 'production', ${id}, 'open', 'pixel', now())`;
  }
  const deleted = await sql.begin((tx) => deleteTenantBatch(tx, "notifications", T2.tenant.id, 100));
  expect(deleted).toBe(2);
  const [left] = await sql<{ a: number; e: number }[]>`
    select (select count(*)::int from notification_attempts where notification_id = any(${ids}::uuid[])) as a,
           (select count(*)::int from notification_engagements where notification_id = any(${ids}::uuid[])) as e`;
  expect(left).toEqual({ a: 0, e: 0 });
});
