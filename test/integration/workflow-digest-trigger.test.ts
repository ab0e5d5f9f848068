// Digest membership at trigger (docs/workflows.md): a version whose first step is an unconditional
// digest has its runs placed by the trigger's own transaction; joins racing the leader's close, max_events.
import { afterAll, afterEach, beforeAll, expect, test } from "bun:test";
import { sql } from "../../store/db";
import { newId } from "../../store/ids";
import { closeDigest, type DigestRow } from "../../store/workflow-digests";
import { newRunRow } from "../../store/workflow-runs";
import { writeTriggeredRuns } from "../../domain/workflows/trigger-digest";
import { call, createTenant } from "../support/fixtures";
import { waitFor } from "../support/runtime-redis";
import { createWorkflow, dropTenant, startWorkflowHost, trigger, useTimeScale, waitForRun, wipeRedis } from "./workflow-support";

let T: Awaited<ReturnType<typeof createTenant>>;
let stops: (() => Promise<void>)[] = [];
let restoreTimeScale = () => {};

const runsOf = async (ids: string[]) => await sql`select * from workflow_runs where id = any(${ids}::uuid[])`;
const eventsOf = async (id: string) => await sql`select type, data from events where tenant_id = ${T.tenant.id} and data->>'run_id' = ${id} order by id`;

beforeAll(async () => {
  T = await createTenant();
  const r = await call("POST", "/v1/templates", {
    key: T.sandboxKey,
    body: { slug: "dt-email", name: "D", channel: "email", content: "{{ digest.count }} updates", variants: { subject: "Digest" }, status: "active" },
  });
  expect(r.status).toBe(201);
  restoreTimeScale = useTimeScale(0.001);
});

afterEach(async () => {
  for (const stop of stops.reverse()) await stop();
  stops = [];
  await wipeRedis();
});

afterAll(async () => {
  restoreTimeScale();
  await dropTenant(T.tenant.id);
});

async function host() {
  const h = await startWorkflowHost({ timeScale: 0.001 });
  stops.push(() => h.stop());
  return h;
}

test("200 concurrent triggers, no workflow-run process: one leader and 199 runs merged by the triggers themselves, with their events; the 202 shows the run as triggered", async () => {
  await createWorkflow(T.sandboxKey, {
    slug: "dt-200",
    name: "Digest at trigger",
    steps: [{ type: "digest", window: "1h" }, { type: "send", channel: "email", template: "dt-email" }],
  });
  const to = "two-hundred@example.com";
  const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => trigger(T.sandboxKey, "dt-200", { to, data: { i } })));
  // SPEC: a trigger answers the run as created (running, step 0, no results), merged or not
  for (const a of answers) expect(a).toMatchObject({ status: "running", current_step: 0, step_results: [] });
  const ids = answers.map((a) => a.id);
  const runs = await runsOf(ids);
  const leaders = runs.filter((r) => r.status === "running");
  const merged = runs.filter((r) => r.status === "completed");
  expect(leaders).toHaveLength(1);
  expect(merged).toHaveLength(199);
  for (const m of merged) {
    expect(m.step_results).toEqual([{ type: "digest", step: 0, status: "merged", digest_run_id: leaders[0].id }]);
    expect(m.current_step).toBe(2);
    expect(m.completed_at).not.toBeNull();
  }
  const [d] = await sql`select * from workflow_digests where leader_run_id = ${leaders[0].id}`;
  expect(d).toMatchObject({ status: "open", event_count: 200 });
  const positions = await sql`select position from workflow_digest_members where digest_id = ${d!.id} order by position`;
  expect(positions.map((p) => p.position)).toEqual(Array.from({ length: 200 }, (_, i) => i));
  const ev = await eventsOf(merged[0].id);
  expect(ev.map((e) => [e.type, e.data.status])).toEqual([
    ["workflow.triggered", "running"],
    ["workflow.step.completed", "completed"],
    ["workflow.completed", "completed"],
  ]);
  expect(ev[1]!.data.step_result).toEqual({ type: "digest", step: 0, status: "merged", digest_run_id: leaders[0].id });
  // the API shows the merged run finished
  const got = await call("GET", `/v1/workflow-runs/${merged[0].id}`, { key: T.sandboxKey });
  expect(got.body.data).toMatchObject({ status: "completed", current_step: 2 });
  // the leader's job closes the digest at its window's end (3.6 s here) and sends once
  await host();
  const leader = await waitForRun(leaders[0].id, 30_000);
  expect(leader.status).toBe("completed");
  expect(leader.step_results[0]).toMatchObject({ status: "completed", event_count: 200 });
  expect(new Set(leader.step_results[0].run_ids)).toEqual(new Set(ids));
  const notes = await sql`select count(*)::int as n from notifications where idempotency_key like ${`wfrun:${leaders[0].id}:%`}`;
  expect(notes[0]!.n).toBe(1);
}, 60_000);

/** A leader's digest held open: the row locked by another transaction while a join and the close queue behind it. */
async function raceJoinAndClose(slug: string, to: string, order: "join-first" | "close-first") {
  const leader = await trigger(T.sandboxKey, slug, { to, data: { i: 0 } });
  const [d] = await sql<DigestRow[]>`select * from workflow_digests where leader_run_id = ${leader.id}`;
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  let locked!: () => void;
  const isLocked = new Promise<void>((r) => (locked = r));
  const holder = sql.begin(async (tx) => {
    await tx`select 1 from workflow_digests where id = ${d!.id} for update`;
    locked();
    await held;
  });
  await isLocked;
  const join = () => trigger(T.sandboxKey, slug, { to, data: { i: 1 } });
  const close = () => closeDigest(d!);
  const [first, second] = order === "join-first" ? [join, close] : [close, join];
  // each waits for the row (seen in pg_stat_activity) before the next asks for it: the lock's queue order
  const waiting = (n: number) => async () =>
    (await sql`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and query ilike '%workflow_digests%'`)[0]!.n >= n;
  const a = first();
  expect(await waitFor(waiting(1), 10_000, 10)).toBe(true);
  const b = second();
  expect(await waitFor(waiting(2), 10_000, 10)).toBe(true);
  release();
  await holder;
  const [x, y] = await Promise.all([a, b]);
  const late = (order === "join-first" ? x : y) as { id: string };
  const closed = (order === "join-first" ? y : x) as Awaited<ReturnType<typeof closeDigest>>;
  return { leader, digest: d!, late, closed };
}

test("a trigger racing the leader's close: it lands in the digest before the close reads its members, or opens the next digest; never both, never neither", async () => {
  await createWorkflow(T.sandboxKey, {
    slug: "dt-race",
    name: "Digest race",
    steps: [{ type: "digest", window: "1d" }, { type: "send", channel: "email", template: "dt-email" }],
  });
  for (const order of ["join-first", "close-first"] as const) {
    const { leader, digest, late, closed } = await raceJoinAndClose("dt-race", `race-${order}@example.com`, order);
    const [membership] = await sql`select digest_id from workflow_digest_members where run_id = ${late.id}`;
    const inClosed = closed.members.some((m) => m.run_id === late.id);
    const [lateRun] = await runsOf([late.id]);
    if (inClosed) {
      expect(membership!.digest_id).toBe(digest.id);
      expect(lateRun.step_results).toEqual([{ type: "digest", step: 0, status: "merged", digest_run_id: leader.id }]);
    } else {
      // it leads the next digest of the key
      expect(membership!.digest_id).not.toBe(digest.id);
      const [next] = await sql`select leader_run_id, status from workflow_digests where id = ${membership!.digest_id}`;
      expect(next).toMatchObject({ leader_run_id: late.id, status: "open" });
      expect(lateRun.status).toBe("running");
    }
    // the order the row's lock was granted in decides which
    expect(inClosed).toBe(order === "join-first");
    expect(closed.digest.event_count).toBe(closed.members.length);
    for (const id of [leader.id, late.id]) await call("POST", `/v1/workflow-runs/${id}/cancel`, { key: T.sandboxKey });
  }
}, 30_000);

test("max_events reached at trigger: the filling trigger closes the digest and wakes its waiting leader; a bulk call fills digests in turn", async () => {
  await createWorkflow(T.sandboxKey, {
    slug: "dt-max",
    name: "Digest max at trigger",
    // 1d = 86 s here: only max_events closes these digests within the test
    steps: [{ type: "digest", window: "1d", max_events: 3 }, { type: "send", channel: "email", template: "dt-email" }],
  });
  await host();
  const to = "max@example.com";
  const leader = await trigger(T.sandboxKey, "dt-max", { to, data: { i: 0 } });
  expect((await waitForRun(leader.id, 20_000, (r) => r.step_state?.kind === "digest")).step_state.kind).toBe("digest");
  const second = await trigger(T.sandboxKey, "dt-max", { to, data: { i: 1 } });
  const third = await trigger(T.sandboxKey, "dt-max", { to, data: { i: 2 } });
  expect((await runsOf([second.id, third.id])).map((r) => r.status)).toEqual(["completed", "completed"]);
  const [d] = await sql`select status, event_count from workflow_digests where leader_run_id = ${leader.id}`;
  expect(d).toMatchObject({ status: "closed", event_count: 3 });
  const done = await waitForRun(leader.id, 20_000);
  expect(done.status).toBe("completed");
  expect(done.step_results[0]).toMatchObject({ status: "completed", event_count: 3, run_ids: [leader.id, second.id, third.id] });

  // 7 events of one recipient in one bulk call: digests of 3, 3 and 1, in arrival order
  const bulk = await call("POST", "/v1/workflows/dt-max/trigger/bulk", {
    key: T.sandboxKey,
    body: { events: Array.from({ length: 7 }, (_, i) => ({ to: "bulk@example.com", data: { i } })) },
  });
  expect(bulk.status).toBe(202);
  const ids: string[] = bulk.body.data.map((r: any) => r.id);
  const digests = await sql`select leader_run_id, status, event_count from workflow_digests where tenant_id = ${T.tenant.id} and recipient = 'bulk@example.com' order by opened_at, id`;
  expect(digests.map((x) => [x.leader_run_id, x.status, x.event_count])).toEqual([
    [ids[0], "closed", 3],
    [ids[3], "closed", 3],
    [ids[6], "open", 1],
  ]);
  for (const n of [0, 3]) {
    const run = await waitForRun(ids[n]!, 20_000);
    expect(run.step_results[0]).toMatchObject({ status: "completed", event_count: 3, run_ids: ids.slice(n, n + 3) });
  }
  await call("POST", `/v1/workflow-runs/${ids[6]}/cancel`, { key: T.sandboxKey });
}, 60_000);

test("a digest with an `if` is joined in the workflow-run actor as before (not at trigger)", async () => {
  await createWorkflow(T.sandboxKey, {
    slug: "dt-if",
    name: "Digest with a condition",
    steps: [{ type: "digest", window: "1d", max_events: 2, if: { "==": [1, 1] } }, { type: "send", channel: "email", template: "dt-email" }],
  });
  const to = "if@example.com";
  const a = await trigger(T.sandboxKey, "dt-if", { to, data: { i: 0 } });
  const b = await trigger(T.sandboxKey, "dt-if", { to, data: { i: 1 } });
  expect((await runsOf([a.id, b.id])).map((r) => r.status)).toEqual(["running", "running"]);
  expect((await sql`select count(*)::int as n from workflow_digest_members where run_id = any(${[a.id, b.id]}::uuid[])`)[0]!.n).toBe(0);
  await host();
  expect(await waitFor(async () => (await runsOf([a.id, b.id])).every((r) => r.status === "completed"), 20_000, 50)).toBe(true);
  const runs = await runsOf([a.id, b.id]);
  expect(runs.map((r) => r.step_results[0].status).sort()).toEqual(["completed", "merged"]);
}, 40_000);

test("triggers of two API processes at once (concurrent transactions, one key and many keys in shuffled order): one leader per key, every run in exactly one digest, positions without gaps", async () => {
  const wf = await createWorkflow(T.sandboxKey, {
    slug: "dt-procs",
    name: "Digest from many processes",
    steps: [{ type: "digest", window: "1d", key: "{{ data.k }}" }, { type: "send", channel: "email", template: "dt-email" }],
  });
  const row = (to: string, k: string, i: number) =>
    newRunRow({ id: newId(), tenantId: T.tenant.id, environment: "sandbox", workflowId: wf.id, workflowVersion: 1, workflowSlug: "dt-procs", recipient: to, subscriberId: null, data: { k, i } });
  // 10 transactions of 20 runs each for one key, and 4 of 60 runs over 30 keys each in its own order
  const one = Array.from({ length: 10 }, (_, t) => Array.from({ length: 20 }, (_, j) => row("procs@example.com", "one", t * 20 + j)));
  const many = Array.from({ length: 4 }, (_, t) => {
    const rows = Array.from({ length: 60 }, (_, j) => row(`p${j % 30}@example.com`, "x", t * 60 + j));
    return t % 2 ? rows.reverse() : rows;
  });
  const batches = [...one, ...many];
  await Promise.all(batches.map((b) => writeTriggeredRuns(b)));
  const ids = batches.flat().map((r) => r.id);
  const runs = await runsOf(ids);
  expect(runs).toHaveLength(ids.length);
  const digests = await sql`select id, recipient, digest_key, leader_run_id, event_count, status from workflow_digests where lineage_id = ${wf.id}`;
  expect(digests).toHaveLength(31);
  expect(digests.every((d) => d.status === "open")).toBe(true);
  const members = await sql`select m.run_id, m.digest_id, m.position from workflow_digest_members m join workflow_digests d on d.id = m.digest_id where d.lineage_id = ${wf.id}`;
  expect(members).toHaveLength(ids.length);
  expect(new Set(members.map((m) => m.run_id)).size).toBe(ids.length);
  const leaders = new Set(digests.map((d) => d.leader_run_id));
  for (const d of digests) {
    const mine = members.filter((m) => m.digest_id === d.id).map((m) => m.position).sort((a, b) => a - b);
    expect(mine).toEqual(Array.from({ length: d.event_count }, (_, i) => i));
    expect(d.event_count).toBe(d.recipient === "procs@example.com" ? 200 : 8);
  }
  for (const r of runs) {
    if (leaders.has(r.id)) expect(r.status).toBe("running");
    else expect(r.step_results[0]).toMatchObject({ status: "merged", digest_run_id: digests.find((d) => d.id === members.find((m) => m.run_id === r.id)!.digest_id)!.leader_run_id });
  }
  await sql`update workflow_runs set status = 'cancelled' where id = any(${[...leaders]}::uuid[])`;
  await sql`update workflow_digests set status = 'closed' where lineage_id = ${wf.id}`;
}, 60_000);
