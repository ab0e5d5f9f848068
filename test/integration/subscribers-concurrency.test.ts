// Races against real PostgreSQL: concurrent upserts of one external_id, concurrent deliveries of
// one notification to the inbox, and Idempotency-Key replay of POST /v1/subscribers.
import { beforeAll, describe, expect, test } from "bun:test";
import { call, createTenant } from "../support/fixtures";
import { sql } from "../../store/db";
import { newId } from "../../store/ids";
import { deliverToInbox } from "../../domain/inbox/inbox";

let t: Awaited<ReturnType<typeof createTenant>>;
beforeAll(async () => {
  t = await createTenant();
});

describe("concurrency", () => {
  test("8 concurrent POSTs of one new external_id: exactly one 201, the rest 200, one row", async () => {
    const ext = `race-${newId()}`;
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => call("POST", "/v1/subscribers", { key: t.secretKey, body: { external_id: ext, name: `n${i}` } })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 201]);
    expect(new Set(results.map((r) => r.body.data.id)).size).toBe(1);
    const [{ n }] = (await sql`select count(*)::int as n from subscribers where tenant_id = ${t.tenant.id} and external_id = ${ext}`) as any;
    expect(n).toBe(1);
  });

  test("concurrent deliveries of one notification create one inbox item and one received event", async () => {
    const sub = (await call("POST", "/v1/subscribers", { key: t.secretKey, body: { external_id: `race-${newId()}` } })).body.data;
    const notificationId = newId();
    const scope = { tenantId: t.tenant.id, environment: "production" };
    const results = await Promise.all(
      Array.from({ length: 6 }, () => deliverToInbox({ ...scope, recipient: sub.id, notificationId, title: "once" })),
    );
    expect(new Set(results.map((r) => r.itemId)).size).toBe(1);
    expect(results.filter((r) => r.created).length).toBe(1);
    const events = await sql`select id from events where type = 'inbox.notification.received' and data ->> 'subscriber_id' = ${sub.id}`;
    expect(events.length).toBe(1);
  });

  test("concurrent deliveries to many subscribers share batches: each its own item and event, an unknown recipient fails only itself", async () => {
    const subs = await Promise.all(
      [0, 1, 2].map(async () => (await call("POST", "/v1/subscribers", { key: t.secretKey, body: { external_id: `many-${newId()}` } })).body.data),
    );
    const scope = { tenantId: t.tenant.id, environment: "production" };
    const asks = Array.from({ length: 60 }, (_, i) => {
      const sub = subs[i % 3]!;
      // by id, by external_id, and every tenth a recipient nobody is
      const recipient = i % 10 === 9 ? `nobody-${newId()}` : i % 2 ? sub.id : sub.external_id;
      return { ...scope, recipient, notificationId: newId(), title: `t${i}`, data: { i } };
    });
    const results = await Promise.allSettled(asks.map((a) => deliverToInbox(a)));
    for (const [i, r] of results.entries()) {
      if (i % 10 === 9) {
        expect(r.status).toBe("rejected");
        expect((r as PromiseRejectedResult).reason).toMatchObject({ code: "subscriber_not_found" });
        continue;
      }
      expect(r.status).toBe("fulfilled");
      const v = (r as PromiseFulfilledResult<Awaited<ReturnType<typeof deliverToInbox>>>).value;
      expect(v.created).toBe(true);
      expect(v.item).toMatchObject({ title: `t${i}`, data: { i } });
      const [row] = await sql`select subscriber_id, notification_id from inbox_items where id = ${v.itemId}`;
      expect(row).toEqual({ subscriber_id: subs[i % 3]!.id, notification_id: asks[i]!.notificationId });
    }
    const events = await sql`select data from events where type = 'inbox.notification.received' and tenant_id = ${t.tenant.id}
      and data ->> 'subscriber_id' = any(${subs.map((x) => x.id)}::text[])`;
    expect(events.length).toBe(54);
    expect(new Set(events.map((e) => e.data.item.id)).size).toBe(54);
  });

  test("Idempotency-Key on POST /v1/subscribers replays the first response (201) without a second write", async () => {
    const ext = `idem-${newId()}`;
    const headers = { "idempotency-key": `k-${newId()}` };
    const first = await call("POST", "/v1/subscribers", { key: t.secretKey, body: { external_id: ext, name: "A" }, headers });
    const again = await call("POST", "/v1/subscribers", { key: t.secretKey, body: { external_id: ext, name: "A" }, headers });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
  });
});
