// The retention job (issue 26 item 2): a row older than the tenant's window disappears with its
// attempts, events and engagement records, a younger one stays; rollups survive (analytics still
// counts); pending notifications, runs still running and the audit log are never removed.
import { afterAll, describe, expect, test } from "bun:test";
import { call, createTenant } from "../support/fixtures";
import { deleteTenants } from "../support/tenant-cleanup";
import {
  seedInboxItem,
  seedNotification,
  seedRollup,
  seedSubscriber,
  seedWebhookDelivery,
  seedWorkflowRun,
} from "../support/history-rows";
import { sweepRetention } from "../../domain/lifecycle/retention";
import { startRetentionJob } from "../../jobs/retention";
import { writeAudit } from "../../store/audit";
import { sql } from "../../store/db";

const run = crypto.randomUUID().slice(0, 8);
const tenants: string[] = [];
afterAll(() => deleteTenants(tenants));

async function tenant() {
  const t = await createTenant(`sweep-${run}`);
  tenants.push(t.tenant.id);
  return t;
}

const exists = async (table: string, id: string) => (await sql`select 1 from ${sql(table)} where id = ${id}`).length === 1;
const countFor = async (table: string, column: string, id: string) =>
  Number((await sql`select count(*)::int as n from ${sql(table)} where ${sql(column)} = ${id}`)[0]!.n);

describe("retention sweep", () => {
  test("the tenant's windows: old history goes (with attempts, engagements, events), young stays, rollups and the audit log survive", async () => {
    const t = await tenant();
    const id = t.tenant.id;
    expect((await call("PUT", "/v1/settings/retention", { key: t.secretKey, body: { notifications_days: 5, inbox_days: 20, webhook_deliveries_days: 3 } })).status).toBe(200);

    const oldN = await seedNotification(id, 10);
    const oldSandbox = await seedNotification(id, 10, { environment: "sandbox" });
    const youngN = await seedNotification(id, 2);
    const oldPending = await seedNotification(id, 10, { status: "pending" });
    const runningRun = await seedWorkflowRun(id, 12, "running");
    const ofRunningRun = await seedNotification(id, 11, { workflowRunId: runningRun });
    const finishedRun = await seedWorkflowRun(id, 12, "completed");
    const youngRun = await seedWorkflowRun(id, 1, "completed");
    const sub = await seedSubscriber(id);
    const oldInbox = await seedInboxItem(id, sub, 25);
    const youngInbox = await seedInboxItem(id, sub, 10);
    const oldDelivery = await seedWebhookDelivery(id, 4);
    const oldPendingDelivery = await seedWebhookDelivery(id, 4, "pending");
    const youngDelivery = await seedWebhookDelivery(id, 1);
    await seedRollup(id, 10, 7);
    await sql.begin((tx) => writeAudit(tx, { tenantId: id, actorType: "system", actorId: null, action: "test.old", resourceType: "test", resourceId: null }));
    const overviewBefore = await call("GET", "/v1/analytics/overview?period=30d", { key: t.secretKey });
    expect(overviewBefore.body.data.total).toBeGreaterThanOrEqual(7);

    const r = await sweepRetention({ tenantIds: [id], batch: 2 });
    expect(r).toMatchObject({ tenants: 1, notifications: 2, workflow_runs: 1, inbox_items: 1, webhook_deliveries: 1 });
    // events: the three of the expired notifications (older than max(5, 3) days); the pending one's and the run's too
    expect(r.events).toBe(4);

    expect(await exists("notifications", oldN)).toBe(false);
    expect(await exists("notifications", oldSandbox)).toBe(false);
    expect(await countFor("notification_attempts", "notification_id", oldN)).toBe(0);
    expect(await countFor("notification_engagements", "notification_id", oldN)).toBe(0);
    expect(await exists("notifications", youngN)).toBe(true);
    expect(await countFor("notification_attempts", "notification_id", youngN)).toBe(1);
    expect(await exists("notifications", oldPending)).toBe(true);
    expect(await exists("workflow_runs", runningRun)).toBe(true);
    expect(await exists("notifications", ofRunningRun)).toBe(true);
    expect(await exists("workflow_runs", finishedRun)).toBe(false);
    expect(await exists("workflow_runs", youngRun)).toBe(true);
    expect(await exists("inbox_items", oldInbox)).toBe(false);
    expect(await exists("inbox_items", youngInbox)).toBe(true);
    expect(await exists("webhook_deliveries", oldDelivery)).toBe(false);
    expect(await exists("webhook_deliveries", oldPendingDelivery)).toBe(true);
    expect(await exists("webhook_deliveries", youngDelivery)).toBe(true);
    // young events stay
    const events = await sql`select created_at from events where tenant_id = ${id}`;
    expect(events.length).toBe(1);

    // rollups outlive the rows: analytics still counts the removed notifications
    expect(await countFor("notification_stats_hourly", "tenant_id", id)).toBe(1);
    const overviewAfter = await call("GET", "/v1/analytics/overview?period=30d", { key: t.secretKey });
    expect(overviewAfter.body.data.total).toBe(overviewBefore.body.data.total);
    // the audit log is kept (the settings change and the test entry)
    expect(await countFor("audit_logs", "tenant_id", id)).toBeGreaterThanOrEqual(2);

    // a second pass finds nothing more
    const again = await sweepRetention({ tenantIds: [id] });
    expect(again.notifications + again.events + again.workflow_runs + again.inbox_items + again.webhook_deliveries).toBe(0);
  });

  test("defaults apply without settings: 31 days old goes, 29 days old stays; another tenant's rows are untouched", async () => {
    const a = await tenant();
    const b = await tenant();
    const old = await seedNotification(a.tenant.id, 31);
    const young = await seedNotification(a.tenant.id, 29);
    const inbox = await seedInboxItem(a.tenant.id, await seedSubscriber(a.tenant.id), 200);
    const otherOld = await seedNotification(b.tenant.id, 31);
    await sweepRetention({ tenantIds: [a.tenant.id] });
    expect(await exists("notifications", old)).toBe(false);
    expect(await exists("notifications", young)).toBe(true);
    expect(await exists("inbox_items", inbox)).toBe(true); // 365 days of inbox
    expect(await exists("notifications", otherOld)).toBe(true);
  });

  test("a batch spanning several days deletes every notification of it with its attempts and events (the DELETEs are bounded to the batch's days)", async () => {
    const a = await tenant();
    // ids of their own moments (as the accept path makes them), one per day 40-47 days back
    const ids = (
      await sql<{ id: string }[]>`
        with ins as (
          insert into notifications (id, tenant_id, environment, channel, recipient, status, created_at, updated_at)
          select nms_uuid_v7_at(t), ${a.tenant.id}, 'production', 'email', 'd' || g || '@example.com', 'delivered', t, t
          from (select g, now() - (40 + g) * interval '1 day' as t from generate_series(0, 7) g) s
          returning id, created_at),
        att as (
          insert into notification_attempts (id, notification_id, tenant_id, attempt_number, status, created_at)
          select nms_uuid_v7_at(created_at), id, ${a.tenant.id}, 1, 'success', created_at from ins returning 1)
        insert into events (id, tenant_id, environment, type, data, created_at)
        select nms_uuid_v7_at(created_at), ${a.tenant.id}, 'production', 'notification.delivered', jsonb_build_object('notification', jsonb_build_object('id', id)), created_at
        from ins returning (data->'notification'->>'id') as id`
    ).map((r) => r.id);
    expect(ids.length).toBe(8);
    // batches of 3: the first holds days 47, 46, 45; the last days 41, 40
    const pauses: number[] = [];
    const r = await sweepRetention({ tenantIds: [a.tenant.id], batch: 3, pause: async (ms) => void pauses.push(ms) });
    expect(r.notifications).toBe(8);
    expect(r.events).toBe(8);
    // a pause after each full batch that another follows (3 + 3 + 2 notifications, the same of events), told what the batch took
    expect(pauses.length).toBe(4);
    for (const ms of pauses) expect(ms).toBeGreaterThan(0);
    for (const id of ids) {
      expect(await exists("notifications", id)).toBe(false);
      expect(await countFor("notification_attempts", "notification_id", id)).toBe(0);
    }
  });

  test("a time budget stops the pass and names where the next run continues", async () => {
    const t = await tenant();
    await seedNotification(t.tenant.id, 40);
    const r = await sweepRetention({ tenantIds: [t.tenant.id], shouldStop: () => true });
    expect(r.resumeFrom).toBe(t.tenant.id);
    expect(r.tenants).toBe(0);
  });

  test("the job (jobs/retention.ts, lease `retention`) removes an expired row on its run", async () => {
    const t = await tenant();
    const old = await seedNotification(t.tenant.id, 45);
    const young = await seedNotification(t.tenant.id, 1);
    const job = startRetentionJob({ everyMs: 3_600_000 });
    try {
      await job.runOnce();
      expect(job.runs).toBe(1);
      expect(job.failures).toBe(0);
    } finally {
      await job.stop();
    }
    expect(await exists("notifications", old)).toBe(false);
    expect(await exists("notifications", young)).toBe(true);
  });
});
