// The digest join's transaction (store/workflow-digests.ts) against real PostgreSQL, without actors:
// a run whose membership another job committed meanwhile gets that role back instead of an error.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { sql } from "../../store/db";
import { joinOrOpenDigest } from "../../store/workflow-digests";
import { createTenant } from "../support/fixtures";
import { sleep } from "../support/runtime-redis";
import { createWorkflow, dropTenant, trigger, wipeRedis } from "./workflow-support";

let T: Awaited<ReturnType<typeof createTenant>>;

beforeAll(async () => {
  T = await createTenant();
});

afterAll(async () => {
  await dropTenant(T.tenant.id);
  await wipeRedis(); // the triggers' jobs, never handled here
});

test("two jobs of one run joining at once (a redelivery): the second finds the first's membership, one event counted", async () => {
  const wf = await createWorkflow(T.sandboxKey, {
    slug: "dj-race",
    name: "Digest join race",
    // with an `if`, the digest is joined in the workflow-run actor (not at trigger): this join's path
    steps: [{ type: "digest", window: "1h", if: { "==": [1, 1] } }, { type: "send", channel: "email", template: "x" }],
  });
  const leader = await trigger(T.sandboxKey, "dj-race", { to: "a@example.com", data: { i: 0 } });
  const member = await trigger(T.sandboxKey, "dj-race", { to: "a@example.com", data: { i: 1 } });
  const k = { tenantId: T.tenant.id, environment: "sandbox", lineageId: wf.id, recipient: "a@example.com", key: "" };
  const join = (id: string, i: number) => joinOrOpenDigest({ k, run: { id, data: { i } }, windowMs: 3_600_000, maxEvents: null, arrivedAt: null });
  const opened = await join(leader.id, 0);
  expect(opened.role).toBe("leader");

  // hold the open digest's row so both jobs of the member wait on it, each in its own transaction
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  let locked!: () => void;
  const isLocked = new Promise<void>((r) => (locked = r));
  const holder = sql.begin(async (tx) => {
    await tx`select 1 from workflow_digests where id = ${opened.digest.id} for update`;
    locked();
    await held;
  });
  await isLocked;
  const first = join(member.id, 1);
  await sleep(50); // a later batch of the joiner: its own transaction
  const second = join(member.id, 1);
  await sleep(200); // both took their first look and wait for the row
  release();
  await holder;
  const [a, b] = await Promise.all([first, second]);
  expect(a).toMatchObject({ role: "member" });
  expect(b).toMatchObject({ role: "member" });
  expect(a.digest.id).toBe(opened.digest.id);
  expect(b.digest.id).toBe(opened.digest.id);
  const [d] = await sql`select event_count from workflow_digests where id = ${opened.digest.id}`;
  expect(d!.event_count).toBe(2);
  expect((await sql`select count(*)::int as n from workflow_digest_members where digest_id = ${opened.digest.id}`)[0]!.n).toBe(2);
});

test("a run that reached the step inside a window already closed (its trigger committed after the close) opens the next digest at that close, never inside the old window", async () => {
  const wf = await createWorkflow(T.sandboxKey, {
    slug: "dj-late",
    name: "Digest late arrival",
    steps: [{ type: "digest", window: "1h", if: { "==": [1, 1] } }, { type: "send", channel: "email", template: "x" }],
  });
  const leader = await trigger(T.sandboxKey, "dj-late", { to: "late@example.com", data: { i: 0 } });
  const late = await trigger(T.sandboxKey, "dj-late", { to: "late@example.com", data: { i: 1 } });
  const k = { tenantId: T.tenant.id, environment: "sandbox", lineageId: wf.id, recipient: "late@example.com", key: "" };
  const windowStart = new Date(Date.now() - 10_000);
  const opened = await joinOrOpenDigest({ k, run: { id: leader.id, data: { i: 0 } }, windowMs: 3_600_000, maxEvents: null, arrivedAt: windowStart });
  expect(opened.role).toBe("leader");
  // the leader closes its digest (as at its window's end), before the late run's job ever ran
  await sql`update workflow_digests set status = 'closed', closed_at = clock_timestamp() where id = ${opened.digest.id}`;
  const [first] = await sql`select closed_at from workflow_digests where id = ${opened.digest.id}`;
  // the late run reached the step 5 s into the first window: as its own digest's start that would overlap it
  const role = await joinOrOpenDigest({ k, run: { id: late.id, data: { i: 1 } }, windowMs: 3_600_000, maxEvents: null, arrivedAt: new Date(windowStart.getTime() + 5_000) });
  expect(role.role).toBe("leader");
  expect(role.digest.id).not.toBe(opened.digest.id);
  expect(role.digest.opened_at.getTime()).toBeGreaterThanOrEqual(first!.closed_at.getTime());
});
