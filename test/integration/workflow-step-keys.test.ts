// Long values in indexed workflow columns: a long rendered digest or throttle key (incompressible, past
// PostgreSQL's btree row limit) still groups its runs, at trigger, in the actor and for a throttle; a long recipient triggers.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { sql } from "../../store/db";
import { call, createTenant } from "../support/fixtures";
import { waitFor } from "../support/runtime-redis";
import { createWorkflow, dropTenant, startWorkflowHost, trigger, waitForRun } from "./workflow-support";

let T: Awaited<ReturnType<typeof createTenant>>;
let host: Awaited<ReturnType<typeof startWorkflowHost>>;

// 6,000 random bytes as base64: 8,000 characters no compression shrinks under the 2,704-byte index row limit
const longKey = () => randomBytes(6000).toString("base64");
const runsOf = (ids: string[]) => sql`select * from workflow_runs where id = any(${ids}::uuid[]) order by started_at, id`;

/** The runs all completed in one digest: one leader holding every run, the others merged into it (the actor joins in job order). */
function expectOneDigest(runs: any[], ids: string[]) {
  expect(runs.every((r) => r.status === "completed")).toBe(true);
  const leaders = runs.filter((r) => r.step_results[0].status === "completed");
  expect(leaders).toHaveLength(1);
  expect(leaders[0].step_results[0]).toMatchObject({ type: "digest", event_count: ids.length });
  expect([...leaders[0].step_results[0].run_ids].sort()).toEqual([...ids].sort());
  for (const m of runs.filter((r) => r !== leaders[0])) expect(m.step_results).toEqual([{ type: "digest", step: 0, status: "merged", digest_run_id: leaders[0].id }]);
}

beforeAll(async () => {
  T = await createTenant();
  const r = await call("POST", "/v1/templates", {
    key: T.sandboxKey,
    body: { slug: "lk-email", name: "K", channel: "email", content: "{{ digest.count }} updates", variants: { subject: "K" }, status: "active" },
  });
  expect(r.status).toBe(201);
  host = await startWorkflowHost({ timeScale: 0.001 });
});

afterAll(async () => {
  await host?.stop();
  await dropTenant(T.tenant.id);
});

test("a digest joined at trigger with an 8,000-character rendered key: 202, and the same key joins the same digest, another opens its own", async () => {
  await createWorkflow(T.sandboxKey, {
    slug: "lk-trigger",
    name: "Long key at trigger",
    steps: [{ type: "digest", window: "1h", key: "{{ data.thread }}" }, { type: "send", channel: "email", template: "lk-email" }],
  });
  const [k1, k2] = [longKey(), longKey()];
  const to = "long-trigger@example.com";
  const answers = [];
  for (const thread of [k1, k1, k2]) {
    const r = await call("POST", "/v1/workflows/lk-trigger/trigger", { key: T.sandboxKey, body: { to, data: { thread } } });
    expect(r.status).toBe(202);
    answers.push(r.body.data);
  }
  const bulk = await call("POST", "/v1/workflows/lk-trigger/trigger/bulk", { key: T.sandboxKey, body: { events: [{ to, data: { thread: k2 } }] } });
  expect(bulk.status).toBe(202);
  const [a, b, c] = answers;
  const d = bulk.body.data[0];
  const runs = new Map((await runsOf([a.id, b.id, c.id, d.id])).map((r) => [r.id, r]));
  expect(runs.get(a.id)!.status).toBe("running");
  expect(runs.get(b.id)!.step_results).toEqual([{ type: "digest", step: 0, status: "merged", digest_run_id: a.id }]);
  expect(runs.get(c.id)!.status).toBe("running");
  expect(runs.get(d.id)!.step_results).toEqual([{ type: "digest", step: 0, status: "merged", digest_run_id: c.id }]);
  for (const id of [a.id, c.id]) await call("POST", `/v1/workflow-runs/${id}/cancel`, { key: T.sandboxKey });
}, 30_000);

test("a digest joined in the actor (it has an `if`) with a long rendered key: the runs finish, one digest per key", async () => {
  await createWorkflow(T.sandboxKey, {
    slug: "lk-actor",
    name: "Long key in the actor",
    steps: [{ type: "digest", window: "1h", max_events: 3, key: "{{ data.thread }}", if: { "==": [1, 1] } }, { type: "send", channel: "email", template: "lk-email" }],
  });
  const k = longKey();
  const to = "long-actor@example.com";
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) ids.push((await trigger(T.sandboxKey, "lk-actor", { to, data: { thread: k, i } })).id);
  expect(await waitFor(async () => (await runsOf(ids)).every((r) => r.status !== "running"), 30_000, 50)).toBe(true);
  expectOneDigest(await runsOf(ids), ids);
}, 40_000);

test("a throttle with a long rendered key admits exactly `limit` per key", async () => {
  await createWorkflow(T.sandboxKey, {
    slug: "lk-throttle",
    name: "Long key throttle",
    steps: [{ type: "throttle", limit: 2, window: "1d", key: "{{ data.purpose }}" }],
  });
  const [k1, k2] = [longKey(), longKey()];
  const ids = await Promise.all(
    Array.from({ length: 8 }, async (_, i) => (await trigger(T.sandboxKey, "lk-throttle", { to: "long-throttle@example.com", data: { purpose: i % 2 ? k1 : k2 } })).id),
  );
  const runs = await Promise.all(ids.map((id) => waitForRun(id, 30_000)));
  expect(runs.every((r) => r.status === "completed")).toBe(true);
  const passed = (k: string) => runs.filter((r) => r.data.purpose === k && r.step_results[0].status === "passed").length;
  expect([passed(k1), passed(k2)]).toEqual([2, 2]);
}, 40_000);

test("a trigger whose recipient is 8,000 incompressible characters (the limit is 8,192) answers 202 and the run completes", async () => {
  await createWorkflow(T.sandboxKey, { slug: "lk-recipient", name: "Long recipient", steps: [{ type: "delay", duration: "1m" }] });
  const to = randomBytes(4000).toString("hex");
  const r = await call("POST", "/v1/workflows/lk-recipient/trigger", { key: T.sandboxKey, body: { to, data: {} } });
  expect(r.status).toBe(202);
  expect((await waitForRun(r.body.data.id, 30_000)).status).toBe("completed");
}, 40_000);

test("a digest for an 8,000-character recipient, joined at trigger and in the actor: one digest per recipient", async () => {
  await createWorkflow(T.sandboxKey, {
    slug: "lk-rcpt-trigger",
    name: "Long recipient at trigger",
    steps: [{ type: "digest", window: "1h", max_events: 3 }, { type: "delay", duration: "1m" }],
  });
  await createWorkflow(T.sandboxKey, {
    slug: "lk-rcpt-actor",
    name: "Long recipient in the actor",
    steps: [{ type: "digest", window: "1h", max_events: 3, if: { "==": [1, 1] } }, { type: "delay", duration: "1m" }],
  });
  const to = randomBytes(4000).toString("hex");
  for (const slug of ["lk-rcpt-trigger", "lk-rcpt-actor"]) {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await call("POST", `/v1/workflows/${slug}/trigger`, { key: T.sandboxKey, body: { to, data: { i } } });
      expect(r.status).toBe(202);
      ids.push(r.body.data.id);
    }
    expect(await waitFor(async () => (await runsOf(ids)).every((r) => r.status !== "running"), 30_000, 50)).toBe(true);
    expectOneDigest(await runsOf(ids), ids);
  }
}, 60_000);
