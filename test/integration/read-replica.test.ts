// Read replica (issue 26 item 3), against a REAL streaming replica this file starts (pg_basebackup into a
// temporary folder, a second postgres on a free port; test/support/pg-replica.ts): list, detail and
// analytics reads are served by the replica; a caller's GET right after its own POST reads the primary
// (read your writes); lag over REPLICA_MAX_LAG_MS falls back to the primary. Replay is paused with
// pg_wal_replay_pause() to make the replica lag on purpose.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import postgres from "postgres";
import { startApiProcess, type ApiProcess } from "../support/api-process";
import { startReplicaPair, type ReplicaPair } from "../support/pg-replica";
import { ADMIN_TOKEN } from "../support/fixtures";
import { lsnValue } from "../../store/replica";

const MAX_LAG_MS = 5000;
let pair: ReplicaPair;
let api: ApiProcess;
let primary: postgres.Sql;
let replica: postgres.Sql;
const keys: Record<"prod" | "s1" | "s2", string> = { prod: "", s1: "", s2: "" };

async function req(method: string, path: string, key: string, body?: unknown) {
  const started = Date.now();
  const res = await fetch(`${api.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (process.env.REPLICA_TEST_TRACE) console.log(method, path, res.status, Date.now() - started, "ms");
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** Commits something on the primary and waits until the replica replayed it: the replica is current. */
async function caughtUp() {
  await primary`select txid_current()`;
  const [p] = await primary`select pg_current_wal_lsn()::text as lsn`;
  const deadline = Date.now() + 15_000;
  for (;;) {
    const [r] = await replica`select pg_last_wal_replay_lsn()::text as lsn`;
    if (lsnValue(r!.lsn) >= lsnValue(p!.lsn)) return;
    if (Date.now() > deadline) throw new Error("the replica did not catch up");
    await Bun.sleep(50);
  }
}

beforeAll(async () => {
  pair = await startReplicaPair(process.env.DATABASE_URL!);
  console.log(`read-replica test: ${pair.reason}`);
  primary = postgres(pair.primaryUrl, { max: 1, onnotice: () => {} });
  replica = postgres(pair.replicaUrl, { max: 1, onnotice: () => {} });
  api = await startApiProcess({ DATABASE_URL: pair.primaryUrl, DATABASE_READ_URL: pair.replicaUrl, REPLICA_MAX_LAG_MS: String(MAX_LAG_MS) });
  const t = await fetch(`${api.url}/api/internal/tenants`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "replica-test" }),
  });
  expect(t.status).toBe(201);
  keys.prod = (await t.json()).data.api_key.raw_key;
  for (const k of ["s1", "s2"] as const) {
    const r = await req("POST", "/v1/api-keys", keys.prod, { environment: "sandbox", label: k });
    expect(r.status).toBe(201);
    keys[k] = r.body.data.raw_key;
  }
  // warm the accept path before the timed steps: a fresh API process's first accept is slow on this loaded machine
  const warm = await req("POST", "/v1/notifications", keys.s2, { channel: "email", to: "warm@example.com", data: { subject: "w", content: "w" } });
  expect(warm.status).toBe(202);
}, 120_000);

afterAll(async () => {
  if (replica) await replica`select pg_wal_replay_resume()`.catch(() => {});
  await api?.stop();
  await primary?.end();
  await replica?.end();
  await pair?.stop();
});

describe("DATABASE_READ_URL", () => {
  test("the replica is a real standby streaming from the primary", async () => {
    const [r] = await replica`select pg_is_in_recovery() as standby, (select status from pg_stat_wal_receiver) as receiver`;
    expect(r).toEqual({ standby: true, receiver: "streaming" });
    const [p] = await primary`select count(*)::int as n from pg_stat_replication where state = 'streaming'`;
    expect(p!.n).toBeGreaterThanOrEqual(1);
  });

  test("paused replay: reads are served by the replica, the writer reads its own write on the primary, lag over the bound falls back", async () => {
    await caughtUp();
    await replica`select pg_wal_replay_pause()`;
    try {
      const posted = await req("POST", "/v1/notifications", keys.s1, { channel: "email", to: "ana@example.com", data: { subject: "Hi", content: "Hello" } });
      expect(posted.status).toBe(202);
      const id = posted.body.data.id;
      expect((await primary`select 1 from notifications where id = ${id}`).length).toBe(1);
      expect((await replica`select 1 from notifications where id = ${id}`).length).toBe(0);

      // the writer's GET right after its POST: the primary (the replica has not replayed it)
      const own = await req("GET", `/v1/notifications/${id}`, keys.s1);
      expect(own.status).toBe(200);
      expect(own.body.data.id).toBe(id);
      const ownList = await req("GET", "/v1/notifications", keys.s1);
      expect(ownList.body.data.map((n: { id: string }) => n.id)).toContain(id);
      const ownOverview = await req("GET", "/v1/analytics/overview", keys.s1);
      expect(ownOverview.body.data.total).toBe(2); // the warm-up and this one

      // another key of the same tenant and environment, lag still under the bound: the replica answers
      const other = await req("GET", `/v1/notifications/${id}`, keys.s2);
      expect(other.status).toBe(404);
      const otherList = await req("GET", "/v1/notifications", keys.s2);
      expect(otherList.status).toBe(200);
      expect(otherList.body.data.map((n: { id: string }) => n.id)).not.toContain(id);
      const otherOverview = await req("GET", "/v1/analytics/overview", keys.s2);
      expect(otherOverview.body.data.total).toBe(1); // the warm-up only

      // once the replica lags more than REPLICA_MAX_LAG_MS, every read goes to the primary
      await Bun.sleep(MAX_LAG_MS + 500);
      const [lag] = await replica`select extract(epoch from now() - pg_last_xact_replay_timestamp()) * 1000 as ms`;
      expect(Number(lag!.ms)).toBeGreaterThan(MAX_LAG_MS);
      const fallback = await req("GET", `/v1/notifications/${id}`, keys.s2);
      expect(fallback.status).toBe(200);
      expect((await req("GET", "/v1/analytics/overview", keys.s2)).body.data.total).toBe(2);

      // the metric tells the three apart
      const metrics = await (await fetch(`${api.url}/metrics`)).text();
      const count = (labels: string) => Number(new RegExp(`^nms_pg_replica_reads_total\\{${labels}\\} (\\d+)`, "m").exec(metrics)?.[1] ?? 0);
      expect(count('target="replica",reason="replica"')).toBeGreaterThanOrEqual(3);
      expect(count('target="primary",reason="own write not replayed"')).toBeGreaterThanOrEqual(3);
      expect(count('target="primary",reason="replica lag"')).toBeGreaterThanOrEqual(2);
    } finally {
      await replica`select pg_wal_replay_resume()`;
    }
  }, 60_000);

  test("replay resumed: the replica has the row and serves it again to anyone", async () => {
    await caughtUp();
    const list = await req("GET", "/v1/notifications", keys.s2);
    expect(list.status).toBe(200);
    expect(list.body.data.length).toBe(2);
    expect((await replica`select count(*)::int as n from notifications`)[0]!.n).toBeGreaterThanOrEqual(1);
    // the feed ran on the replica's generic-plan pool (store/replica.ts: its connections set plan_cache_mode =
    // force_generic_plan with this application_name), as it runs on the primary's: pg_stat_activity keeps an idle
    // connection's last statement
    const ran = await replica<{ query: string }[]>`select query from pg_stat_activity where application_name like 'nms-%-replica-generic'`;
    expect(ran.some((r) => r.query.includes("from notifications") && r.query.includes("order by"))).toBe(true);
  });
});
