// A workflow step's priority (issue 23, docs/routing.md): send and fallback steps may set the lane of the
// notifications they create; a value outside high|normal|low is 422 naming the step's field.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "../../store/db";
import { call, createTenant } from "../support/fixtures";
import { createWorkflow, dropTenant, startWorkflowHost, trigger, waitForRun } from "./workflow-support";

let T: Awaited<ReturnType<typeof createTenant>>;
let host: Awaited<ReturnType<typeof startWorkflowHost>>;

beforeAll(async () => {
  T = await createTenant();
  const r = await call("POST", "/v1/templates", { key: T.sandboxKey, body: { status: "active", slug: "otp", name: "Code", channel: "sms", content: "Your code is {{ code }}" } });
  expect(r.status).toBe(201);
  host = await startWorkflowHost({ timeScale: 0.002 });
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
});
