// Durability of workflow runs (DESIGN.md 3): PostgreSQL holds each run's state and next due time, so
// runs survive Redis losing every stream and timer (the reconciler re-enqueues them once overdue) and
// a kill -9 of a workflow-run process (another host claims its work; keyed side effects happen once).
import { afterAll, afterEach, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { startReconciler } from "../../jobs/reconciler";
import { requeueOverdueRuns } from "../../domain/workflows/recovery";
import { sql } from "../../store/db";
import { call, createTenant } from "../support/fixtures";
import { sleep, waitFor } from "../support/runtime-redis";
import { spawnUntilReady } from "../support/spawn-ready";
import { createWorkflow, dropTenant, startWorkflowHost, trigger, wipeRedis } from "./workflow-support";

const root = join(import.meta.dir, "..", "..");
const BUN = join(root, "node_modules", ".bin", "bun");
const WORKER = join(root, "test", "support", "workflow-run-worker.ts");

let T: Awaited<ReturnType<typeof createTenant>>;
let procs: Subprocess[] = [];
let stops: (() => Promise<void>)[] = [];

async function template(body: Record<string, unknown>) {
  const r = await call("POST", "/v1/templates", { key: T.sandboxKey, body });
  expect(r.status).toBe(201);
}

const runsOf = async (ids: string[]) => await sql`select id, status, current_step, step_state from workflow_runs where id = any(${ids}::uuid[])`;
const allDone = (ids: string[]) => async () => (await runsOf(ids)).every((r) => r.status !== "running");

beforeAll(async () => {
  T = await createTenant();
  await template({ slug: "rec-sms", name: "S", channel: "sms", content: "Code {{ code }}" });
  await template({ slug: "rec-email", name: "E", channel: "email", content: "Hi {{ code }}", variants: { subject: "Hi" } });
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
  await dropTenant(T.tenant.id);
});

test("Redis emptied while runs wait in delays (and one run's first job is lost): every run still completes", async () => {
  await createWorkflow(T.sandboxKey, {
    slug: "survive",
    name: "Survive",
    // 1h lasts 3.6 s: every run must still be in its delay when the last one reaches its own
    steps: [{ type: "send", channel: "sms", template: "rec-sms" }, { type: "delay", duration: "1h" }, { type: "send", channel: "sms", template: "rec-sms" }],
  });
  // triggered before a host runs, so the runs start together instead of one trigger's time apart
  const ids: string[] = [];
  for (let i = 0; i < 20; i++) ids.push((await trigger(T.sandboxKey, "survive", { to: `+55119123410${String(i).padStart(2, "0")}`, data: { code: i } })).id);
  const first = await startWorkflowHost({ timeScale: 0.001 });
  stops.push(() => first.stop()); // stopped below; also when an expectation fails before that
  expect(await waitFor(async () => (await runsOf(ids)).every((r) => r.step_state?.kind === "delay"), 10_000)).toBe(true);
  await first.stop();
  // a run triggered now has its first job in Redis only; then Redis restarts without persistence
  const late = await trigger(T.sandboxKey, "survive", { to: "+5511912341099", data: { code: "late" } });
  ids.push(late.id);
  await wipeRedis();

  const second = await startWorkflowHost({ timeScale: 0.001 });
  stops.push(() => second.stop());
  const latestDue = Math.max(...(await runsOf(ids)).filter((r) => r.step_state).map((r) => Date.parse(r.step_state.due_at)));
  await sleep(Math.max(0, latestDue - Date.now()) + 300);
  // past their due time nothing resumes them: their timers and the late run's job are gone
  const stuck = await runsOf(ids);
  expect(stuck.filter((r) => r.status === "running")).toHaveLength(21);
  expect(stuck.find((r) => r.id === late.id)!.current_step).toBe(0);

  // the reconciler's scan (here every 50 ms, overdue at once) re-enqueues them from PostgreSQL
  const reconciler = startReconciler({ everyMs: 50, staleAfterMs: 0, tenantId: T.tenant.id });
  stops.push(() => reconciler.stop());
  expect(await waitFor(allDone(ids), 15_000)).toBe(true);
  const done = await runsOf(ids);
  expect(done.map((r) => r.status)).toEqual(Array(21).fill("completed"));
  const counts = await sql`select split_part(idempotency_key, ':', 2) as run_id, count(*)::int as n, count(distinct idempotency_key)::int as keys
    from notifications where tenant_id = ${T.tenant.id} and split_part(idempotency_key, ':', 2) = any(${ids}) group by 1`;
  expect(counts).toHaveLength(21);
  expect(counts.every((c) => c.n === 2 && c.keys === 2)).toBe(true);
  // nothing overdue is left for a later scan
  expect((await requeueOverdueRuns({ staleAfterMs: 0, tenantId: T.tenant.id })).requeued).toBe(0);
}, 30_000);

async function spawnWorker(id: string): Promise<Subprocess> {
  const proc = await spawnUntilReady([BUN, WORKER], {
    cwd: root,
    // FALLBACK_WAIT stays far above the reconciler (production: 10 min against ~75 s): a notification
    // whose XADD died with the process is re-enqueued well before the bound (18 s here; 3.6 s was
    // passed by sandbox SMSs still pending on a loaded machine, failing their runs). A wait ends as
    // soon as its notification's outcome wakes the run, so the bound costs nothing when all is well.
    env: { ...process.env, WF_HOST_ID: id, WF_TIME_SCALE: "0.001", WF_LEASE_MS: "1500", FALLBACK_WAIT: "300m", LOG_LEVEL: "error" },
    ready: `ready ${id}`,
  });
  procs.push(proc);
  return proc;
}

test("kill -9 of a workflow-run process during 200 concurrent runs: every run completes, one notification per (run, step, channel)", async () => {
  // even subscribers' email is delivered (the fallback skips); odd ones' fails (the fallback sends an SMS)
  const subscribers = Array.from({ length: 200 }, (_, i) => ({
    external_id: `k9-${i}-${crypto.randomUUID().slice(0, 6)}`,
    email: i % 2 ? `fail-k9-${i}@example.com` : `k9-${i}@example.com`,
    phone: `+55119${String(20000000 + i)}`,
  }));
  const imp = await call("POST", "/v1/subscribers/import", { key: T.sandboxKey, body: { subscribers } });
  expect(imp.status).toBe(200);
  await createWorkflow(T.sandboxKey, {
    slug: "crash",
    name: "Crash",
    steps: [{ type: "send", channel: "email", template: "rec-email" }, { type: "delay", duration: "5m" }, { type: "fallback", channels: ["sms"], template: "rec-sms" }],
  });
  const sender = await startWorkflowHost({ actors: "sender", timeScale: 0.001 });
  stops.push(() => sender.stop());
  // the reconciler, as in production: notifications committed by the killed process whose XADD it
  // never made are re-enqueued (here after 300 ms instead of 60 s)
  const reconciler = startReconciler({ everyMs: 100, staleAfterMs: 300, tenantId: T.tenant.id });
  stops.push(() => reconciler.stop());
  const victim = await spawnWorker("wf-a");
  await spawnWorker("wf-b");

  const ids: string[] = [];
  await Promise.all(
    Array.from({ length: 4 }, async (_, lane) => {
      for (let i = lane; i < 200; i += 4) ids.push((await trigger(T.sandboxKey, "crash", { to: subscribers[i]!.external_id, data: { code: i } })).id);
    }),
  );
  // kill -9 while runs are between steps, in their delays and in their fallbacks
  await waitFor(async () => (await runsOf(ids)).some((r) => r.current_step > 0), 10_000, 10);
  victim.kill("SIGKILL");
  await victim.exited;
  const atKill = await runsOf(ids);
  expect(atKill.filter((r) => r.status === "running").length).toBeGreaterThan(0);

  expect(await waitFor(allDone(ids), 80_000, 100)).toBe(true); // ~10 s quiet; far longer under load
  const done = await sql`select id, status, recipient, step_results from workflow_runs where id = any(${ids}::uuid[])`;
  expect(done.filter((r) => r.status !== "completed")).toEqual([]);
  const notes = await sql`select id, split_part(idempotency_key, ':', 2) as run_id, workflow_run_id, idempotency_key, status, created_at, delivered_at
    from notifications where tenant_id = ${T.tenant.id} and split_part(idempotency_key, ':', 2) = any(${ids})`;
  const keys = notes.map((n) => n.idempotency_key);
  expect(new Set(keys).size).toBe(keys.length); // one notification per (run, step, channel)
  const odd = new Set(subscribers.filter((_, i) => i % 2).map((s) => s.external_id));
  for (const run of done) {
    const mine = notes.filter((n) => n.run_id === run.id);
    const sms = mine.find((n) => n.idempotency_key === `wfrun:${run.id}:step:2:ch:sms`);
    expect(mine.every((n) => n.workflow_run_id === run.id)).toBe(true);
    expect(mine.map((n) => n.idempotency_key).sort()).toEqual([`wfrun:${run.id}:step:0`, ...(sms ? [sms.idempotency_key] : [])].sort());
    const fallback = run.step_results[2];
    // an odd subscriber's email fails, so the fallback sends; an even one's is delivered, so it skips,
    // unless its email was created by the killed process between COMMIT and XADD and was still
    // pending when the fallback looked (the wait or the reconciler's requeue came too late)
    if (odd.has(run.recipient)) expect(sms).toBeDefined();
    if (sms) expect(fallback).toMatchObject({ status: "sent", channel: "sms", notification_id: sms.id });
    else expect(fallback).toEqual({ type: "fallback", step: 2, status: "skipped", reason: "previous_step_delivered" });
    if (sms && !odd.has(run.recipient)) {
      // a delivered email was not delivered yet when the fallback gave up on it
      const email = mine.find((n) => n.idempotency_key === `wfrun:${run.id}:step:0`)!;
      if (email.status === "delivered") expect(email.delivered_at.getTime()).toBeGreaterThan(sms.created_at.getTime() - 1000);
    }
  }
  const fallbacks = done.filter((r) => r.step_results[2].status === "sent").length;
  expect(fallbacks).toBeGreaterThanOrEqual(100);
}, 120_000);
