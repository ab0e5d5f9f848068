// Broadcasts through the whole system (issue 22): a trigger to a topic answers the broadcast at once
// and the broadcast actor fans it out on real Redis and PostgreSQL. 5,000 members -> exactly 5,000
// runs (a member added after the trigger is not included; broadcast.completed is emitted); kill -9
// of the fan-out process three times during a 20,000-member broadcast -> exactly 20,000 runs; Redis
// emptied mid-way -> the repair scan restarts it, still exact; cancel mid-way stops it.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { fanOutPage, repairFanOuts } from "../../domain/broadcasts/broadcasts";
import { requeueOverdueRuns } from "../../domain/workflows/recovery";
import { workflowRunAddress } from "../../domain/workflows/workflow-run-mail";
import { getRuntime } from "../../store/runtime-handle";
import { sql } from "../../store/db";
import { call, createTenant } from "../support/fixtures";
import { sleep } from "../support/runtime-redis";
import { spawnUntilReady } from "../support/spawn-ready";
import { createWorkflow, dropTenant, wipeRedis } from "./workflow-support";

const root = join(import.meta.dir, "..", "..");
const BUN = join(root, "node_modules", ".bin", "bun");
const WORKER = join(root, "test", "support", "broadcast-worker.ts");

let T: Awaited<ReturnType<typeof createTenant>>;
let procs: Subprocess[] = [];
const key = () => T.sandboxKey;

async function spawnWorker(id: string, pageSize: number): Promise<Subprocess> {
  const proc = await spawnUntilReady([BUN, WORKER], {
    cwd: root,
    env: { ...process.env, BC_HOST_ID: id, BC_LEASE_MS: "1500", BROADCAST_PAGE_SIZE: String(pageSize), LOG_LEVEL: "error" },
    ready: `ready ${id}`,
  });
  procs.push(proc);
  return proc;
}

async function stopAll() {
  for (const p of procs) if (p.exitCode === null && !p.killed) p.kill("SIGKILL");
  await Promise.all(procs.map((p) => p.exited));
  procs = [];
}

/** A topic of `n` subscribers made through the bulk APIs (import, then members by external id). */
async function topicOf(topicKey: string, n: number) {
  expect((await call("POST", "/v1/topics", { key: key(), body: { key: topicKey, name: topicKey } })).status).toBe(201);
  for (let i = 0; i < n; i += 1000) {
    const ids = Array.from({ length: Math.min(1000, n - i) }, (_, k) => `${topicKey}-${i + k}`);
    const imp = await call("POST", "/v1/subscribers/import", { key: key(), body: { subscribers: ids.map((external_id) => ({ external_id })) } });
    expect(imp.status).toBe(200);
    const add = await call("POST", `/v1/topics/${topicKey}/subscribers`, { key: key(), body: { subscribers: ids } });
    expect(add.body.data.added).toBe(ids.length);
  }
}

const runsOf = async (broadcastId: string) =>
  (await sql`select count(*)::int as n, count(distinct subscriber_id)::int as d from workflow_runs
    where tenant_id = ${T.tenant.id} and idempotency_key like ${`bcast:${broadcastId}:%`}`)[0] as { n: number; d: number };
const broadcastOf = async (id: string) => (await call("GET", `/v1/broadcasts/${id}`, { key: key() })).body.data;

async function waitForStatus(id: string, want: string, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const b = await broadcastOf(id);
    if (b.status === want) return b;
    if (Date.now() > deadline) throw new Error(`broadcast ${id} still ${b.status} (${b.runs_created} runs)`);
    await sleep(50);
  }
}

beforeAll(async () => {
  T = await createTenant();
  await createWorkflow(key(), { slug: "news", name: "News", steps: [{ type: "send", channel: "in_app", template: "news" }] });
});

afterEach(stopAll);

// the cleanup deletes ~26,000 runs and ~25,000 subscribers with their rows: once, with a disk-bound 50-million-row
// fill beside a CI run, that took longer than the 60 s default of a hook
afterAll(async () => {
  await stopAll();
  await wipeRedis();
  await sql`delete from workflow_runs where tenant_id = ${T.tenant.id}`;
  await dropTenant(T.tenant.id);
}, 240_000);

describe("trigger to a topic", () => {
  test("202 with the broadcast exactly; 5,000 members -> exactly 5,000 runs; a member added after the trigger is not included", async () => {
    await topicOf("five-k", 5000);
    const r = await call("POST", "/v1/workflows/news/trigger", { key: key(), body: { to: { topic: "five-k" }, data: { headline: "Hi" } } });
    expect(r.status).toBe(202);
    expect(Object.keys(r.body.data).sort()).toEqual(["id", "recipients", "status", "topic", "workflow_slug"]);
    expect(r.body.data).toMatchObject({ topic: "five-k", workflow_slug: "news", status: "fanning_out", recipients: null });
    // after the trigger: not part of this broadcast
    await call("POST", "/v1/subscribers", { key: key(), body: { external_id: "late" } });
    await call("POST", "/v1/topics/five-k/subscribers", { key: key(), body: { subscribers: ["late"] } });

    await spawnWorker("bc-5k", 1000);
    const done = await waitForStatus(r.body.data.id, "completed", 120_000);
    expect(done).toMatchObject({ id: r.body.data.id, topic: "five-k", workflow_slug: "news", workflow_version: 1, recipients: 5000, runs_created: 5000 });
    expect(done.completed_at).toMatch(/Z$/);
    expect(await runsOf(r.body.data.id)).toEqual({ n: 5000, d: 5000 });
    const run = (await sql`select data, recipient, status from workflow_runs where idempotency_key like ${`bcast:${r.body.data.id}:%`} limit 1`)[0]!;
    expect(run.data).toEqual({ headline: "Hi" });
    const ev = await sql`select data from events where tenant_id = ${T.tenant.id} and type = 'broadcast.completed'`;
    expect(ev.length).toBe(1);
    expect(ev[0]!.data.broadcast).toMatchObject({ id: r.body.data.id, status: "completed", runs_created: 5000 });
  }, 240_000);

  test("422 and 404: a bad topic target, an unknown topic, an unknown workflow; 404 for an unknown broadcast", async () => {
    const bad = await call("POST", "/v1/workflows/news/trigger", { key: key(), body: { to: { topic: "" } } });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.error.details)).toContain("to.topic");
    const nt = await call("POST", "/v1/workflows/news/trigger", { key: key(), body: { to: { topic: "nope" } } });
    expect(nt.status).toBe(404);
    expect(nt.body.error.code).toBe("topic_not_found");
    expect((await call("POST", "/v1/workflows/nope/trigger", { key: key(), body: { to: { topic: "five-k" } } })).status).toBe(404);
    const nb = await call("GET", `/v1/broadcasts/${crypto.randomUUID()}`, { key: key() });
    expect(nb.status).toBe(404);
    expect(nb.body.error.code).toBe("broadcast_not_found");
  });
});

describe("durability", () => {
  test("kill -9 of the fan-out process three times during a 20,000-member broadcast: exactly 20,000 runs", async () => {
    await topicOf("twenty-k", 20_000);
    const r = await call("POST", "/v1/workflows/news/trigger", { key: key(), body: { to: { topic: "twenty-k" } } });
    expect(r.status).toBe(202);
    const id = r.body.data.id;
    let last = 0;
    for (let k = 0; k < 3; k++) {
      const p = await spawnWorker(`bc-kill-${k}`, 200);
      // let it make progress, then kill -9 it mid-way
      const deadline = Date.now() + 60_000;
      while ((await broadcastOf(id)).runs_created <= last + 600 && Date.now() < deadline) await sleep(20);
      p.kill("SIGKILL");
      await p.exited;
      const b = await broadcastOf(id);
      expect(b.status).toBe("fanning_out");
      last = b.runs_created;
    }
    await spawnWorker("bc-kill-final", 200);
    const done = await waitForStatus(id, "completed", 180_000);
    expect(done.runs_created).toBe(20_000);
    expect(await runsOf(id)).toEqual({ n: 20_000, d: 20_000 });
  }, 400_000);

  test("Redis emptied mid-way: the repair scan restarts the fan-out; still exactly one run per member", async () => {
    const r = await call("POST", "/v1/workflows/news/trigger", { key: key(), body: { to: { topic: "twenty-k" } } });
    const id = r.body.data.id;
    const p = await spawnWorker("bc-wipe", 200);
    while ((await broadcastOf(id)).runs_created < 2000) await sleep(20);
    p.kill("SIGKILL");
    await p.exited;
    await wipeRedis();
    expect(await repairFanOuts(0)).toBeGreaterThanOrEqual(1);
    await spawnWorker("bc-wipe-2", 1000);
    const done = await waitForStatus(id, "completed", 180_000);
    expect(done.runs_created).toBe(20_000);
    expect(await runsOf(id)).toEqual({ n: 20_000, d: 20_000 });
  }, 400_000);

  test("a page committed (its runs in one statement) whose XADD was lost: the reconciler's scan enqueues every run of it", async () => {
    // a tenant of its own: the scan takes the tenant's oldest overdue runs, and this file leaves many
    const U = await createTenant();
    try {
      await createWorkflow(U.sandboxKey, { slug: "news", name: "News", steps: [{ type: "send", channel: "in_app", template: "news" }] });
      expect((await call("POST", "/v1/topics", { key: U.sandboxKey, body: { key: "lost-xadd", name: "lost" } })).status).toBe(201);
      const ids = Array.from({ length: 1500 }, (_, i) => `lost-${i}`);
      for (let i = 0; i < ids.length; i += 1000) {
        const chunk = ids.slice(i, i + 1000);
        expect((await call("POST", "/v1/subscribers/import", { key: U.sandboxKey, body: { subscribers: chunk.map((external_id) => ({ external_id })) } })).status).toBe(200);
        expect((await call("POST", "/v1/topics/lost-xadd/subscribers", { key: U.sandboxKey, body: { subscribers: chunk } })).body.data.added).toBe(chunk.length);
      }
      const r = await call("POST", "/v1/workflows/news/trigger", { key: U.sandboxKey, body: { to: { topic: "lost-xadd" } } });
      const id = r.body.data.id;
      // the pages written here; then Redis loses their run messages, as a crash between COMMIT and XADD would
      while ((await fanOutPage(id, 1000)).more);
      const runs = await sql<{ id: string }[]>`select id from workflow_runs where tenant_id = ${U.tenant.id} and idempotency_key like ${`bcast:${id}:%`}`;
      expect(runs.length).toBe(1500);
      await wipeRedis();
      const runtime = getRuntime();
      const P = runtime.partitionsOf(workflowRunAddress);
      const queued = async () => {
        const out: string[] = [];
        for (let p = 0; p < P; p++) {
          for (const [, fields] of await runtime.redis.xrange(runtime.keys.stream(workflowRunAddress.name, p), "-", "+")) {
            out.push(JSON.parse(fields[fields.indexOf("m") + 1]!).runId);
          }
        }
        return out;
      };
      expect(await queued()).toEqual([]);
      const rec = await requeueOverdueRuns({ staleAfterMs: 0, tenantId: U.tenant.id });
      expect(rec.requeued).toBe(1500);
      const again = await queued();
      expect(again.length).toBe(1500);
      expect(new Set(again)).toEqual(new Set(runs.map((x) => x.id)));
    } finally {
      await sql`delete from workflow_runs where tenant_id = ${U.tenant.id}`;
      await sql`delete from broadcasts where tenant_id = ${U.tenant.id}`;
      await dropTenant(U.tenant.id);
    }
  }, 200_000);

  test("cancel mid-way stops it: runs_created stays, no run after the cancel; a second cancel is 409", async () => {
    const r = await call("POST", "/v1/workflows/news/trigger", { key: key(), body: { to: { topic: "twenty-k" } } });
    const id = r.body.data.id;
    await spawnWorker("bc-cancel", 100);
    while ((await broadcastOf(id)).runs_created < 500) await sleep(20);
    const c = await call("POST", `/v1/broadcasts/${id}/cancel`, { key: key() });
    expect(c.status).toBe(200);
    expect(c.body.data.status).toBe("cancelled");
    const at = c.body.data.runs_created;
    expect(at).toBeLessThan(20_000);
    await sleep(1500);
    const b = await broadcastOf(id);
    expect(b.status).toBe("cancelled");
    expect(b.runs_created).toBe(at);
    expect((await runsOf(id)).n).toBe(at);
    const again = await call("POST", `/v1/broadcasts/${id}/cancel`, { key: key() });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("broadcast_not_cancellable");
  }, 200_000);
});

describe("workflow.triggered of a broadcast's runs", () => {
  test("stored only where the environment has a webhook (read by webhooks alone, like notification.* events)", async () => {
    const U = await createTenant();
    const ukey = U.sandboxKey;
    try {
      await createWorkflow(ukey, { slug: "news", name: "News", steps: [{ type: "send", channel: "in_app", template: "news" }] });
      expect((await call("POST", "/v1/topics", { key: ukey, body: { key: "few", name: "Few" } })).status).toBe(201);
      const ids = Array.from({ length: 30 }, (_, k) => `few-${k}`);
      expect((await call("POST", "/v1/subscribers/import", { key: ukey, body: { subscribers: ids.map((external_id) => ({ external_id })) } })).status).toBe(200);
      expect((await call("POST", "/v1/topics/few/subscribers", { key: ukey, body: { subscribers: ids } })).body.data.added).toBe(30);
      const fanOut = async () => {
        const r = await call("POST", "/v1/workflows/news/trigger", { key: ukey, body: { to: { topic: "few" } } });
        expect(r.status).toBe(202);
        // the page by hand (no broadcast process): one page of 1,000 takes all 30, the next completes it
        while ((await fanOutPage(r.body.data.id)).more);
        const [runs] = await sql`select count(*)::int as n, array_agg(id::text) as ids from workflow_runs where idempotency_key like ${`bcast:${r.body.data.id}:%`}`;
        expect(runs!.n).toBe(30);
        const [ev] = await sql`select count(*)::int as n from events where tenant_id = ${U.tenant.id} and type = 'workflow.triggered' and data->>'run_id' = any(${runs!.ids}::text[])`;
        return ev!.n as number;
      };
      expect(await fanOut()).toBe(0);
      const w = await call("POST", "/v1/webhooks", { key: ukey, body: { url: "https://93.184.215.14/hook", events: ["workflow.triggered"] } });
      expect(w.status, w.text).toBe(201);
      expect(await fanOut()).toBe(30);
    } finally {
      await sql`delete from workflow_runs where tenant_id = ${U.tenant.id}`;
      await sql`delete from broadcasts where tenant_id = ${U.tenant.id}`;
      await dropTenant(U.tenant.id);
    }
  }, 60_000);
});
