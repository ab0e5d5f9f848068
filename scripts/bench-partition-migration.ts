// bench:partition-migration (issue 26): fills the history tables in their old, unpartitioned shape,
// then converts them online (scripts/partition-history.ts) while accepts go on, and prints the
// longest accept stall and each locking step's time. It owns BENCH_DATABASE_URL: the database is
// dropped and rebuilt to the schema before 0860 first (it refuses a name not starting with nms_bench).
// Usage: npm run bench:partition-migration -- [--rows 1000000]  (notifications; + 1.2 attempts and 2 events each)
export {};
process.env.REDIS_PREFIX ??= `benchpm${process.pid}`;
process.env.RATE_LIMIT_PER_MINUTE ??= "1000000";
process.env.LOG_LEVEL ??= "warn";
import postgres from "postgres";
import { ensureDatabase, migrate } from "../store/migrate";

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ""), process.argv[i + 1] ?? "");
const ROWS = Number(args.get("rows") ?? 1_000_000);
const url = process.env.DATABASE_URL!;
const dbName = decodeURIComponent(new URL(url).pathname.slice(1));
if (!dbName.startsWith("nms_bench")) throw new Error(`bench:partition-migration drops its database: ${dbName} is not a bench database`);
const load = async () => (await Bun.$`uptime`.text()).trim().replace(/.*load average: /, "");
const quiet = () => {};

// a fresh database in the old shape
{
  const admin = new URL(url);
  admin.pathname = "/postgres";
  const a = postgres(admin.toString(), { max: 1, onnotice: quiet });
  await a.unsafe(`drop database if exists "${dbName}" with (force)`);
  await a.end();
  await ensureDatabase(url);
  await migrate(url, quiet, { until: "0860" });
}
const db = postgres(url, { max: 2, onnotice: quiet });
const v7 = `(lpad(to_hex(floor(extract(epoch from t) * 1000)::bigint), 12, '0') || '7' || substr(md5(random()::text), 1, 3) || '8' || substr(md5(random()::text), 1, 15))::uuid`;
const { buildApp } = await import("../http/app");
const { createTenant } = await import("../store/tenants");
const { insertApiKey } = await import("../store/api-keys");
const { sql } = await import("../store/db");
const { redis } = await import("../store/redis");
const { deletePrefix } = await import("./bench-load");
const { convertOnline } = await import("./partition-history");
const { tenant } = await createTenant("bench-partition-migration");
const key = (await insertApiKey(sql, { tenantId: tenant.id, environment: "sandbox", keyType: "secret", name: "bench" })).raw;

console.log(`bench:partition-migration: ${ROWS} notifications (with attempts and events) in the old shape, then the online conversion under accepts`);
const f0 = performance.now();
for (let done = 0; done < ROWS; done += 50_000) {
  const n = Math.min(50_000, ROWS - done);
  await db.unsafe(`
    with ins as (
      insert into notifications (id, tenant_id, environment, channel, recipient, status, attempt_count, idempotency_key, created_at, updated_at)
      select ${v7}, '${tenant.id}', 'sandbox', 'email', 'h' || g || '@example.com', 'delivered', 1, case when g % 5 = 0 then 'k' || g end, t, t
      from (select g, now() - random() * interval '60 days' as t from generate_series(${done + 1}, ${done + n}) g) s
      returning id, created_at as t),
    att as (
      insert into notification_attempts (id, notification_id, tenant_id, attempt_number, status, created_at)
      select ${v7}, id, '${tenant.id}', a, 'success', t from ins, generate_series(1, 2) a where a = 1 or random() < 0.2)
    insert into events (id, tenant_id, environment, type, data, created_at)
    select ${v7}, '${tenant.id}', 'sandbox', e, jsonb_build_object('notification', jsonb_build_object('id', id)), t
    from ins, unnest(array['notification.created', 'notification.delivered']) e`);
}
await db`analyze`;
const [counts] = await db`select (select count(*) from notifications)::int as n, (select count(*) from notification_attempts)::int as a, (select count(*) from events)::int as e`;
const total = counts!.n + counts!.a + counts!.e;
console.log(`filled ${total} rows (${counts!.n} notifications, ${counts!.a} attempts, ${counts!.e} events) in ${((performance.now() - f0) / 1000).toFixed(0)} s (load ${await load()})`);
// the key table and its trigger (0860) are what the accept path of this code needs
await migrate(url, quiet, { until: "0861" });

const app = buildApp();
const lat: { at: number; ms: number }[] = [];
let stop = false;
const accepts = Promise.all(
  [0, 1, 2, 3].map(async (w) => {
    for (let i = 0; !stop; i++) {
      const t0 = performance.now();
      const res = await app.handle(
        new Request("http://localhost/v1/notifications", {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify({ channel: "email", to: `m${w}-${i}@example.com`, data: { subject: "s", content: "c" } }),
        }),
      );
      await res.text();
      if (res.status >= 300) throw new Error(`accept answered ${res.status}`);
      lat.push({ at: t0, ms: performance.now() - t0 });
    }
  }),
);
while (lat.length < 200) await Bun.sleep(50);
const before = lat.map((l) => l.ms).sort((a, b) => a - b);
const c0 = performance.now();
const timings = await convertOnline(url, quiet);
const convertMs = performance.now() - c0;
await Bun.sleep(3000);
stop = true;
await accepts;

const during = lat.filter((l) => l.at >= c0 && l.at <= c0 + convertMs).map((l) => l.ms).sort((a, b) => a - b);
const q = (xs: number[], p: number) => (xs.length ? xs[Math.min(xs.length - 1, Math.floor(p * xs.length))]! : 0);
for (const t of timings) console.log(`  ${t.step} ${t.table}: ${t.ms.toFixed(0)} ms${t.tries > 1 ? ` (${t.tries} tries)` : ""}`);
const [after] = await db`select (select count(*) from notifications)::int as n, (select relkind from pg_class where relname = 'notifications')::text as kind`;
const lockMs = Math.max(...timings.filter((t) => t.step === "prepare" || t.step === "swap").map((t) => t.ms));
console.log(
  `accepts before: ${before.length}, p99 ${q(before, 0.99).toFixed(1)} ms; during the conversion (${(convertMs / 1000).toFixed(1)} s): ${during.length}, ` +
    `p50 ${q(during, 0.5).toFixed(1)} ms, p99 ${q(during, 0.99).toFixed(1)} ms, max ${q(during, 1).toFixed(1)} ms; notifications now ${after!.n} rows (relkind ${after!.kind}) (load ${await load()})`,
);
console.log(`partition migration: ${total} rows, longest lock step ${lockMs.toFixed(0)} ms, longest accept ${q(during, 1).toFixed(0)} ms (p99 before ${q(before, 0.99).toFixed(0)} ms)`);
await deletePrefix(redis as any, process.env.REDIS_PREFIX!);
await db.end();
await sql.end({ timeout: 5 });
process.exit(0);
