// Notifications accepted with an idempotency key (workflow steps: wfrun:<run>:step:<i>) are written
// in the same one-statement batch as the others: a key seen again, in the same batch or a later one,
// yields the first notification and writes no second row, no second notification.created event and
// no second count in the rollups.
import { afterAll, expect, test } from "bun:test";
import { acceptNotification } from "../../domain/notifications/accept";
import { sql } from "../../store/db";
import { createTenant, createListeningTenant } from "../support/fixtures";
import { deleteTenants } from "../support/tenant-cleanup";

const tenants: string[] = [];
afterAll(async () => {
  await deleteTenants(tenants);
});

test("the same key in one batch and again later: one row, one created event, a total of one", async () => {
  const T = await createListeningTenant();
  tenants.push(T.tenant.id);
  const input = (key: string) => ({
    tenantId: T.tenant.id,
    environment: "sandbox",
    channel: "sms",
    recipient: "+5511912340077",
    data: { content: "step" },
    idempotencyKey: key,
  });
  // concurrent calls share the accept batch: the three with key A land in one INSERT
  const first = await Promise.all([acceptNotification(input("wf:A")), acceptNotification(input("wf:A")), acceptNotification(input("wf:B")), acceptNotification(input("wf:A"))]);
  const again = await acceptNotification(input("wf:A"));
  const a = first.filter((_, i) => i !== 2);
  expect(new Set([...a, again].map((n) => n.id)).size).toBe(1);
  expect(first[2]!.id).not.toBe(a[0]!.id);
  expect(a.filter((n) => n.created)).toHaveLength(1);
  expect(again.created).toBe(false);

  const rows = await sql`select idempotency_key, count(*)::int as n from notifications where tenant_id = ${T.tenant.id} group by 1 order by 1`;
  expect([...rows]).toEqual([
    { idempotency_key: "wf:A", n: 1 },
    { idempotency_key: "wf:B", n: 1 },
  ]);
  const events = await sql`select data -> 'notification' ->> 'id' as id from events where tenant_id = ${T.tenant.id} and type = 'notification.created' order by 1`;
  expect(events.map((e) => e.id).sort()).toEqual([a[0]!.id, first[2]!.id].sort());
  const [total] = await sql`select coalesce(sum(total), 0)::int as n from notification_stats_hourly where tenant_id = ${T.tenant.id}`;
  expect(total!.n).toBe(2);
});
