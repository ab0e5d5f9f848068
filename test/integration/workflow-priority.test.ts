// A workflow step's priority (issue 23, docs/routing.md): send and fallback steps may set the lane of the
// notifications they create; a value outside high|normal|low is 422 naming the step's field.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "../../store/db";
import { call, createTenant } from "../support/fixtures";
import { broadcast } from "../../actors/broadcast";
import { channelSender, channelSenderHigh, channelSenderLow } from "../../actors/channel-sender";
import { workflowRun } from "../../actors/workflow-run";
import { startDeliveryHost } from "./delivery-support";
import { createWorkflow, dropTenant, trigger, waitForRun } from "./workflow-support";

let T: Awaited<ReturnType<typeof createTenant>>;
let host: Awaited<ReturnType<typeof startDeliveryHost>>;

beforeAll(async () => {
  T = await createTenant();
  const r = await call("POST", "/v1/templates", { key: T.sandboxKey, body: { status: "active", slug: "otp", name: "Code", channel: "sms", content: "Your code is {{ code }}" } });
  expect(r.status).toBe(201);
  // the broadcast actor too: a trigger to a topic fans out in this host
  host = await startDeliveryHost(0.002, [channelSender, channelSenderHigh, channelSenderLow, workflowRun, broadcast]);
});

afterAll(async () => {
  await host?.stop();
  await dropTenant(T.tenant.id);
});

describe("workflow step priority", () => {
  test("a send step with priority high creates a high-priority notification, delivered through the high lane", async () => {
    const wf = await createWorkflow(T.sandboxKey, {
      slug: "otp-flow",
      name: "OTP",
      steps: [{ type: "send", channel: "sms", template: "otp", priority: "high" }, { type: "fallback", channels: ["sms"], template: "otp", priority: "low" }],
    });
    expect(wf.steps[0].priority).toBe("high");
    const run = await trigger(T.sandboxKey, "otp-flow", { to: "+5511912340001", data: { code: "123456" } });
    const done = await waitForRun(run.id, 30_000);
    expect(done.status).toBe("completed");
    const rows = await sql`select priority, status from notifications where workflow_run_id = ${run.id} or idempotency_key like ${`wfrun:${run.id}:%`} order by created_at`;
    expect(rows[0]!.priority).toBe("high");
    expect(["sent", "delivered"]).toContain(rows[0]!.status);
  });

  test("422 for a priority outside high, normal, low, naming steps[i].priority", async () => {
    const r = await call("POST", "/v1/workflows", { key: T.sandboxKey, body: { slug: "bad-prio", name: "x", steps: [{ type: "send", channel: "sms", template: "otp", priority: "urgent" }] } });
    expect(r.status).toBe(422);
    expect(r.body.error.details["steps[0].priority"]).toEqual(["must be one of high, normal, low"]);
    const d = await call("POST", "/v1/workflows", { key: T.sandboxKey, body: { slug: "bad-prio2", name: "x", steps: [{ type: "delay", duration: "1m", priority: "high" }] } });
    expect(d.status).toBe(422);
    expect(Object.keys(d.body.error.details)).toContain("steps[0].priority");
  });

  test("a broadcast's runs send in the low lane when their step sets no priority; a direct trigger's in normal", async () => {
    await createWorkflow(T.sandboxKey, { slug: "news", name: "News", steps: [{ type: "send", channel: "sms", template: "otp" }] });
    const members = ["+5511912340011", "+5511912340012", "+5511912340013"];
    const imp = await call("POST", "/v1/subscribers/import", { key: T.sandboxKey, body: { subscribers: members.map((phone, i) => ({ external_id: `prio-${i}`, phone })) } });
    expect(imp.status).toBe(200);
    expect((await call("POST", "/v1/topics", { key: T.sandboxKey, body: { key: "prio-news", name: "News" } })).status).toBe(201);
    const add = await call("POST", "/v1/topics/prio-news/subscribers", { key: T.sandboxKey, body: { subscribers: members.map((_, i) => `prio-${i}`) } });
    expect(add.body.data.added).toBe(3);
    const b = await call("POST", "/v1/workflows/news/trigger", { key: T.sandboxKey, body: { to: { topic: "prio-news" }, data: { code: "1" } } });
    expect(b.status).toBe(202);
    const deadline = Date.now() + 30_000;
    let rows: { priority: string; status: string }[] = [];
    while (Date.now() < deadline) {
      // a send step's notification: its id is in the run's step result
      rows = (await sql`select n.priority, n.status from workflow_runs r
        join notifications n on n.id = (r.step_results->0->>'notification_id')::uuid
        where r.tenant_id = ${T.tenant.id} and r.idempotency_key like ${`bcast:${b.body.data.id}:%`}`) as any;
      if (rows.length === 3 && rows.every((r) => r.status === "delivered" || r.status === "sent")) break;
      await Bun.sleep(50);
    }
    expect(rows.map((r) => r.priority)).toEqual(["low", "low", "low"]);
    expect(rows.every((r) => r.status === "delivered" || r.status === "sent")).toBe(true);
    const run = await trigger(T.sandboxKey, "news", { to: "+5511912340014", data: { code: "2" } });
    expect((await waitForRun(run.id, 30_000)).status).toBe("completed");
    const [direct] = await sql`select n.priority from workflow_runs r join notifications n on n.id = (r.step_results->0->>'notification_id')::uuid where r.id = ${run.id}`;
    expect(direct!.priority).toBe("normal");
  });
});
