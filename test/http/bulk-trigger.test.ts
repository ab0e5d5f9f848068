// POST /v1/workflows/:slug/trigger/bulk through app.handle (issue 22): 1,000 events make 1,000 runs
// in order, an Idempotency-Key replay makes none, one invalid event makes nothing (details keyed
// events[i].field), the 1-1,000 bounds, 404 on an unknown workflow.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { config } from "../../config";
import { sql } from "../../store/db";
import { call, createTenant } from "../support/fixtures";
import { connect, deletePrefix } from "../support/runtime-redis";

let T: Awaited<ReturnType<typeof createTenant>>;
const key = () => T.sandboxKey;
const runCount = async () => (await sql`select count(*)::int as n from workflow_runs where tenant_id = ${T.tenant.id}`)[0]!.n as number;
const bulk = (body: unknown, headers: Record<string, string> = {}, slug = "bulk-wf") =>
  call("POST", `/v1/workflows/${slug}/trigger/bulk`, { key: key(), body, headers });

beforeAll(async () => {
  T = await createTenant();
  const w = await call("POST", "/v1/workflows", { key: key(), body: { slug: "bulk-wf", name: "bulk", steps: [{ type: "send", channel: "sms", template: "code" }] } });
  expect(w.status).toBe(201);
  expect((await call("POST", "/v1/subscribers", { key: key(), body: { external_id: "sub-1", phone: "+5511999990001" } })).status).toBe(201);
});

afterAll(async () => {
  await sql`delete from events where tenant_id = ${T.tenant.id}`;
  await sql`delete from tenants where id = ${T.tenant.id}`;
  const r = connect();
  await deletePrefix(r, config.redisPrefix);
  await r.quit();
});

describe("POST /v1/workflows/:slug/trigger/bulk", () => {
  test("1,000 events: 202 with 1,000 runs in the events' order, each stored with its triggered event", async () => {
    const events = Array.from({ length: 1000 }, (_, i) => (i % 2 ? { recipient: `+55119${String(i).padStart(8, "0")}`, data: { i } } : { to: `+55119${String(i).padStart(8, "0")}`, payload: { i } }));
    const before = await runCount();
    const r = await bulk({ events });
    expect(r.status).toBe(202);
    expect(r.body.data.length).toBe(1000);
    r.body.data.forEach((run: any, i: number) => {
      expect(run.recipient).toBe(events[i]!.recipient ?? events[i]!.to);
      expect(run.data).toEqual({ i });
      expect(run.status).toBe("running");
      expect(run.workflow_slug).toBe("bulk-wf");
    });
    expect(await runCount()).toBe(before + 1000);
    const ev = await sql`select count(*)::int as n from events where tenant_id = ${T.tenant.id} and type = 'workflow.triggered' and data ->> 'run_id' = any(${r.body.data.map((x: any) => x.id)}::text[])`;
    expect(ev[0]!.n).toBe(1000);
  });

  test("a subscriber recipient is linked like the single trigger does", async () => {
    const r = await bulk({ events: [{ recipient: "sub-1" }, { recipient: "+5511999990002" }] });
    expect(r.status).toBe(202);
    const rows = await sql`select recipient, subscriber_id from workflow_runs where id = any(${r.body.data.map((x: any) => x.id)}::uuid[]) order by recipient`;
    const sub = (await call("GET", "/v1/subscribers/sub-1", { key: key() })).body.data.id;
    expect(rows.find((x) => x.recipient === "sub-1")!.subscriber_id).toBe(sub);
    expect(rows.find((x) => x.recipient === "+5511999990002")!.subscriber_id).toBeNull();
  });

  test("one Idempotency-Key covers the batch: the replay answers the same runs and creates none", async () => {
    const headers = { "idempotency-key": `bulk-${crypto.randomUUID()}` };
    const events = Array.from({ length: 50 }, (_, i) => ({ recipient: `+55118${String(i).padStart(8, "0")}` }));
    const a = await bulk({ events }, headers);
    const before = await runCount();
    const b = await bulk({ events }, headers);
    expect(a.status).toBe(202);
    expect(b.status).toBe(202);
    expect(b.headers.get("idempotent-replayed")).toBe("true");
    expect(b.body.data.map((x: any) => x.id)).toEqual(a.body.data.map((x: any) => x.id));
    expect(await runCount()).toBe(before);
  });

  test("one invalid event creates nothing: 422 with details keyed events[i].field", async () => {
    const before = await runCount();
    const events: unknown[] = Array.from({ length: 10 }, (_, i) => ({ recipient: `+55117${String(i).padStart(8, "0")}` }));
    events[3] = { recipient: "" };
    events[7] = { to: "+5511999990003", payload: "not an object" };
    events[8] = 5;
    const r = await bulk({ events });
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe("validation_failed");
    expect(Object.keys(r.body.error.details).sort()).toEqual(["events[3].recipient", "events[7].payload", "events[8]"]);
    expect(await runCount()).toBe(before);
  });

  test("bounds: 0 and 1,001 events, events not an array, are 422; an unknown workflow is 404", async () => {
    const before = await runCount();
    for (const body of [{ events: [] }, { events: Array.from({ length: 1001 }, () => ({ recipient: "+5511999990004" })) }, { events: "x" }, {}]) {
      const r = await bulk(body);
      expect(r.status).toBe(422);
      expect(Object.keys(r.body.error.details)).toContain("events");
    }
    const x = await bulk({ events: [{ recipient: "+5511999990004" }] }, {}, "no-such-wf");
    expect(x.status).toBe(404);
    expect(x.body.error.code).toBe("workflow_not_found");
    expect(await runCount()).toBe(before);
  });
});
