// The activity feed (issue 27 item 3) through the whole system: notifications sent by the API and by a
// workflow, delivered or failed by the channel sender (sandbox provider), then found by recipient,
// subscriber (across channels), template, workflow, status, channel and time, cursor-paged with the
// filters; a workflow run's send step shows its notification's current status, and the notification
// names its run and step (issue 27 item 2).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { call, createTenant } from "../support/fixtures";
import { createWorkflow, dropTenant, startWorkflowHost, trigger, waitForRun, wipeRedis } from "./workflow-support";
import { waitForStatus } from "./delivery-support";

let T: Awaited<ReturnType<typeof createTenant>>;
let host: Awaited<ReturnType<typeof startWorkflowHost>>;
const run = crypto.randomUUID().slice(0, 8);
const ANA = `ana-${run}`;
const ANA_EMAIL = `ana-${run}@feed-${run}.com`;
const PHONE = "+5511912345678";
const sent: Record<string, string> = {};
let startedAt: string;
let runId: string;
let failingRunId: string;

async function send(name: string, body: Record<string, unknown>) {
  const r = await call("POST", "/v1/notifications", { key: T.sandboxKey, body });
  expect(r.status).toBe(202);
  sent[name] = r.body.data.id;
}

async function feed(query: string) {
  const r = await call("GET", `/v1/notifications?${query}`, { key: T.sandboxKey });
  expect(r.status).toBe(200);
  return r.body as { data: any[]; meta: { cursor: string | null; has_more: boolean } };
}
const idsOf = async (query: string) => (await feed(query)).data.map((n) => n.id);

beforeAll(async () => {
  T = await createTenant();
  host = await startWorkflowHost();
  const key = T.sandboxKey;
  expect((await call("POST", "/v1/subscribers", { key, body: { external_id: ANA, email: ANA_EMAIL, phone: PHONE, name: "Ana" } })).status).toBeLessThan(300);
  expect((await call("POST", "/v1/templates", { key, body: { slug: "feed-welcome", name: "Welcome", channel: "email", content: "Hi {{name}}", variants: { subject: "Hi" } } })).status).toBe(201);
  expect((await call("POST", "/v1/templates", { key, body: { slug: "feed-code", name: "Code", channel: "sms", content: "Code {{code}}" } })).status).toBe(201);
  await createWorkflow(key, { slug: `feed-flow-${run}`, name: "Feed flow", steps: [{ type: "send", channel: "email", template: "feed-welcome" }] });
  await createWorkflow(key, { slug: `other-flow-${run}`, name: "Other", steps: [{ type: "send", channel: "email", template: "feed-welcome" }] });
  startedAt = new Date(Date.now() - 1000).toISOString();

  await send("anaEmail", { channel: "email", to: ANA_EMAIL.toUpperCase(), template: "feed-welcome", data: { name: "Ana" } });
  await send("anaSms", { channel: "sms", to: PHONE, template: "feed-code", data: { code: "1234" } });
  await send("anaInApp", { channel: "in_app", to: ANA, data: { title: "Hello", body: "there" } });
  await send("failing", { channel: "email", to: `fail-${run}@feed-${run}.com`, data: { subject: "S", content: "raw" } });
  await send("other", { channel: "email", to: `bob-${run}@feed-${run}.com`, template: "feed-welcome", data: { name: "Bob" } });
  runId = (await trigger(key, `feed-flow-${run}`, { recipient: ANA, data: { name: "Ana" } })).id;
  failingRunId = (await trigger(key, `other-flow-${run}`, { recipient: `fail-wf-${run}@feed-${run}.com`, data: { name: "X" } })).id;
  for (const id of Object.values(sent)) await waitForStatus(id, ["delivered", "failed"], 20_000);
  for (const id of [runId, failingRunId]) {
    const row = await waitForRun(id, 20_000);
    expect(row.status).toBe("completed");
    await waitForStatus(row.step_results[0].notification_id, ["delivered", "failed"], 20_000);
  }
}, 90_000);

afterAll(async () => {
  await host?.stop();
  await wipeRedis();
  if (T) await dropTenant(T.tenant.id);
});

describe("GET /v1/notifications filters", () => {
  test("recipient: the address as typed finds what was stored (emails compare case-insensitively)", async () => {
    expect(await idsOf(`recipient=${encodeURIComponent(ANA_EMAIL.toUpperCase())}&channel=email`)).toContain(sent.anaEmail);
    const byPhone = await idsOf(`recipient=${encodeURIComponent(PHONE)}`);
    expect(byPhone).toEqual([sent.anaSms]);
  });

  test("subscriber (external_id or id): their history across channels, the workflow's step included", async () => {
    const page = await feed(`subscriber=${ANA}`);
    const channels = page.data.map((n) => n.channel).sort();
    expect(channels).toEqual(["email", "email", "in_app", "sms"]);
    expect(page.data.every((n) => n.subscriber_id === page.data[0].subscriber_id)).toBe(true);
    expect(await idsOf(`subscriber=${page.data[0].subscriber_id}`)).toEqual(page.data.map((n) => n.id));
    expect((await feed(`subscriber=nobody-${run}`)).data).toEqual([]);
  });

  test("template, workflow, status and channel, alone and together", async () => {
    const welcome = await idsOf("template=feed-welcome");
    expect(welcome).toContain(sent.anaEmail);
    expect(welcome).toContain(sent.other);
    expect(welcome).not.toContain(sent.anaSms);

    const flow = await feed(`workflow=feed-flow-${run}`);
    expect(flow.data).toHaveLength(1);
    expect(flow.data[0].workflow_step).toEqual({ run_id: runId, step: 0 });
    expect(flow.data[0].recipient).toBe(ANA_EMAIL);

    const failed = await idsOf("status=failed");
    expect(failed.sort()).toEqual([sent.failing, (await feed(`workflow=other-flow-${run}`)).data[0].id].sort());
    expect(await idsOf("status=failed&workflow=other-flow-" + run)).toHaveLength(1);
    expect(await idsOf("channel=sms")).toEqual([sent.anaSms]);
    expect(await idsOf(`channel=email&status=delivered&subscriber=${ANA}`)).toHaveLength(2);
  });

  test("time range: created_after / created_before bound the page", async () => {
    expect((await idsOf(`created_after=${encodeURIComponent(startedAt)}`)).length).toBe(7);
    expect(await idsOf(`created_before=${encodeURIComponent(startedAt)}`)).toEqual([]);
    const future = new Date(Date.now() + 3_600_000).toISOString();
    expect(await idsOf(`created_after=${encodeURIComponent(future)}`)).toEqual([]);
  });

  test("cursor paging keeps the filters: limit 1 walks the subscriber's history newest first, no repeats", async () => {
    const all = await idsOf(`subscriber=${ANA}`);
    const walked: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await feed(`subscriber=${ANA}&limit=1${cursor ? `&cursor=${cursor}` : ""}`);
      walked.push(...page.data.map((n) => n.id));
      cursor = page.meta.cursor;
      expect(page.meta.has_more).toBe(cursor !== null);
    } while (cursor);
    expect(walked).toEqual(all);
  });

  test("bad filters: 422 naming each field, nothing else read", async () => {
    const r = await call("GET", "/v1/notifications?created_after=yesterday&created_before=2026-01-01T00:00:00&template=", { key: T.sandboxKey });
    expect(r.status).toBe(422);
    expect(Object.keys(r.body.error.details).sort()).toEqual(["created_after", "created_before", "template"]);
    const order = await call("GET", "/v1/notifications?created_after=2026-02-01&created_before=2026-01-01", { key: T.sandboxKey });
    expect(order.body.error.details.created_before).toEqual(["must be later than created_after"]);
  });
});

describe("screens that tell the truth: runs and notifications name each other", () => {
  test("a send step whose notification failed: status stays enqueued, notification_status says failed", async () => {
    const r = await call("GET", `/v1/workflow-runs/${failingRunId}`, { key: T.sandboxKey });
    expect(r.body.data.step_results[0]).toMatchObject({ type: "send", status: "enqueued", notification_status: "failed" });
    const ok = await call("GET", `/v1/workflow-runs/${runId}`, { key: T.sandboxKey });
    expect(ok.body.data.step_results[0]).toMatchObject({ status: "enqueued", notification_status: "delivered" });
    const list = await call("GET", `/v1/workflow-runs?limit=10`, { key: T.sandboxKey });
    const listed = list.body.data.find((x: any) => x.id === failingRunId);
    expect(listed.step_results[0].notification_status).toBe("failed");
  });

  test("GET /v1/workflow-runs?subscriber=: the runs triggered for that subscriber (external_id or id)", async () => {
    const runs = await call("GET", `/v1/workflow-runs?subscriber=${ANA}`, { key: T.sandboxKey });
    expect(runs.body.data.map((r: any) => r.id)).toEqual([runId]);
    expect(runs.body.data[0].step_results[0].notification_status).toBe("delivered");
    const none = await call("GET", `/v1/workflow-runs?subscriber=nobody-${run}`, { key: T.sandboxKey });
    expect(none.body).toEqual({ data: [], meta: { cursor: null, has_more: false } });
  });

  test("the notification detail names its run and step; a direct send names none", async () => {
    const stepNotification = (await call("GET", `/v1/workflow-runs/${failingRunId}`, { key: T.sandboxKey })).body.data.step_results[0].notification_id;
    const d = await call("GET", `/v1/notifications/${stepNotification}`, { key: T.sandboxKey });
    expect(d.body.data.workflow_step).toEqual({ run_id: failingRunId, step: 0 });
    expect(d.body.data.error.code).toBeTruthy();
    const direct = await call("GET", `/v1/notifications/${sent.anaSms}`, { key: T.sandboxKey });
    expect(direct.body.data.workflow_step).toBeNull();
  });
});
