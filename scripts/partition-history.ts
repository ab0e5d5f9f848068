// The online conversion of the history tables to day partitions for a large database (migrations
// 0860-0862 do the same at once, fine for a small one): run it before upgrading past 0862.
// Usage: DATABASE_URL=... bun scripts/partition-history.ts   (docs/operations.md#partitioning)
// Steps, each its own transaction: 0860 (functions, key table, key trigger); idempotency keys copied
// in batches by id; per table, children first: the bound CHECK added NOT VALID (a moment's lock),
// VALIDATEd (a scan under SHARE UPDATE EXCLUSIVE: reads and writes go on), then the swap (rename,
// new partitioned parent, attach the old table as the legacy partition without a scan: milliseconds).
// Each locking step waits at most LOCK_TIMEOUT_MS for its lock and retries, so it never queues
// writers behind a long transaction. 0861 and 0862 are then recorded as applied.
import postgres from "postgres";
import { migrate } from "../store/migrate";

const TABLES = ["notification_attempts", "notification_engagements", "webhook_deliveries", "events", "notifications"];
const LOCK_TIMEOUT_MS = Number(process.env.LOCK_TIMEOUT_MS ?? 500);
const KEY_BATCH = 20_000;

export interface StepTiming {
  step: string;
  table: string;
  ms: number;
  tries: number;
}

export async function convertOnline(url: string, log: (msg: string) => void = console.log): Promise<StepTiming[]> {
  const timings: StepTiming[] = [];
  await migrate(url, log, { until: "0861" });
  const db = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const applied = new Set((await db`select name from schema_migrations`).map((r) => r.name as string));
    if (!applied.has("0861_history_idempotency_backfill.sql")) {
      // keys in batches along the primary key (the trigger of 0860 records the new ones meanwhile)
      const t0 = performance.now();
      let last = "00000000-0000-0000-0000-000000000000";
      let copied = 0;
      for (;;) {
        const [r] = await db<{ last: string | null; n: number }[]>`
          with page as (select id, tenant_id, environment, idempotency_key from notifications where id > ${last} order by id limit ${KEY_BATCH}),
          ins as (
            insert into notification_idempotency_keys (tenant_id, environment, idempotency_key, notification_id)
            select tenant_id, environment, idempotency_key, id from page where idempotency_key is not null
            on conflict do nothing returning 1)
          select (select max(id::text) from page) as last, (select count(*) from ins)::int as n`;
        if (!r!.last) break;
        last = r!.last;
        copied += r!.n;
      }
      timings.push({ step: "keys", table: "notifications", ms: performance.now() - t0, tries: 1 });
      log(`idempotency keys copied: ${copied}`);
      await db`insert into schema_migrations (name) values ('0861_history_idempotency_backfill.sql') on conflict do nothing`;
    }
    // a locking step: lock_timeout, retried until it gets its lock
    const locked = async (step: string, table: string, fn: (tx: postgres.TransactionSql) => Promise<unknown>) => {
      for (let tries = 1; ; tries++) {
        const t0 = performance.now();
        try {
          await db.begin(async (tx) => {
            await tx`select set_config('lock_timeout', ${String(LOCK_TIMEOUT_MS)}, true)`;
            await fn(tx);
          });
          timings.push({ step, table, ms: performance.now() - t0, tries });
          return;
        } catch (err: any) {
          if (err?.code !== "55P03" || tries >= 100) throw err; // lock_not_available
          log(`${step} ${table}: lock not granted in ${LOCK_TIMEOUT_MS} ms, retrying`);
          await Bun.sleep(200);
        }
      }
    };
    for (const t of TABLES) {
      await locked("prepare", t, (tx) => tx`select nms_history_prepare(${t})`);
      const t0 = performance.now();
      await db`select nms_history_validate(${t})`;
      timings.push({ step: "validate", table: t, ms: performance.now() - t0, tries: 1 });
      await locked("swap", t, (tx) => tx`select nms_history_swap(${t})`);
      log(`${t}: partitioned (${timings.filter((x) => x.table === t).map((x) => `${x.step} ${x.ms.toFixed(0)} ms`).join(", ")})`);
    }
    await db`insert into schema_migrations (name) values ('0862_history_partitioned.sql') on conflict do nothing`;
  } finally {
    await db.end();
  }
  await migrate(url, log); // anything after 0862
  return timings;
}

if (import.meta.main) {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error("DATABASE_URL names the database to convert");
  const t = await convertOnline(url);
  console.log(JSON.stringify(t));
}
