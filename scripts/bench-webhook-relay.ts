// Cost of the webhook relay and of the dispatcher's record batch, in isolation (docs/webhooks.md
// "Durability"): full outbox batches through relayOnce (SQL and XADD), then 500-record batches
// through writeAttemptRecords, timed per batch; the receivers and the HTTP calls are left out.
//
// Usage: bun scripts/bench-webhook-relay.ts [--rounds 20] [--batch 1000]
// Bounded (rounds x batch rows); removes its tenant, rows and Redis keys.
export {}; // a module: top-level await, and the imports below come after REDIS_PREFIX is set
const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ""), process.argv[i + 1] ?? "");
const ROUNDS = Number(args.get("rounds") ?? 20);
const BATCH = Number(args.get("batch") ?? 1000);
const prefix = `benchrelay${Math.random().toString(36).slice(2, 8)}`;
process.env.REDIS_PREFIX = prefix;

const { sql } = await import("../store/db");
const { redis } = await import("../store/redis");
const { newId } = await import("../store/ids");
const { createTenant } = await import("../store/tenants");
const { relayOnce } = await import("../domain/webhooks/relay");
const { writeAttemptRecords } = await import("../store/webhook-deliveries");
const { getRuntime } = await import("../store/runtime-handle");
const { removeBenchData } = await import("./bench-load");

const { tenant } = await createTenant(`bench-webhook-relay-${prefix}`);
// no webhook rows: the relay and the record batch never read them (health updates find nothing)
const webhooks = Array.from({ length: 10 }, () => newId());
const policy = { afterMs: 5 * 86_400_000, reason: "bench" };

const ms = (t0: number) => performance.now() - t0;
const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.floor(s.length * p))]!;
  return `median ${at(0.5).toFixed(2)} ms, p90 ${at(0.9).toFixed(2)} ms`;
};

const relay: number[] = [];
const record: number[] = [];
const idle: number[] = [];
try {
  for (let r = 0; r < ROUNDS; r++) {
    const rows = Array.from({ length: BATCH }, (_, i) => ({ webhook_id: webhooks[i % webhooks.length]!, event_id: newId() }));
    await sql`insert into webhook_outbox (webhook_id, event_id)
      select webhook_id, event_id from jsonb_to_recordset(${JSON.stringify(rows)}::text::jsonb) as v(webhook_id uuid, event_id uuid)`;
    let t0 = performance.now();
    const moved = await relayOnce({ limit: BATCH });
    relay.push(ms(t0));
    if (moved !== BATCH) throw new Error(`relayed ${moved} of ${BATCH}`);
    t0 = performance.now();
    await relayOnce({ limit: BATCH });
    idle.push(ms(t0));
    // what the dispatcher writes once the receivers answered: one transaction per 500 outcomes
    for (let start = 0; start < BATCH; start += 500) {
      const records = rows.slice(start, start + 500).map((x) => ({
        id: newId(),
        webhookId: x.webhook_id,
        tenantId: tenant.id,
        eventId: x.event_id,
        eventType: "notification.delivered",
        attempt: 1,
        kind: "auto" as const,
        status: "success" as const,
        responseStatus: 200,
        responseBody: "ok",
        durationMs: 3,
        error: null,
        nextRetryAt: null,
      }));
      t0 = performance.now();
      await sql.begin((tx) => writeAttemptRecords(tx, records, policy));
      record.push(ms(t0));
    }
  }
  console.log(`relay, ${BATCH}-row batch (SQL + XADD): ${stats(relay)}`);
  console.log(`relay, nothing to do: ${stats(idle)}`);
  console.log(`record, 500-outcome transaction: ${stats(record)}`);
} finally {
  await sql`delete from webhook_outbox where webhook_id = any(${webhooks}::uuid[])`;
  await sql`delete from webhook_due where webhook_id = any(${webhooks}::uuid[])`;
  await getRuntime().close();
  await removeBenchData(sql, redis, tenant.id, prefix);
  redis.disconnect();
  await sql.end();
}
