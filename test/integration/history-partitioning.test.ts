// The history tables' conversion to day partitions (migrations 0860-0862) on a database of the old
// shape while accepts go on, and the partition job creating days ahead and dropping expired ones.
// A database of its own (<test db>_hist, dropped at the end), an API process serving it.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawn } from "node:child_process";
import { join } from "node:path";
import postgres from "postgres";
import { ensureDatabase, migrate } from "../../store/migrate";
import { startApiProcess, type ApiProcess } from "../support/api-process";
import { ADMIN_TOKEN } from "../support/fixtures";

const root = join(import.meta.dir, "..", "..");
const base = new URL(process.env.DATABASE_URL!);
base.pathname = `${base.pathname}_hist`;
const URL_ = base.toString();
const DAY = 86_400_000;
let db: postgres.Sql;
let api: ApiProcess | null = null;
let key = "";
let tenantId = "";
const quiet = () => {};

async function call(method: string, path: string, body?: unknown, token = key) {
  const res = await fetch(`${api!.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: (await res.json().catch(() => null)) as any };
}

async function dropDb() {
  const admin = new URL(URL_);
  admin.pathname = "/postgres";
  const a = postgres(admin.toString(), { max: 1, onnotice: quiet });
  await a.unsafe(`drop database if exists "${decodeURIComponent(new URL(URL_).pathname.slice(1))}" with (force)`);
  await a.end();
}

/** A partition pass in a process of its own on this file's database. */
async function partitionPass(opts: Record<string, unknown>): Promise<{ created: string[]; dropped: string[]; kept: { partition: string; reason: string }[] }> {
  const child = spawn(join(root, "node_modules", ".bin", "bun"), [join(root, "test/support/partition-pass-main.ts"), JSON.stringify(opts)], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: URL_, LOG_LEVEL: "warn" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout!.on("data", (c: Buffer) => (out += c.toString()));
  child.stderr!.on("data", (c: Buffer) => (out += c.toString()));
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  const m = /result (.*)/.exec(out);
  if (code !== 0 || !m) throw new Error(`partition pass failed (${code}):\n${out}`);
  return JSON.parse(m[1]!);
}

/** Accepts until `stop()`, a few at a time; every answer is kept (status and id). */
function acceptLoop(prefix: string) {
  const results: { status: number; id?: string }[] = [];
  let stopping = false;
  const run = async (w: number) => {
    for (let i = 0; !stopping; i++) {
      const r = await call("POST", "/v1/notifications", { channel: "email", to: `${prefix}${w}-${i}@example.com`, data: { subject: "s", content: "c" } });
      results.push({ status: r.status, id: r.body?.data?.id });
    }
  };
  const done = Promise.all([0, 1, 2].map(run));
  return {
    results,
    async stop() {
      stopping = true;
      await done;
    },
  };
}

const OLD = 3000;

beforeAll(async () => {
  await dropDb();
  await ensureDatabase(URL_);
  await migrate(URL_, quiet, { until: "0860" });
  db = postgres(URL_, { max: 4, onnotice: quiet });
  api = await startApiProcess({ DATABASE_URL: URL_, RATE_LIMIT_PER_MINUTE: "1000000" });
  const t = await call("POST", "/api/internal/tenants", { name: "hist", owner_email: "hist@example.com" }, ADMIN_TOKEN);
  expect(t.status).toBe(201);
  tenantId = t.body.data.id;
  const k = await call("POST", "/v1/api-keys", { key_type: "secret", label: "t", environment: "sandbox" }, t.body.data.api_key.raw_key);
  key = k.body.data.raw_key;
  // (0860 brings nms_uuid_v7_at; the old schema has not got it yet)
  await db`create function nms_uuid_v7_at(ts timestamptz) returns uuid language sql as $$
    select (lpad(to_hex(floor(extract(epoch from ts) * 1000)::bigint), 12, '0') || '7' || substr(md5(random()::text), 1, 3)
            || '8' || substr(md5(random()::text), 1, 15))::uuid $$`;
  // the old shape: OLD notifications over the last 60 days (ids of their own time, as the service
  // writes them), each with an attempt and an event, a third with an idempotency key
  await db`
    with ins as (
      insert into notifications (id, tenant_id, environment, channel, recipient, status, idempotency_key, created_at, updated_at)
      select nms_uuid_v7_at(t), ${tenantId}, 'sandbox', 'email', 'old' || g || '@example.com', 'delivered',
             case when g % 3 = 0 then 'old-' || g end, t, t
      from (select g, now() - (g * 60 / ${OLD}::float || ' days')::interval - interval '1 hour' as t from generate_series(1, ${OLD}) g) s
      returning id, created_at),
    att as (
      insert into notification_attempts (id, notification_id, tenant_id, attempt_number, status, created_at)
      select nms_uuid_v7_at(created_at), id, ${tenantId}, 1, 'success', created_at from ins)
    insert into events (id, tenant_id, environment, type, data, created_at)
    select nms_uuid_v7_at(created_at), ${tenantId}, 'sandbox', 'notification.delivered', jsonb_build_object('notification', jsonb_build_object('id', id)), created_at from ins`;
  // the steps before the conversion: the idempotency-key table and its backfill
  await migrate(URL_, quiet, { until: "0862" });
}, 120_000);

afterAll(async () => {
  await api?.stop();
  await db?.end();
  await dropDb();
});

describe("history partitioning", () => {
  test("the conversion runs while accepts go on: every old row stays and is reachable, keys still dedupe", async () => {
    const before = await db`select (select count(*) from notifications)::int as n, (select count(*) from notification_attempts)::int as a, (select count(*) from events)::int as e`;
    const indexesOf = async (t: string) =>
      (await db`select indexrelid::int as oid from pg_index where indrelid = ${t}::regclass order by 1`).map((r) => r.oid as number);
    const oldIndexes = Object.fromEntries(await Promise.all(["notifications", "notification_attempts", "events"].map(async (t) => [t, await indexesOf(t)])));
    const loop = acceptLoop("during");
    while (loop.results.length < 20) await Bun.sleep(10);
    await migrate(URL_, quiet); // 0862: prepare, validate, swap each table
    // the attach reused the old tables' indexes: none was built on the legacy partitions
    for (const t of Object.keys(oldIndexes)) expect(await indexesOf(`${t}_legacy`)).toEqual(oldIndexes[t]);
    const mid = loop.results.length;
    while (loop.results.length < mid + 20) await Bun.sleep(10);
    await loop.stop();

    expect(loop.results.filter((r) => r.status !== 201 && r.status !== 202 && r.status !== 200)).toEqual([]);
    const [kind] = await db`select relkind from pg_class where relname = 'notifications'`;
    expect(kind!.relkind).toBe("p");
    const accepted = new Set(loop.results.map((r) => r.id!));
    const [after] = await db`select (select count(*) from notifications where recipient like 'old%')::int as n,
      (select count(*) from notifications where id = any(${[...accepted]}::uuid[]))::int as acc,
      (select count(*) from notification_attempts)::int as a, (select count(*) from events where type = 'notification.delivered')::int as e`;
    expect(after).toEqual({ n: before[0]!.n, acc: accepted.size, a: before[0]!.a, e: before[0]!.e });
    // the old rows are the legacy partition's; reachable by id through the API, attempts too
    const [old] = await db`select id from notifications where recipient = 'old2999@example.com'`;
    const [where] = await db`select tableoid::regclass::text as part from notifications where id = ${old!.id}`;
    expect(where!.part).toBe("notifications_legacy");
    const g = await call("GET", `/v1/notifications/${old!.id}`);
    expect(g.status).toBe(200);
    expect(g.body.data.attempts.length).toBe(1);
    // an old key (written before the conversion) is in the key table, so the accept statement's claim
    // (store/notifications.ts: keys first, then only the rows whose key it claimed) skips a repeat;
    // the path itself: test/integration/accept-idempotency-key.test.ts on the partitioned test database
    const [oldKeyed] = await db`select id from notifications where idempotency_key = 'old-3'`;
    const [k] = await db`select notification_id from notification_idempotency_keys where tenant_id = ${tenantId} and environment = 'sandbox' and idempotency_key = 'old-3'`;
    expect(k!.notification_id).toBe(oldKeyed!.id);
    const claim = await db`insert into notification_idempotency_keys values (${tenantId}, 'sandbox', 'old-3', gen_random_uuid()) on conflict do nothing returning 1`;
    expect(claim.length).toBe(0);
    const [keys] = await db`select count(*)::int as n from notification_idempotency_keys`;
    expect(keys!.n).toBe(OLD / 3);
  }, 120_000);

  test("partitions are created ahead and dropped on expiry with accepts running; an old row goes, a young one stays", async () => {
    const [h] = await db`select legacy_bound::text as b from history_partitioned_tables where table_name = 'notifications'`;
    const boundDay = Date.parse(`${new Date(Number.parseInt(h!.b.replace(/-/g, "").slice(0, 12), 16)).toISOString().slice(0, 10)}T00:00:00Z`);
    // rows in two future days (the service writes ids of their moment): day +1 after the bound goes, day +20 stays
    const oldAt = new Date(boundDay + DAY + 3_600_000);
    const youngAt = new Date(boundDay + 20 * DAY + 3_600_000);
    const rows = await db`
      with ins as (
        insert into notifications (id, tenant_id, environment, channel, recipient, status, idempotency_key, created_at, updated_at)
        select nms_uuid_v7_at(t), ${tenantId}, 'sandbox', 'email', r, 'delivered', r, t, t
        from (values (${oldAt}::timestamptz, 'future-old'), (${youngAt}::timestamptz, 'future-young')) v(t, r)
        returning id, recipient, created_at),
      keys as (insert into notification_idempotency_keys select ${tenantId}, 'sandbox', recipient, id from ins),
      att as (insert into notification_attempts (id, notification_id, tenant_id, attempt_number, status, created_at)
              select nms_uuid_v7_at(created_at), id, ${tenantId}, 1, 'success', created_at from ins)
      select id, recipient from ins`;
    const idOf = (r: string) => rows.find((x) => x.recipient === r)!.id as string;
    // a day holding a notification of a workflow run still running (the run may wait on its outcome)
    const runAt = new Date(boundDay + 2 * DAY + 3_600_000);
    for (const t of ["notifications", "notification_attempts", "notification_engagements"]) await db`select nms_create_day_partition(${t}, ${runAt}::date)`;
    const [wf] = await db`insert into workflows (id, tenant_id, environment, lineage_id, slug, name, steps, version)
      values (gen_random_uuid(), ${tenantId}, 'sandbox', gen_random_uuid(), 'wf-run', 'wf', '[]'::jsonb, 1) returning id`;
    const [run] = await db`insert into workflow_runs (id, tenant_id, environment, workflow_id, workflow_version, workflow_slug, recipient, status)
      values (gen_random_uuid(), ${tenantId}, 'sandbox', ${wf!.id}, 1, 'wf-run', 'a@example.com', 'running') returning id`;
    const [ofRun] = await db`insert into notifications (id, tenant_id, environment, channel, recipient, status, workflow_run_id, created_at, updated_at)
      values (nms_uuid_v7_at(${runAt}), ${tenantId}, 'sandbox', 'email', 'run@example.com', 'delivered', ${run!.id}, ${runAt}, ${runAt}) returning id`;
    // the sender's work, done: nothing pending holds the old days back
    await db`update notifications set status = 'delivered' where status = 'pending'`;

    const loop = acceptLoop("expiry");
    while (loop.results.length < 10) await Bun.sleep(10);
    // 31 days after the old row's day: it is past the default 30-day window, the young one is not
    const now = boundDay + 2 * DAY + 31 * DAY;
    const pass = await partitionPass({ now: new Date(now).toISOString(), aheadDays: 3 });
    await loop.stop();

    const day = (ms: number) => new Date(ms).toISOString().slice(0, 10).replace(/-/g, "");
    for (let i = 0; i <= 3; i++) for (const t of ["notifications", "notification_attempts", "events"]) expect(pass.created).toContain(`${t}_p${day(now + i * DAY)}`);
    expect(pass.dropped).toContain(`notifications_p${day(oldAt.getTime())}`);
    // a new day of notifications keeps the table's room for HOT updates (0751, 0885); the other tables have no such setting
    const opts = await db`select relname, reloptions from pg_class where relname in (${`notifications_p${day(now)}`}, ${`notification_attempts_p${day(now)}`}) order by relname`;
    expect(opts.map((r) => [r.relname, r.reloptions])).toEqual([
      [`notification_attempts_p${day(now)}`, null],
      [`notifications_p${day(now)}`, ["fillfactor=70"]],
    ]);
    expect(pass.dropped).toContain(`notification_attempts_p${day(oldAt.getTime())}`);
    // the legacy partition holds what the accepts above wrote (pending): it stays, with its children
    expect(pass.kept).toContainEqual({ partition: "notifications_legacy", reason: "pending notifications" });
    expect(pass.dropped).not.toContain("notification_attempts_legacy");
    const runDay = `notifications_p${day(runAt.getTime())}`;
    expect(pass.kept).toContainEqual({ partition: runDay, reason: "notifications of a running workflow run" });
    expect(pass.dropped).not.toContain(`notification_attempts_p${day(runAt.getTime())}`);
    const [still] = await db`select count(*)::int as n from notifications where id = ${ofRun!.id}`;
    expect(still!.n).toBe(1);
    expect(loop.results.filter((r) => r.status >= 300)).toEqual([]);

    const [left] = await db`select
      (select count(*) from notifications where id = ${idOf("future-old")})::int as old,
      (select count(*) from notification_attempts where notification_id = ${idOf("future-old")})::int as old_attempts,
      (select count(*) from notification_idempotency_keys where notification_id = ${idOf("future-old")})::int as old_key,
      (select count(*) from notifications where id = ${idOf("future-young")})::int as young,
      (select count(*) from notification_idempotency_keys where notification_id = ${idOf("future-young")})::int as young_key,
      (select count(*) from notifications where recipient like 'old%')::int as legacy_rows`;
    expect(left).toEqual({ old: 0, old_attempts: 0, old_key: 0, young: 1, young_key: 1, legacy_rows: OLD });
    // every accept of the pass is still there
    const ids = loop.results.map((r) => r.id!);
    const [acc] = await db`select count(*)::int as n from notifications where id = any(${ids}::uuid[])`;
    expect(acc!.n).toBe(new Set(ids).size);
  }, 120_000);
});
