// An LGPD erasure (DELETE /v1/subscribers/:id) reaches every partition of the history tables (issue 26):
// notifications, attempts and events in the legacy partition (old rows), in a day partition and in the default one.
import { afterAll, describe, expect, test } from "bun:test";
import { call, createTenant } from "../support/fixtures";
import { deleteTenants } from "../support/tenant-cleanup";
import { sql } from "../../store/db";

const tenants: string[] = [];

afterAll(async () => {
  await deleteTenants(tenants);
});

describe("erasure across the history partitions", () => {
  test("the subscriber's notifications of 40 days ago (legacy), of a day partition and of the default partition are all redacted", async () => {
    const t = await createTenant();
    tenants.push(t.tenant.id);
    const ext = `erase-parts-${crypto.randomUUID().slice(0, 8)}`;
    const created = await call("POST", "/v1/subscribers", { key: t.secretKey, body: { external_id: ext, email: "gone-parts@example.com" } });
    expect(created.status).toBe(201);
    const subId = created.body.data.id as string;
    const [first] = await sql`select day::text as day from history_partitions where parent = 'notifications' and day is not null order by day limit 1`;
    expect(first).toBeDefined();
    // ids as the service writes them (UUID v7 of their moment), so each row lands in the partition of its time;
    // a non-v7 id (gen_random_uuid, past every day) lands in the default partition
    const placed = [
      { label: "old", id: sql`nms_uuid_v7_at(now() - interval '40 days')`, at: sql`now() - interval '40 days'` },
      { label: "day", id: sql`nms_uuid_v7_at(${first!.day}::date + interval '3 hours')`, at: sql`now()` },
      { label: "default", id: sql`('ffff' || substr(md5(random()::text), 1, 28))::uuid`, at: sql`now()` },
    ];
    const ids: Record<string, string> = {};
    for (const p of placed) {
      const [n] = await sql`
        insert into notifications (id, tenant_id, environment, channel, recipient, subscriber_id, status, data, content, created_at, updated_at)
        values (${p.id}, ${t.tenant.id}, 'production', 'email', 'gone-parts@example.com', ${subId}, 'delivered',
                ${sql.json({ name: "Gone" })}, ${sql.json({ subject: "hi Gone" })}, ${p.at}, ${p.at})
        returning id::text as id, tableoid::regclass::text as part`;
      ids[p.label] = n!.id;
      await sql`insert into notification_attempts (id, notification_id, tenant_id, attempt_number, status, provider, provider_response, created_at)
        values (${n!.id}::uuid, ${n!.id}::uuid, ${t.tenant.id}, 1, 'success', 'sendgrid', ${sql.json({ to: "gone-parts@example.com" })}, now())`;
      await sql`insert into events (id, tenant_id, environment, type, data, created_at)
        values (${n!.id}::uuid, ${t.tenant.id}, 'production', 'notification.delivered',
                ${sql.json({ notification: { id: n!.id, status: "delivered", channel: "email", to: "gone-parts@example.com" } })}, now())`;
    }
    // the three rows (and their attempts and events, which share the ids) sit in three different partitions
    const parts = await sql`
      select (select tableoid::regclass::text from notifications where id = x.id) as n,
             (select tableoid::regclass::text from notification_attempts where notification_id = x.id) as a,
             (select tableoid::regclass::text from events where id = x.id) as e
      from unnest(${[ids.old!, ids.day!, ids.default!]}::uuid[]) with ordinality as x(id, i) order by i`;
    expect(parts.map((p) => p.n)).toEqual([
      expect.stringMatching(/^notifications_(legacy|p\d{8})$/),
      `notifications_p${first!.day.replace(/-/g, "")}`,
      "notifications_default",
    ]);
    expect(new Set(parts.map((p) => p.n)).size).toBe(3);
    expect(parts[2]).toEqual({ n: "notifications_default", a: "notification_attempts_default", e: "events_default" });

    const del = await call("DELETE", `/v1/subscribers/${ext}`, { key: t.secretKey });
    expect(del.status).toBe(204);

    const rows = await sql`select id::text as id, recipient, data, content from notifications where id = any(${Object.values(ids)}::uuid[])`;
    expect(rows.length).toBe(3);
    for (const r of rows) expect(r).toEqual({ id: r.id, recipient: "[erased]", data: {}, content: {} });
    const attempts = await sql`select provider_response from notification_attempts where notification_id = any(${Object.values(ids)}::uuid[])`;
    expect(attempts.map((a) => a.provider_response)).toEqual([null, null, null]);
    const events = await sql`select data from events where id = any(${Object.values(ids)}::uuid[])`;
    expect(events.length).toBe(3);
    for (const e of events) expect(JSON.stringify(e.data)).not.toContain("gone-parts@example.com");
    const [audit] = await sql`select metadata from audit_logs where tenant_id = ${t.tenant.id} and action = 'subscriber.erased'`;
    expect(audit!.metadata.notifications_redacted).toBe(3);
  });
});
