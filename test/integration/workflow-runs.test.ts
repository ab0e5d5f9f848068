// Workflow runs through the whole system (SPEC "Workflow run" state table, DESIGN.md 6 fallback): API
// trigger, the workflow-run and channel-sender actors on one host over real Redis and PostgreSQL at
// TIME_SCALE 0.002 (1m = 120 ms, FALLBACK_WAIT 10m = 1.2 s): exact step results, rendered data,
// version pinning, cancel during a delay, the fallback rule, subscribers across channels, events.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { applyReceipt } from "../../domain/receipts/apply-receipt";
import { workflowRunAddress } from "../../domain/workflows/workflow-run-mail";
import { sql } from "../../store/db";
import { getRuntime } from "../../store/runtime-handle";
import { call, createTenant } from "../support/fixtures";
import * as fakeTwilio from "../support/fake-twilio";
import { sleep } from "../support/runtime-redis";
import { createWorkflow, dropTenant, startWorkflowHost, trigger, waitForRun, wipeRedis } from "./workflow-support";

const UUID = /^[0-9a-f-]{36}$/;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

let T: Awaited<ReturnType<typeof createTenant>>;
let host: Awaited<ReturnType<typeof startWorkflowHost>>;
let tw: fakeTwilio.FakeTwilio;
const SID = "AC" + "0123456789abcdef".repeat(2);

async function template(key: string, body: Record<string, unknown>) {
  const r = await call("POST", "/v1/templates", { key, body: { status: "active", ...body } });
  expect(r.status).toBe(201);
}

async function subscriber(key: string, body: Record<string, unknown>) {
  const r = await call("POST", "/v1/subscribers", { key, body });
  expect([200, 201]).toContain(r.status);
  return r.body.data;
}

/** Every notification of a run's steps (their keys are wfrun:<run_id>:step:<i>[:ch:<channel>]). */
const notificationsOf = (runId: string) =>
  sql`select * from notifications where idempotency_key like ${`wfrun:${runId}:%`} order by created_at, id`;
const eventsOf = (runId: string) =>
  sql`select type, data from events where type like 'workflow.%' and data->>'run_id' = ${runId} order by created_at, id`;

beforeAll(async () => {
  tw = await fakeTwilio.start();
  T = await createTenant();
  await template(T.sandboxKey, { slug: "wf-sms", name: "Code", channel: "sms", content: "Hi {{ name }}, your code is {{ code }}" });
  await template(T.sandboxKey, { slug: "wf-sms-2", name: "Reminder", channel: "sms", content: "Still there, {{ name }}?" });
  await template(T.sandboxKey, { slug: "wf-wa", name: "WhatsApp", channel: "whatsapp", content: "Oi {{ name }}" });
  await template(T.sandboxKey, { slug: "wf-email", name: "Welcome", channel: "email", content: "Welcome {{ name }}", variants: { subject: "Hello {{ name }}" } });
  host = await startWorkflowHost({ timeScale: 0.002 });
});

afterAll(async () => {
  await host?.stop();
  await tw?.stop();
  await wipeRedis();
  await dropTenant(T.tenant.id);
});

describe("send / delay / send", () => {
  test("completes with the exact step result shapes, the rendered trigger data and the events", async () => {
    await createWorkflow(T.sandboxKey, {
      slug: "sds",
      name: "Send, wait, send",
      steps: [
        { type: "send", channel: "sms", template: "wf-sms" },
        { type: "delay", duration: "1m" },
        { type: "send", channel: "sms", template: "wf-sms-2" },
      ],
    });
    const run = await trigger(T.sandboxKey, "sds", { to: "+5511912340001", data: { name: "Ana", code: "123456" } });
    const done = await waitForRun(run.id);
    expect(done.status).toBe("completed");
    const r = await call("GET", `/v1/workflow-runs/${run.id}`, { key: T.sandboxKey });
    expect(r.status).toBe(200);
    const d = r.body.data;
    expect(d).toMatchObject({ id: run.id, status: "completed", current_step: 3, recipient: "+5511912340001", data: { name: "Ana", code: "123456" } });
    expect(d.completed_at).toMatch(ISO);
    const [s0, s1, s2] = d.step_results;
    expect(d.step_results).toHaveLength(3);
    // SPEC's send result, plus the notification's status now, read with the run (issue 27)
    expect(Object.keys(s0).sort()).toEqual(["channel", "notification_id", "notification_status", "status", "step", "type"]);
    expect(s0).toMatchObject({ type: "send", step: 0, channel: "sms", status: "enqueued" });
    expect(["pending", "sent", "delivered"]).toContain(s0.notification_status);
    expect(s0.notification_id).toMatch(UUID);
    expect(Object.keys(s1).sort()).toEqual(["duration", "duration_seconds", "scheduled_at", "step", "type"]);
    expect(s1).toMatchObject({ type: "delay", step: 1, duration: "1m", duration_seconds: 60 });
    expect(s1.scheduled_at).toMatch(ISO);
    expect(s2).toMatchObject({ type: "send", step: 2, channel: "sms", status: "enqueued" });

    const ns = await notificationsOf(run.id);
    expect(ns.map((n) => n.idempotency_key)).toEqual([`wfrun:${run.id}:step:0`, `wfrun:${run.id}:step:2`]);
    expect(ns.map((n) => n.id)).toEqual([s0.notification_id, s2.notification_id]);
    // no later step looks at their outcome: they do not carry the run (nothing to wake)
    expect(ns.map((n) => n.workflow_run_id)).toEqual([null, null]);
    expect(ns[0]!.content).toEqual({ content: "Hi Ana, your code is 123456" });
    expect(ns[1]!.content).toEqual({ content: "Still there, Ana?" });
    // the second send waited for the delay (TIME_SCALE applies to the wait; records keep "1m" / 60)
    expect(ns[1]!.created_at.getTime()).toBeGreaterThanOrEqual(Date.parse(s1.scheduled_at) - 5);

    const ev = await eventsOf(run.id);
    expect(ev.map((e) => e.type)).toEqual([
      "workflow.triggered",
      "workflow.step.completed",
      "workflow.step.completed",
      "workflow.step.completed",
      "workflow.completed",
    ]);
    const wf = { run_id: run.id, workflow_id: run.workflow_id, workflow_slug: "sds", workflow_version: 1, recipient: "+5511912340001" };
    expect(ev[0]!.data).toEqual({ ...wf, status: "running" });
    // events carry the step result as recorded; notification_status is joined only when the API reads a run
    const recorded = ({ notification_status: _now, ...r }: Record<string, unknown>) => r;
    expect(ev[1]!.data).toEqual({ ...wf, step: 0, step_result: recorded(s0), status: "running" });
    expect(ev[2]!.data).toEqual({ ...wf, step: 1, step_result: s1, status: "running" });
    expect(ev[3]!.data).toEqual({ ...wf, step: 2, step_result: recorded(s2), status: "completed" });
    expect(ev[4]!.data).toEqual({ ...wf, status: "completed" });
  });

  test("a run keeps its version through a PUT and a DELETE", async () => {
    const v1 = await createWorkflow(T.sandboxKey, {
      slug: "pinned",
      name: "Pinned",
      steps: [{ type: "send", channel: "sms", template: "wf-sms" }, { type: "delay", duration: "5m" }, { type: "send", channel: "sms", template: "wf-sms" }],
    });
    const run1 = await trigger(T.sandboxKey, "pinned", { recipient: "+5511912340002", data: { name: "Bia", code: "1" } });
    const put = await call("PUT", `/v1/workflows/${v1.id}`, {
      key: T.sandboxKey,
      body: { name: "Pinned v2", steps: [{ type: "send", channel: "sms", template: "wf-sms-2" }, { type: "delay", duration: "5m" }] },
    });
    expect(put.status).toBe(200);
    const v2 = put.body.data;
    const run2 = await trigger(T.sandboxKey, "pinned", { recipient: "+5511912340003", data: { name: "Caio" } });
    expect(run2).toMatchObject({ workflow_id: v2.id, workflow_version: 2, status: "running", current_step: 0, step_results: [] });
    expect((await call("DELETE", `/v1/workflows/${v2.id}`, { key: T.sandboxKey })).status).toBe(204);
    // both were still waiting in their delays when the workflow changed
    expect((await sql`select status from workflow_runs where id in ${sql([run1.id, run2.id])}`).map((r) => r.status)).toEqual(["running", "running"]);
    const [a, b] = [await waitForRun(run1.id), await waitForRun(run2.id)];
    expect(a).toMatchObject({ status: "completed", workflow_id: v1.id, workflow_version: 1, current_step: 3 });
    expect(a.step_results.map((s: any) => s.type)).toEqual(["send", "delay", "send"]);
    expect(b).toMatchObject({ status: "completed", workflow_id: v2.id, workflow_version: 2, current_step: 2 });
    expect(b.step_results.map((s: any) => s.type)).toEqual(["send", "delay"]);
    expect((await notificationsOf(run2.id)).map((n) => n.content.content)).toEqual(["Still there, Caio?"]);
    const gone = await call("POST", "/v1/workflows/pinned/trigger", { key: T.sandboxKey, body: { to: "+5511912340004" } });
    expect(gone.status).toBe(404);
    expect(gone.body.error.code).toBe("workflow_not_found");
  });

  test("cancel during a delay: 200 cancelled, and the later send never happens, even when its timer or a message comes", async () => {
    await createWorkflow(T.sandboxKey, {
      slug: "cancel-me",
      name: "Cancel me",
      steps: [{ type: "send", channel: "sms", template: "wf-sms" }, { type: "delay", duration: "3m" }, { type: "send", channel: "sms", template: "wf-sms" }],
    });
    const run = await trigger(T.sandboxKey, "cancel-me", { to: "+5511912340005", data: { name: "Duda", code: "2" } });
    const waiting = await waitForRun(run.id, 5000, (r) => r.step_state?.kind === "delay");
    expect(waiting.current_step).toBe(1);
    const c = await call("POST", `/v1/workflow-runs/${run.id}/cancel`, { key: T.sandboxKey });
    expect(c.status).toBe(200);
    expect(c.body.data).toMatchObject({ id: run.id, status: "cancelled", current_step: 1 });
    expect(c.body.data.completed_at).toMatch(ISO);
    expect(c.body.data.step_results.map((s: any) => s.type)).toEqual(["send", "delay"]);
    // a late timer (with the wait's own token) and a plain message both find the run cancelled
    await getRuntime().sendMany(workflowRunAddress, [
      { v: 1, type: "timer", runId: run.id, token: waiting.step_state.token },
      { v: 1, type: "run", runId: run.id },
    ]);
    await sleep(Date.parse(waiting.step_state.due_at) - Date.now() + 300);
    expect(await notificationsOf(run.id)).toHaveLength(1);
    const after = await call("GET", `/v1/workflow-runs/${run.id}`, { key: T.sandboxKey });
    expect(after.body.data).toMatchObject({ status: "cancelled", current_step: 1 });
    expect((await eventsOf(run.id)).map((e) => e.type).slice(-1)).toEqual(["workflow.completed"]);
    expect((await eventsOf(run.id)).slice(-1)[0]!.data.status).toBe("cancelled");
    const again = await call("POST", `/v1/workflow-runs/${run.id}/cancel`, { key: T.sandboxKey });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("run_not_cancellable");
  });
});

describe("fallback (DESIGN.md 6)", () => {
  test("skipped when the previous send was delivered", async () => {
    await createWorkflow(T.sandboxKey, {
      slug: "fb-skip",
      name: "Skip",
      steps: [{ type: "send", channel: "email", template: "wf-email" }, { type: "fallback", channels: ["sms"], template: "wf-sms", condition: "not_delivered" }],
    });
    const run = await trigger(T.sandboxKey, "fb-skip", { to: "ana@example.com", data: { name: "Ana" } });
    const done = await waitForRun(run.id);
    expect(done.status).toBe("completed");
    expect(done.step_results[1]).toEqual({ type: "fallback", step: 1, status: "skipped", reason: "previous_step_delivered" });
    expect(await notificationsOf(run.id)).toHaveLength(1);
  });

  test("to the second channel when the previous send and the first channel fail", async () => {
    const sub = await subscriber(T.sandboxKey, { external_id: `fb2-${crypto.randomUUID().slice(0, 8)}`, email: "fail-fb2@example.com", phone: "+5511912340010" });
    await createWorkflow(T.sandboxKey, {
      slug: "fb-second",
      name: "Second",
      steps: [{ type: "send", channel: "email", template: "wf-email" }, { type: "fallback", channels: ["email", "sms"], template: "wf-sms" }],
    });
    const run = await trigger(T.sandboxKey, "fb-second", { recipient: sub.external_id, data: { name: "Eva", code: "9" } });
    const done = await waitForRun(run.id);
    expect(done.status).toBe("completed");
    const ns = await notificationsOf(run.id);
    const key = (k: string) => ns.find((n) => n.idempotency_key === k)!;
    const first = key(`wfrun:${run.id}:step:1:ch:email`);
    const second = key(`wfrun:${run.id}:step:1:ch:sms`);
    expect(done.step_results[1]).toEqual({
      type: "fallback",
      step: 1,
      status: "sent",
      channel: "sms",
      notification_id: second.id,
      attempts: [
        { channel: "email", notification_id: first.id, status: "failed" },
        { channel: "sms", notification_id: second.id, status: "delivered" },
      ],
    });
    expect(ns).toHaveLength(3);
    // the fallback looks at each of them: they carry the run, which their status moves wake
    expect(ns.map((n) => n.workflow_run_id)).toEqual([run.id, run.id, run.id]);
    expect(second).toMatchObject({ recipient: "+5511912340010", subscriber_id: sub.id, status: "delivered" });
    // one template serves every channel of a fallback: the email template's body went out as the SMS
    expect(second.content).toEqual({ content: "Hi Eva, your code is 9" });
  });

  test("whose channels all fail fails the run, with each channel's reason", async () => {
    await createWorkflow(T.sandboxKey, {
      slug: "fb-fail",
      name: "All fail",
      steps: [{ type: "send", channel: "email", template: "wf-email" }, { type: "fallback", channels: ["sms", "email"], template: "wf-email" }, { type: "send", channel: "email", template: "wf-email" }],
    });
    const run = await trigger(T.sandboxKey, "fb-fail", { to: "fail@example.com", data: { name: "Fe" } });
    const done = await waitForRun(run.id);
    expect(done).toMatchObject({ status: "failed", current_step: 1 });
    expect(done.completed_at).toBeTruthy();
    const ns = await notificationsOf(run.id);
    const email = ns.find((n) => n.idempotency_key === `wfrun:${run.id}:step:1:ch:email`)!;
    expect(done.step_results[1]).toEqual({
      type: "fallback",
      step: 1,
      status: "failed",
      channel: null,
      notification_id: null,
      attempts: [
        { channel: "sms", notification_id: null, status: "failed", error: { code: "recipient_not_addressable", message: expect.stringContaining("sms") } },
        { channel: "email", notification_id: email.id, status: "failed" },
      ],
      error: { code: "all_channels_failed", message: expect.any(String) },
    });
    expect(ns).toHaveLength(2); // step 2 never ran
    const ev = (await eventsOf(run.id)).map((e) => [e.type, e.data.status]);
    expect(ev.slice(-2)).toEqual([["workflow.step.failed", "failed"], ["workflow.completed", "failed"]]);
  });
});

describe("recipients across channels", () => {
  test("a subscriber recipient reaches email and sms in one run; its preferences apply", async () => {
    const sub = await subscriber(T.sandboxKey, { external_id: `multi-${crypto.randomUUID().slice(0, 8)}`, email: "Multi@Example.com", phone: "+5511912340020" });
    const pref = await call("PUT", `/v1/subscribers/${sub.id}/preferences`, { key: T.sandboxKey, body: { preferences: [{ category: "all", channel: "whatsapp", enabled: false }] } });
    expect(pref.status).toBe(200);
    await createWorkflow(T.sandboxKey, {
      slug: "multi",
      name: "Multi",
      steps: [
        { type: "send", channel: "email", template: "wf-email" },
        { type: "send", channel: "sms", template: "wf-sms" },
        { type: "send", channel: "whatsapp", template: "wf-wa" },
      ],
    });
    const run = await trigger(T.sandboxKey, "multi", { recipient: sub.id, data: { name: "Gil", code: "7" } });
    const done = await waitForRun(run.id);
    expect(done.step_results.filter((s: any) => s.error)).toEqual([]);
    expect(done.status).toBe("completed");
    let ns = await notificationsOf(run.id);
    for (let i = 0; i < 100 && ns.some((n) => n.status === "pending"); i++) {
      await sleep(20);
      ns = await notificationsOf(run.id);
    }
    expect(ns.map((n) => [n.channel, n.recipient, n.subscriber_id, n.status])).toEqual([
      ["email", "multi@example.com", sub.id, "delivered"],
      ["sms", "+5511912340020", sub.id, "delivered"],
      ["whatsapp", "+5511912340020", sub.id, "suppressed"],
    ]);
    expect(ns[2]!.suppressed_reason).toBe("preference_disabled");
  });

  test("a step whose channel cannot take the recipient fails the run with a clear code", async () => {
    await createWorkflow(T.sandboxKey, { slug: "no-addr", name: "No address", steps: [{ type: "send", channel: "in_app", template: "wf-sms" }] });
    const literal = await trigger(T.sandboxKey, "no-addr", { to: "someone@example.com" });
    const sub = await subscriber(T.sandboxKey, { external_id: `nophone-${crypto.randomUUID().slice(0, 8)}`, email: "nophone@example.com" });
    await createWorkflow(T.sandboxKey, { slug: "no-phone", name: "No phone", steps: [{ type: "send", channel: "sms", template: "wf-sms" }] });
    const noPhone = await trigger(T.sandboxKey, "no-phone", { to: sub.external_id });
    const [a, b] = [await waitForRun(literal.id), await waitForRun(noPhone.id)];
    expect(a.status).toBe("failed");
    expect(a.step_results).toEqual([
      { type: "send", step: 0, channel: "in_app", notification_id: null, status: "failed", error: { code: "recipient_not_addressable", message: expect.any(String) } },
    ]);
    expect(b.status).toBe("failed");
    expect(b.step_results[0].error.code).toBe("address_missing");
  });
});

describe("erasure", () => {
  test("a subscriber erased during a delay: the next step fails subscriber_erased; its former external_id too", async () => {
    const sub = await subscriber(T.sandboxKey, { external_id: `erase-${crypto.randomUUID().slice(0, 8)}`, phone: "+5511912340040" });
    await createWorkflow(T.sandboxKey, {
      slug: "erase-me",
      name: "Erase me",
      // 30m lasts 3.6 s: the erasure must come during it (2m, 240 ms, was over before the DELETE on a loaded machine)
      steps: [{ type: "send", channel: "sms", template: "wf-sms" }, { type: "delay", duration: "30m" }, { type: "send", channel: "sms", template: "wf-sms" }],
    });
    const run = await trigger(T.sandboxKey, "erase-me", { to: sub.external_id, data: { name: "Ze", code: "4" } });
    await waitForRun(run.id, 5000, (r) => r.step_state?.kind === "delay");
    expect((await call("DELETE", `/v1/subscribers/${sub.id}`, { key: T.sandboxKey })).status).toBe(204);
    const done = await waitForRun(run.id);
    expect(done.status).toBe("failed");
    expect(done.step_results[2]).toEqual({
      type: "send",
      step: 2,
      channel: "sms",
      notification_id: null,
      status: "failed",
      error: { code: "subscriber_erased", message: expect.any(String) },
    });
    // triggered afterwards with its former external_id: the same, not a literal address
    const late = await trigger(T.sandboxKey, "erase-me", { to: sub.external_id });
    expect((await waitForRun(late.id)).step_results[0].error.code).toBe("subscriber_erased");
  });
});

describe("waiting for an outcome (production, a Twilio-shaped provider that ends at sent)", () => {
  let P: Awaited<ReturnType<typeof createTenant>>;
  beforeAll(async () => {
    P = await createTenant();
    const ch = await call("POST", "/v1/channels", {
      key: P.secretKey,
      body: { channel: "sms", provider: "twilio", credentials: { account_sid: SID, auth_token: "tok" }, settings: { from: "+14155550100", base_url: tw.url } },
    });
    expect(ch.status).toBe(201);
    await template(P.secretKey, { slug: "p-sms", name: "P", channel: "sms", content: "Hello {{ name }}" });
    await createWorkflow(P.secretKey, {
      slug: "sms-then-inbox",
      name: "SMS, then inbox",
      steps: [{ type: "send", channel: "sms", template: "p-sms" }, { type: "fallback", channels: ["in_app"], template: "p-sms" }],
    });
  });
  afterAll(async () => {
    await dropTenant(P.tenant.id);
  });

  test("still sent at FALLBACK_WAIT: treated as not delivered, the next channel is tried", async () => {
    const sub = await subscriber(P.secretKey, { external_id: `p1-${crypto.randomUUID().slice(0, 8)}`, phone: "+5511912340030" });
    const run = await trigger(P.secretKey, "sms-then-inbox", { to: sub.external_id, data: { name: "Hugo" } });
    const waiting = await waitForRun(run.id, 5000, (r) => r.step_state?.kind === "await_previous");
    expect(waiting.next_due_at).toBeTruthy();
    const done = await waitForRun(run.id);
    expect(done.status).toBe("completed");
    const ns = await notificationsOf(run.id);
    expect(ns.map((n) => [n.channel, n.status])).toEqual([["sms", "sent"], ["in_app", "delivered"]]);
    expect(done.step_results[1]).toMatchObject({ type: "fallback", status: "sent", channel: "in_app", notification_id: ns[1]!.id });
  }, 20_000);

  test("a delivery callback wakes the waiting run at once: skipped", async () => {
    const sub = await subscriber(P.secretKey, { external_id: `p2-${crypto.randomUUID().slice(0, 8)}`, phone: "+5511912340031" });
    const run = await trigger(P.secretKey, "sms-then-inbox", { to: sub.external_id, data: { name: "Ivo" } });
    const waiting = await waitForRun(run.id, 5000, (r) => r.step_state?.kind === "await_previous");
    let [sms] = await notificationsOf(run.id);
    for (let i = 0; i < 100 && sms!.status === "pending"; i++) {
      await sleep(10);
      [sms] = await notificationsOf(run.id);
    }
    expect(sms!.status).toBe("sent");
    // the provider's status callback (the one receipt path, domain/receipts/apply-receipt.ts) says delivered before the bound
    expect(Date.now()).toBeLessThan(Date.parse(waiting.step_state.due_at));
    const receipt = await applyReceipt(
      { kind: "message", tenantId: P.tenant.id, environment: "production", channel: "sms", messageId: sms!.provider_message_id },
      { source: "twilio", kind: "delivered", providerStatus: "delivered", at: new Date() },
    );
    expect(receipt).toMatchObject({ found: true, changed: true, status: "delivered" });
    const done = await waitForRun(run.id);
    expect(done.step_results[1]).toEqual({ type: "fallback", step: 1, status: "skipped", reason: "previous_step_delivered" });
    expect(await notificationsOf(run.id)).toHaveLength(1);
  });
});
