// Digest durability (issue 21): PostgreSQL holds each digest, its leader and its members, so Redis
// emptied during an open window still yields exactly one digest, and a kill -9 of a workflow-run
// process during 2,000 digesting triggers leaves every trigger in exactly one digest.
import { afterAll, afterEach, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { startReconciler } from "../../jobs/reconciler";
import { sql } from "../../store/db";
import { call, createTenant } from "../support/fixtures";
import { waitFor } from "../support/runtime-redis";
import { spawnUntilReady } from "../support/spawn-ready";
import { createWorkflow, dropTenant, startWorkflowHost, trigger, useTimeScale, wipeRedis } from "./workflow-support";

const root = join(import.meta.dir, "..", "..");
const BUN = join(root, "node_modules", ".bin", "bun");
const WORKER = join(root, "test", "support", "workflow-run-worker.ts");

let T: Awaited<ReturnType<typeof createTenant>>;
let procs: Subprocess[] = [];
let stops: (() => Promise<void>)[] = [];
let restoreTimeScale = () => {};

const runsOf = async (ids: string[]) => await sql`select id, status, recipient, current_step, step_state, step_results from workflow_runs where id = any(${ids}::uuid[])`;
const allDone = (ids: string[]) => async () => (await runsOf(ids)).every((r) => r.status !== "running");

beforeAll(async () => {
  T = await createTenant();
  const r = await call("POST", "/v1/templates", {
    key: T.sandboxKey,
    body: { slug: "dr-email", name: "D", channel: "email", content: "{{ digest.count }} updates", variants: { subject: "Digest" }, status: "active" },
  });
  expect(r.status).toBe(201);
});

afterEach(async () => {
  for (const p of procs) if (p.exitCode === null && !p.killed) p.kill("SIGKILL");
  await Promise.all(procs.map((p) => p.exited));
  procs = [];
  for (const stop of stops.reverse()) await stop();
  stops = [];
  await wipeRedis();
});

afterAll(async () => {
  restoreTimeScale();
  await dropTenant(T.tenant.id);
});

/**
 * Every run is in exactly one digest: leaders' run_ids partition the runs, each merged run names the
 * leader whose digest holds it, and PostgreSQL's membership rows agree.
 */
async function expectEachInExactlyOneDigest(ids: string[]) {
  const runs = await runsOf(ids);
  expect(runs.filter((r) => r.status !== "completed").map((r) => [r.id, r.status, r.step_results])).toEqual([]);
  const leaders = runs.filter((r) => r.step_results[0].status === "completed");
  const merged = runs.filter((r) => r.step_results[0].status === "merged");
  expect(leaders.length + merged.length).toBe(ids.length);
  const holder = new Map<string, string>();
  for (const l of leaders) {
    expect(l.step_results[0].event_count).toBe(l.step_results[0].run_ids.length);
    expect(l.step_results[0].run_ids[0]).toBe(l.id);
    for (const id of l.step_results[0].run_ids) {
      expect(holder.has(id)).toBe(false); // in two digests
      holder.set(id, l.id);
    }
  }
  expect(holder.size).toBe(ids.length); // none in none
  for (const m of merged) expect(holder.get(m.id)).toBe(m.step_results[0].digest_run_id);
  const members = await sql`select run_id, digest_id from workflow_digest_members where run_id = any(${ids}::uuid[])`;
  expect(members).toHaveLength(ids.length);
  const digests = await sql`select id, leader_run_id, status, event_count from workflow_digests where leader_run_id = any(${leaders.map((l) => l.id)}::uuid[])`;
  expect(digests).toHaveLength(leaders.length);
  expect(digests.every((d) => d.status === "closed")).toBe(true);
  // each leader sent exactly one notification
  const notes = await sql`select idempotency_key from notifications where tenant_id = ${T.tenant.id} and split_part(idempotency_key, ':', 2) = any(${ids})`;
  expect(notes.map((n) => n.idempotency_key).sort()).toEqual(leaders.map((l) => `wfrun:${l.id}:step:1`).sort());
  return { leaders, merged };
}

test("Redis emptied during an open window: the late triggers join the digest in PostgreSQL at trigger, the filled digest's leader is re-enqueued; exactly one digest", async () => {
  await createWorkflow(T.sandboxKey, {
    slug: "dr-wipe",
    name: "Digest survives Redis",
    // 1d lasts 86 s here, longer than any load makes the wipe and the restart: the window is still open
    // when the late triggers join, and the 15th closes the digest (max_events)
    steps: [{ type: "digest", window: "1d", max_events: 15 }, { type: "send", channel: "email", template: "dr-email" }],
  });
  const to = "wipe@example.com";
  const host = await startWorkflowHost({ timeScale: 0.001 });
  stops.push(() => host.stop());
  const ids: string[] = [];
  for (let i = 0; i < 10; i++) ids.push((await trigger(T.sandboxKey, "dr-wipe", { to, data: { i } })).id);
  expect(await waitFor(async () => (await sql`select count(*)::int as n from workflow_digest_members where run_id = any(${ids}::uuid[])`)[0].n === 10, 10_000, 20)).toBe(true);
  // Redis restarts empty: the leader's window timer is gone, and so are the jobs of triggers made now
  await host.stop();
  stops = [];
  await wipeRedis();
  for (let i = 10; i < 15; i++) ids.push((await trigger(T.sandboxKey, "dr-wipe", { to, data: { i } })).id);
  // joined at trigger, without Redis: merged already; the 15th filled the digest and made its leader due now
  expect((await runsOf(ids.slice(10))).map((r) => r.status)).toEqual(["completed", "completed", "completed", "completed", "completed"]);
  const [due] = await sql`select next_due_at <= now() as due from workflow_runs where id = ${ids[0]!}`;
  expect(due!.due).toBe(true);
  await wipeRedis(); // the leader's wake-up is lost too: the reconciler finds it due
  const second = await startWorkflowHost({ timeScale: 0.001 });
  stops.push(() => second.stop());
  // the reconciler (every 50 ms, overdue at once) re-enqueues the leader from PostgreSQL; it closes the full digest
  const reconciler = startReconciler({ everyMs: 50, staleAfterMs: 0, tenantId: T.tenant.id });
  stops.push(() => reconciler.stop());
  expect(await waitFor(allDone(ids), 30_000, 100)).toBe(true);
  const { leaders } = await expectEachInExactlyOneDigest(ids);
  expect(leaders).toHaveLength(1);
  expect(leaders[0].step_results[0].event_count).toBe(15);
}, 60_000);

async function spawnWorker(id: string): Promise<Subprocess> {
  const proc = await spawnUntilReady([BUN, WORKER], {
    cwd: root,
    env: { ...process.env, WF_HOST_ID: id, WF_TIME_SCALE: "0.001", WF_LEASE_MS: "1500", LOG_LEVEL: "error" },
    ready: `ready ${id}`,
  });
  procs.push(proc);
  return proc;
}

test("kill -9 of a workflow-run process during 2,000 digesting triggers (two processes; half joined at trigger, half by the actor): every trigger in exactly one digest", async () => {
  await createWorkflow(T.sandboxKey, {
    slug: "dr-kill",
    name: "Digest under kill -9",
    // 10m lasts 600 ms here: each recipient's triggers roll over many windows while the victim dies
    steps: [{ type: "digest", window: "10m" }, { type: "send", channel: "email", template: "dr-email" }],
  });
  // the same digest behind an always-true `if`: joined in the workflow-run processes, not at trigger
  await createWorkflow(T.sandboxKey, {
    slug: "dr-kill-if",
    name: "Digest under kill -9, joined by the actor",
    steps: [{ type: "digest", window: "10m", if: { "==": [1, 1] } }, { type: "send", channel: "email", template: "dr-email" }],
  });
  restoreTimeScale = useTimeScale(0.001); // the triggers here open windows the workers (TIME_SCALE 0.001) close
  const reconciler = startReconciler({ everyMs: 100, staleAfterMs: 300, tenantId: T.tenant.id });
  stops.push(() => reconciler.stop());
  const victim = await spawnWorker("dg-a");
  await spawnWorker("dg-b");
  const ids: string[] = [];
  let killed = false;
  await Promise.all(
    Array.from({ length: 8 }, async (_, lane) => {
      for (let i = lane; i < 2000; i += 8) {
        ids.push((await trigger(T.sandboxKey, i % 2 ? "dr-kill-if" : "dr-kill", { to: `k${i % 20}@example.com`, data: { i } })).id);
        if (!killed && ids.length >= 600) {
          killed = true;
          victim.kill("SIGKILL");
        }
      }
    }),
  );
  await victim.exited;
  expect(await waitFor(allDone(ids), 120_000, 250)).toBe(true);
  const { leaders, merged } = await expectEachInExactlyOneDigest(ids);
  expect(merged.length).toBeGreaterThan(0);
  expect(leaders.length).toBeGreaterThanOrEqual(20);
}, 240_000);
