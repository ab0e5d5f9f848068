// The workflow step types of issue 21 through the whole system (API trigger, workflow-run and
// channel-sender actors on one host over real Redis and PostgreSQL at TIME_SCALE 0.001, 1h = 3.6 s):
// digest, throttle, conditions (`if`), read-aware branching, delay until a local time.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "../../store/db";
import { call, createTenant } from "../support/fixtures";
import { sleep, waitFor } from "../support/runtime-redis";
import { createWorkflow, dropTenant, startWorkflowHost, trigger, waitForRun } from "./workflow-support";

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

let T: Awaited<ReturnType<typeof createTenant>>;
let host: Awaited<ReturnType<typeof startWorkflowHost>>;

async function template(body: Record<string, unknown>) {
  const r = await call("POST", "/v1/templates", { key: T.sandboxKey, body: { status: "active", ...body } });
  expect(r.status).toBe(201);
}

async function subscriber(body: Record<string, unknown>) {
  const r = await call("POST", "/v1/subscribers", { key: T.sandboxKey, body: { external_id: `s-${crypto.randomUUID().slice(0, 8)}`, ...body } });
  expect([200, 201]).toContain(r.status);
  return r.body.data;
}

const notificationsOf = (runId: string) => sql`select * from notifications where idempotency_key like ${`wfrun:${runId}:%`} order by created_at, id`;
const runsOf = (ids: string[]) => sql`select * from workflow_runs where id = any(${ids}::uuid[])`;
const allDone = (ids: string[]) => async () => (await runsOf(ids)).every((r: any) => r.status !== "running");

beforeAll(async () => {
  T = await createTenant();
  await template({
    slug: "ds-inbox",
    name: "Digest",
    channel: "in_app",
    content: "{{ digest.count }} new comments: {% for e in digest.events %}{{ e.comment }};{% endfor %}",
    variants: { title: "{{ digest.count }} new comments" },
  });
  await template({ slug: "ds-plain", name: "Plain", channel: "in_app", content: "Hello {{ name }}", variants: { title: "Hi" } });
  await template({ slug: "ds-email", name: "Email", channel: "email", content: "You have unread news, {{ name }}", variants: { subject: "Unread" } });
  host = await startWorkflowHost({ timeScale: 0.001 });
});

afterAll(async () => {
  await host?.stop();
  await dropTenant(T.tenant.id);
});

describe("digest", () => {
  test("5 triggers: one leader renders digest.count 5 and the 5 data items in arrival order; 4 merged runs end completed", async () => {
    const sub = await subscriber({});
    await createWorkflow(T.sandboxKey, {
      slug: "dg-five",
      name: "Digest five",
      steps: [{ type: "digest", window: "1h" }, { type: "send", channel: "in_app", template: "ds-inbox" }],
    });
    const ids: string[] = [];
    for (let i = 1; i <= 5; i++) {
      ids.push((await trigger(T.sandboxKey, "dg-five", { to: sub.external_id, data: { comment: `c${i}` } })).id);
      // arrival order is the order the runs reach the step: wait for each to be placed
      expect(await waitFor(async () => (await sql`select 1 from workflow_digest_members where run_id = ${ids[i - 1]!}`).length === 1, 5000, 10)).toBe(true);
    }
    expect(await waitFor(allDone(ids), 20_000, 50)).toBe(true);
    const r = await call("GET", `/v1/workflow-runs/${ids[0]}`, { key: T.sandboxKey });
    const leader = r.body.data;
    expect(leader.status).toBe("completed");
    const d = leader.step_results[0];
    expect(Object.keys(d).sort()).toEqual(["event_count", "run_ids", "status", "step", "type", "window_ended_at", "window_started_at"]);
    expect(d).toMatchObject({ type: "digest", step: 0, status: "completed", event_count: 5, run_ids: ids });
    expect(d.window_started_at).toMatch(ISO);
    expect(Date.parse(d.window_ended_at) - Date.parse(d.window_started_at)).toBeGreaterThanOrEqual(3500);
    const [n] = await notificationsOf(ids[0]!);
    expect(JSON.stringify(n.content)).toContain("5 new comments: c1;c2;c3;c4;c5;");
    for (const id of ids.slice(1)) {
      const m = (await call("GET", `/v1/workflow-runs/${id}`, { key: T.sandboxKey })).body.data;
      expect(m).toMatchObject({ status: "completed", current_step: 2 });
      expect(m.step_results).toEqual([{ type: "digest", step: 0, status: "merged", digest_run_id: ids[0] }]);
      expect(await notificationsOf(id)).toHaveLength(0);
      const ev = await sql`select type from events where data->>'run_id' = ${id} and type like 'workflow.%' order by created_at, id`;
      expect(ev.map((e: any) => e.type)).toEqual(["workflow.triggered", "workflow.step.completed", "workflow.completed"]);
    }
  }, 30_000);

  test("two keys make two digests; a trigger after the window closed opens the next digest", async () => {
    const sub = await subscriber({});
    await createWorkflow(T.sandboxKey, {
      slug: "dg-keys",
      name: "Digest by thread",
      steps: [{ type: "digest", window: "1h", key: "{{ data.thread_id }}" }, { type: "send", channel: "in_app", template: "ds-inbox" }],
    });
    const ids = await Promise.all(
      ["a", "b", "a", "b", "a"].map(async (t, i) => (await trigger(T.sandboxKey, "dg-keys", { to: sub.external_id, data: { thread_id: t, comment: `${t}${i}` } })).id),
    );
    expect(await waitFor(allDone(ids), 20_000, 50)).toBe(true);
    const digests = await sql`select digest_key, event_count, status from workflow_digests where tenant_id = ${T.tenant.id} and recipient = ${sub.external_id} order by digest_key`;
    expect(digests.map((x: any) => [x.digest_key, x.event_count, x.status])).toEqual([["a", 3, "closed"], ["b", 2, "closed"]]);
    const later = await trigger(T.sandboxKey, "dg-keys", { to: sub.external_id, data: { thread_id: "a", comment: "late" } });
    const done = await waitForRun(later.id, 20_000);
    expect(done.step_results[0]).toMatchObject({ type: "digest", status: "completed", event_count: 1, run_ids: [later.id] });
    expect((await sql`select count(*)::int as n from workflow_digests where tenant_id = ${T.tenant.id} and recipient = ${sub.external_id}`)[0].n).toBe(3);
  }, 40_000);

  test("200 concurrent triggers for one recipient: exactly one leader and 199 merged, one digest of 200 in one notification", async () => {
    const sub = await subscriber({});
    await createWorkflow(T.sandboxKey, {
      slug: "dg-200",
      name: "Digest 200",
      steps: [{ type: "digest", window: "2h" }, { type: "send", channel: "in_app", template: "ds-inbox" }],
    });
    const ids = await Promise.all(Array.from({ length: 200 }, async (_, i) => (await trigger(T.sandboxKey, "dg-200", { to: sub.external_id, data: { comment: `x${i}` } })).id));
    expect(await waitFor(allDone(ids), 40_000, 100)).toBe(true);
    const runs = await runsOf(ids);
    const leaders = runs.filter((r: any) => r.step_results[0].status === "completed");
    const merged = runs.filter((r: any) => r.step_results[0].status === "merged");
    expect(leaders).toHaveLength(1);
    expect(merged).toHaveLength(199);
    expect(merged.every((r: any) => r.step_results[0].digest_run_id === leaders[0].id)).toBe(true);
    expect(leaders[0].step_results[0].event_count).toBe(200);
    expect(new Set(leaders[0].step_results[0].run_ids)).toEqual(new Set(ids));
    const notes = await sql`select count(*)::int as n from notifications where tenant_id = ${T.tenant.id} and subscriber_id = ${sub.id}`;
    expect(notes[0].n).toBe(1);
  }, 60_000);

  test("max_events closes the digest early: the leader goes on at the third event, not at the window's end", async () => {
    const sub = await subscriber({});
    await createWorkflow(T.sandboxKey, {
      slug: "dg-max",
      name: "Digest max",
      // 1d = 86 s at this scale: only max_events can close it within the test
      steps: [{ type: "digest", window: "1d", max_events: 3 }, { type: "send", channel: "in_app", template: "ds-inbox" }],
    });
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push((await trigger(T.sandboxKey, "dg-max", { to: sub.external_id, data: { comment: `m${i}` } })).id);
    const leader = await waitForRun(ids[0]!, 20_000);
    expect(leader.status).toBe("completed");
    expect(leader.step_results[0]).toMatchObject({ status: "completed", event_count: 3 });
    // the fourth opened the next digest (and leads it, still open)
    const fourth = await waitForRun(ids[3]!, 5000, (r) => r.step_state?.kind === "digest" || r.status !== "running");
    expect(fourth.status).toBe("running");
    expect(fourth.step_state.kind).toBe("digest");
    await call("POST", `/v1/workflow-runs/${ids[3]}/cancel`, { key: T.sandboxKey });
  }, 30_000);

  test("cancelling a leader cancels its open digest: its members stay merged and nothing is sent; the next trigger opens a new digest", async () => {
    const sub = await subscriber({});
    await createWorkflow(T.sandboxKey, {
      slug: "dg-cancel",
      name: "Digest cancel",
      // 1d = 86 s at this scale: only the cancel or max_events can close it within the test
      steps: [{ type: "digest", window: "1d", max_events: 2 }, { type: "send", channel: "in_app", template: "ds-inbox" }],
    });
    const leader = await trigger(T.sandboxKey, "dg-cancel", { to: sub.external_id, data: { comment: "a" } });
    await waitForRun(leader.id, 10_000, (r) => r.step_state?.kind === "digest");
    const cancelled = await call("POST", `/v1/workflow-runs/${leader.id}/cancel`, { key: T.sandboxKey });
    expect(cancelled.status).toBe(200);
    const [old] = await sql`select status, closed_at, event_count from workflow_digests where leader_run_id = ${leader.id}`;
    expect(old).toMatchObject({ status: "closed", event_count: 1 });
    expect(old.closed_at).not.toBeNull();
    // later triggers open a new digest with a live leader, which max_events closes and sends
    const next = [(await trigger(T.sandboxKey, "dg-cancel", { to: sub.external_id, data: { comment: "b" } })).id];
    expect(await waitFor(async () => (await sql`select 1 from workflow_digest_members where run_id = ${next[0]!}`).length === 1, 5000, 10)).toBe(true);
    next.push((await trigger(T.sandboxKey, "dg-cancel", { to: sub.external_id, data: { comment: "c" } })).id);
    expect(await waitFor(allDone(next), 20_000, 50)).toBe(true);
    const runs = await runsOf(next);
    const newLeader = runs.find((r: any) => r.step_results[0].status === "completed")!;
    expect(newLeader.step_results[0]).toMatchObject({ event_count: 2, run_ids: next });
    expect(await notificationsOf(leader.id)).toHaveLength(0);
    const [n] = await notificationsOf(newLeader.id);
    expect(JSON.stringify(n.content)).toContain("2 new comments: b;c;");
    expect((await sql`select count(*)::int as n from workflow_digests where tenant_id = ${T.tenant.id} and recipient = ${sub.external_id}`)[0].n).toBe(2);
  }, 30_000);

  test("a digest whose leader was cancelled without its close (a crash between the two) is closed by the next join", async () => {
    const sub = await subscriber({});
    await createWorkflow(T.sandboxKey, {
      slug: "dg-cancel-crash",
      name: "Digest cancel crash",
      steps: [{ type: "digest", window: "1d", max_events: 2 }, { type: "send", channel: "in_app", template: "ds-inbox" }],
    });
    const leader = await trigger(T.sandboxKey, "dg-cancel-crash", { to: sub.external_id, data: { comment: "a" } });
    await waitForRun(leader.id, 10_000, (r) => r.step_state?.kind === "digest");
    // the cancel's run write without its digest close
    await sql`update workflow_runs set status = 'cancelled', rev = rev + 1, step_state = null where id = ${leader.id}`;
    const next = [(await trigger(T.sandboxKey, "dg-cancel-crash", { to: sub.external_id, data: { comment: "b" } })).id];
    expect(await waitFor(async () => (await sql`select 1 from workflow_digest_members where run_id = ${next[0]!}`).length === 1, 5000, 10)).toBe(true);
    next.push((await trigger(T.sandboxKey, "dg-cancel-crash", { to: sub.external_id, data: { comment: "c" } })).id);
    expect(await waitFor(allDone(next), 20_000, 50)).toBe(true);
    const runs = await runsOf(next);
    expect(runs.every((r: any) => r.step_results[0].digest_run_id !== leader.id)).toBe(true);
    const newLeader = runs.find((r: any) => r.step_results[0].status === "completed")!;
    expect(newLeader.step_results[0]).toMatchObject({ event_count: 2, run_ids: next });
    const [old] = await sql`select status, event_count from workflow_digests where leader_run_id = ${leader.id}`;
    expect(old).toMatchObject({ status: "closed", event_count: 1 });
  }, 30_000);

  test("a digest opened under v1 closes under v1: a run of v2 joins it, and the leader renders with v1's later step", async () => {
    const sub = await subscriber({});
    const v1 = await createWorkflow(T.sandboxKey, {
      slug: "dg-ver",
      name: "Digest versions",
      steps: [{ type: "digest", window: "1h", max_events: 2 }, { type: "send", channel: "in_app", template: "ds-inbox" }],
    });
    const first = await trigger(T.sandboxKey, "dg-ver", { to: sub.external_id, data: { comment: "v1" } });
    expect(await waitFor(async () => (await sql`select 1 from workflow_digest_members where run_id = ${first.id}`).length === 1, 5000, 10)).toBe(true);
    const put = await call("PUT", `/v1/workflows/${v1.id}`, {
      key: T.sandboxKey,
      body: { name: "Digest versions", steps: [{ type: "digest", window: "1h", max_events: 2 }, { type: "send", channel: "in_app", template: "ds-plain" }] },
    });
    expect(put.status).toBe(200);
    const second = await trigger(T.sandboxKey, "dg-ver", { to: sub.external_id, data: { comment: "v2", name: "B" } });
    const leader = await waitForRun(first.id, 20_000);
    const member = await waitForRun(second.id, 20_000);
    expect(member).toMatchObject({ workflow_version: 2, status: "completed" });
    expect(member.step_results[0]).toEqual({ type: "digest", step: 0, status: "merged", digest_run_id: first.id });
    expect(leader.workflow_version).toBe(1);
    expect(leader.step_results[0]).toMatchObject({ status: "completed", event_count: 2, run_ids: [first.id, second.id] });
    const [n] = await notificationsOf(first.id);
    expect(n.template_slug).toBe("ds-inbox");
    expect(JSON.stringify(n.content)).toContain("2 new comments: v1;v2;");
  }, 30_000);
});

describe("throttle", () => {
  test("50 concurrent triggers: exactly `limit` pass, the others end completed and throttled", async () => {
    const sub = await subscriber({});
    await createWorkflow(T.sandboxKey, {
      slug: "otp",
      name: "OTP throttle",
      steps: [{ type: "throttle", limit: 3, window: "1d" }, { type: "send", channel: "in_app", template: "ds-plain" }],
    });
    const ids = await Promise.all(Array.from({ length: 50 }, async () => (await trigger(T.sandboxKey, "otp", { to: sub.external_id, data: { name: "Ana" } })).id));
    expect(await waitFor(allDone(ids), 30_000, 50)).toBe(true);
    const runs = await runsOf(ids);
    const passed = runs.filter((r: any) => r.step_results[0].status === "passed");
    const throttled = runs.filter((r: any) => r.step_results[0].status === "throttled");
    expect(passed).toHaveLength(3);
    expect(throttled).toHaveLength(47);
    expect(runs.every((r: any) => r.status === "completed")).toBe(true);
    expect(throttled[0].step_results).toEqual([{ type: "throttle", step: 0, status: "throttled" }]);
    expect(passed[0].step_results[0]).toEqual({ type: "throttle", step: 0, status: "passed" });
    expect(passed.every((r: any) => r.step_results[1].type === "send")).toBe(true);
  }, 40_000);
});

describe("conditions", () => {
  test("on data, on a subscriber custom property, on an earlier step's status; a false one records skipped and goes on", async () => {
    const pro = await subscriber({ email: "pro@example.com", custom_properties: { plan: "pro" } });
    const free = await subscriber({ email: "free@example.com", custom_properties: { plan: "free" } });
    await createWorkflow(T.sandboxKey, {
      slug: "cond",
      name: "Conditions",
      steps: [
        { type: "send", channel: "in_app", template: "ds-plain", if: { "==": [{ var: "data.urgent" }, true] } },
        { type: "send", channel: "in_app", template: "ds-plain", if: { "==": [{ var: "subscriber.custom_properties.plan" }, "pro"] } },
        { type: "send", channel: "in_app", template: "ds-plain", if: { "==": [{ var: "steps.1.status" }, "skipped"] } },
      ],
    });
    const a = await trigger(T.sandboxKey, "cond", { to: pro.external_id, data: { urgent: true, name: "P" } });
    const b = await trigger(T.sandboxKey, "cond", { to: free.external_id, data: { urgent: false, name: "F" } });
    const ra = await waitForRun(a.id);
    const rb = await waitForRun(b.id);
    expect(ra.status).toBe("completed");
    expect(ra.step_results.map((s: any) => s.status)).toEqual(["enqueued", "enqueued", "skipped"]);
    expect(ra.step_results[2]).toEqual({ type: "send", step: 2, status: "skipped", reason: "condition_false" });
    expect(rb.status).toBe("completed");
    expect(rb.step_results.map((s: any) => s.status)).toEqual(["skipped", "skipped", "enqueued"]);
    expect(rb.step_results[0]).toEqual({ type: "send", step: 0, status: "skipped", reason: "condition_false" });
    expect(await notificationsOf(b.id)).toHaveLength(1);
  }, 20_000);

  test("a rule that fails to evaluate fails the step with condition_error", async () => {
    const sub = await subscriber({});
    await createWorkflow(T.sandboxKey, {
      slug: "cond-err",
      name: "Condition error",
      // a product of no factors throws inside json-logic-js (reduce of an empty array)
      steps: [{ type: "send", channel: "in_app", template: "ds-plain", if: { ">": [{ "*": [] }, 1] } }],
    });
    const run = await waitForRun((await trigger(T.sandboxKey, "cond-err", { to: sub.external_id, data: {} })).id);
    expect(run.status).toBe("failed");
    expect(run.step_results[0]).toMatchObject({ type: "send", step: 0, status: "failed", error: { code: "condition_error", message: expect.any(String) } });
  }, 20_000);
});

describe("read-aware branching: in_app, wait, email only if still unread", () => {
  const steps = [
    { type: "send", channel: "in_app", template: "ds-plain" },
    { type: "delay", duration: "1h" },
    { type: "send", channel: "email", template: "ds-email", if: { "!": { var: "steps.0.read" } } },
  ];
  beforeAll(async () => {
    await createWorkflow(T.sandboxKey, { slug: "nudge", name: "Unread nudge", steps });
  });

  test("left unread: the email is sent", async () => {
    const sub = await subscriber({ email: "unread@example.com" });
    const run = await waitForRun((await trigger(T.sandboxKey, "nudge", { to: sub.external_id, data: { name: "U" } })).id, 20_000);
    expect(run.status).toBe("completed");
    expect(run.step_results[2]).toMatchObject({ type: "send", step: 2, channel: "email", status: "enqueued" });
    expect((await notificationsOf(run.id)).map((n: any) => n.channel)).toEqual(["in_app", "email"]);
  }, 30_000);

  test("read through the inbox route during the delay: no email, the step is skipped", async () => {
    const sub = await subscriber({ email: "reader@example.com" });
    const { id } = await trigger(T.sandboxKey, "nudge", { to: sub.external_id, data: { name: "R" } });
    expect(await waitFor(async () => (await sql`select 1 from inbox_items i join notifications n on n.id = i.notification_id where n.idempotency_key = ${`wfrun:${id}:step:0`}`).length === 1, 5000, 20)).toBe(true);
    const [n] = await notificationsOf(id);
    const read = await call("POST", `/v1/subscribers/${sub.external_id}/notifications/${n.id}/read`, { key: T.sandboxKey });
    expect(read.status).toBe(200);
    const run = await waitForRun(id, 20_000);
    expect(run.status).toBe("completed");
    expect(run.step_results[2]).toEqual({ type: "send", step: 2, status: "skipped", reason: "condition_false" });
    expect((await notificationsOf(id)).map((x: any) => x.channel)).toEqual(["in_app"]);
  }, 30_000);
});

describe("delay until a local time", () => {
  test("the subscriber's timezone, else the tenant's delivery timezone, else UTC; the result records until, timezone, scheduled_at, duration_seconds", async () => {
    await createWorkflow(T.sandboxKey, { slug: "nine", name: "09:00 nudge", steps: [{ type: "delay", until: "09:00" }, { type: "send", channel: "in_app", template: "ds-plain" }] });
    const check = async (to: string, tz: string) => {
      const before = Date.now();
      const { id } = await trigger(T.sandboxKey, "nine", { to, data: { name: "N" } });
      const run = await waitForRun(id, 5000, (r) => r.step_results.length > 0);
      const d = run.step_results[0];
      expect(Object.keys(d).sort()).toEqual(["duration_seconds", "scheduled_at", "step", "timezone", "type", "until"]);
      expect(d).toMatchObject({ type: "delay", step: 0, until: "09:00", timezone: tz });
      const at = Date.parse(d.scheduled_at);
      expect(at).toBeGreaterThan(before);
      expect(at - before).toBeLessThanOrEqual(25 * 3600_000);
      const local = new Intl.DateTimeFormat("en-GB", { timeZone: tz, hour: "2-digit", minute: "2-digit", hourCycle: "h23" }).format(new Date(at));
      expect(local).toBe("09:00");
      expect(Math.abs(d.duration_seconds - (at - before) / 1000)).toBeLessThan(30);
      await call("POST", `/v1/workflow-runs/${id}/cancel`, { key: T.sandboxKey });
    };
    await check((await subscriber({ timezone: "America/Sao_Paulo" })).external_id, "America/Sao_Paulo");
    await check((await subscriber({})).external_id, "UTC");
    await sql`insert into delivery_settings (tenant_id, environment, timezone) values (${T.tenant.id}, 'sandbox', 'Europe/Berlin')`;
    await sleep(5100); // the delivery settings cache lives 5 s
    await check((await subscriber({})).external_id, "Europe/Berlin");
  }, 30_000);
});
