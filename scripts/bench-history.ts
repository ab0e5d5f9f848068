// bench:history (issue 26): the same workload on an empty database and on one with history filled in SQL
// (notifications with attempts and events across 60 days, many tenants), measured in alternating rounds in
// the same minutes; then the retention of one tenant's old rows while accepts go on, and the partition job's
// drop of the expired days. The history tables are partitioned by day (migration 0860): the bench lays out the
// 60 past days as day partitions, as after 60 days of running partitioned. SCALED DOWN by default
// (--rows 200000 --tenants 50, not the issue's 50 million and 1,000): a shared 2-core machine. The bench owns
// BENCH_DATABASE_URL (the filled side) and <its name>_empty (the empty side, created and migrated here) and
// empties both. The fill: scripts/bench-history-fill.ts; the workload and its side processes: bench-history-side.ts.
//
// Usage: npm run bench:history -- [--rows 200000] [--tenants 50] [--requests 600] [--rounds 4] [--victim-rows 1000000]
//        [--fill attach|insert] [--fill-jobs 2] [--fill-only 1 | --reuse 1 [--rounds-only 1]]
// --requests: requests of each kind in a round of each side (600: a round's p99 is then its 6th-slowest request, where
// 150 made it the 2nd-slowest and the paired ratio a coin toss of two stalls); --rounds: rounds of each side (empty, filled,
// filled, empty, ...: both sides see the same load). The ratios of the last line are p99 against p99 of the
// two rounds run back to back, the median over the rounds; the pooled p99s of each side are printed above it.
// --victim-rows gives the tenant the retention phase sweeps that many extra notifications 21-60 days old;
// --fill insert: the earlier fill through the parents (to compare); --fill-jobs: days loaded at once (attach);
// --fill-only 1 stops after the fill and keeps the rows; --reuse 1 measures them (no fill; the retention and
// drop phases then remove some, and the end empties the database as always; --rounds-only 1 stops after the
// rounds and keeps them, so one fill serves many measured runs).
// Workload (in-process through app.handle, no network): accept = POST /v1/notifications; reads = the
// feed, a detail and analytics overview; deliver = the delivery's SQL per message (status move and
// attempt row in one transaction; the provider call and the actor runtime are left out).
export {};
// a Redis prefix of its own (deleted at the end), and no rate limit in the way of the workload
process.env.REDIS_PREFIX ??= `benchhist${process.pid}`;
process.env.RATE_LIMIT_PER_MINUTE ??= "1000000";
process.env.LOG_LEVEL ??= "warn";
const { buildApp } = await import("../http/app");
const { sql } = await import("../store/db");
const { config } = await import("../config");
const { createTenant } = await import("../store/tenants");
const { insertApiKey } = await import("../store/api-keys");
const { sweepTenant } = await import("../domain/lifecycle/retention");
const { maintainPartitions } = await import("../domain/lifecycle/partitions");
const { redis } = await import("../store/redis");
const { deletePrefix, percentile: p } = await import("./bench-load");
const { DAYS, emptyBenchDatabase, fillHistory, sizes } = await import("./bench-history-fill");
const { call, workload } = await import("./bench-history-side");
type Round = import("./bench-history-side").Round;
type Sample = import("./bench-history-side").Sample;

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ""), process.argv[i + 1] ?? "");
const ROWS = Number(args.get("rows") ?? 200_000);
const TENANTS = Number(args.get("tenants") ?? 50);
const REQUESTS = Number(args.get("requests") ?? 600);
const ROUNDS = Number(args.get("rounds") ?? 4);
/** extra notifications 21-60 days old of the tenant the retention phase sweeps (the issue: 1 million) */
const VICTIM_ROWS = Number(args.get("victim-rows") ?? 0);
const FILL = (args.get("fill") ?? "attach") as "attach" | "insert";
if (FILL !== "attach" && FILL !== "insert") throw new Error(`--fill attach|insert, not ${FILL}`);
const FILL_JOBS = Number(args.get("fill-jobs") ?? 2);
/** fill and stop, keeping the rows (to EXPLAIN statements against them) */
const FILL_ONLY = args.has("fill-only");
/** measure the history a --fill-only run left (no fill); the retention and drop phases then change it */
const REUSE = args.has("reuse");
if (REUSE && FILL_ONLY) throw new Error("--reuse measures what --fill-only kept: not both");
/** with --reuse: stop after the rounds, keeping the rows for another measured run (no retention or drop phase) */
const ROUNDS_ONLY = args.has("rounds-only");
if (ROUNDS_ONLY && !REUSE) throw new Error("--rounds-only keeps a --fill-only history for the next run: with --reuse 1 only");
const app = buildApp();
const load = async () => (await Bun.$`uptime`.text()).trim().replace(/.*load average: /, "");

/** the fill, or with --reuse the rows a --fill-only run left: the measured tenant and the swept one */
async function filled() {
  if (REUSE) {
    const [measured] = await sql<{ id: string }[]>`select id from tenants where name = 'bench-history'`;
    const [swept] = await sql<{ id: string }[]>`select id from tenants where name = 'bench-history-1'`;
    if (!measured || !swept) throw new Error("--reuse: no filled history in this database (run with --fill-only 1 first)");
    console.log(`bench:history on the history a --fill-only run left (--reuse), load ${await load()}`);
    return { tenantId: measured.id, fillers: [measured.id, swept.id] };
  }
  await emptyBenchDatabase();
  const { tenant } = await createTenant("bench-history");
  console.log(`bench:history, scaled down: ${ROWS} notification rows for ${TENANTS} tenants across ${DAYS} days (the issue: 50 million for 1,000)`);
  const fillers: string[] = [tenant.id];
  for (let i = 1; i < TENANTS; i++) fillers.push((await createTenant(`bench-history-${i}`)).tenant.id);
  console.log(`fill (${FILL}${FILL === "attach" ? `, ${FILL_JOBS} day(s) at a time` : ""}), load ${await load()}`);
  const { fillSec, analyzeSec, pgCpuSec } = await fillHistory(fillers, ROWS, fillers[1]!, VICTIM_ROWS, FILL, FILL_JOBS);
  const rows = (await sizes()).reduce((a, s) => a + s.rows, 0);
  console.log(
    `filled in ${fillSec.toFixed(1)} s (${Math.round(rows / fillSec)} rows/s, ${Math.round((ROWS + VICTIM_ROWS) / fillSec)} notifications/s)${FILL === "insert" ? ` + ANALYZE ${analyzeSec.toFixed(1)} s` : ", each day's ANALYZE included"}; ` +
      `PostgreSQL CPU ${pgCpuSec.toFixed(0)} s with the ANALYZE, ${((pgCpuSec / rows) * 1e6).toFixed(1)} µs a row (load ${await load()})`,
  );
  // the fill wrote its tens of GB in minutes, leaving the shared buffers dirty and a checkpoint to spread
  // over the next minutes: the filled side's accepts (whose index leaves are not cached) would evict dirty
  // buffers and wait on their writes, a state 60 days of traffic never reach. A CHECKPOINT settles it first.
  const ckpt = performance.now();
  await sql`checkpoint`;
  console.log(`checkpoint after the fill: ${((performance.now() - ckpt) / 1000).toFixed(1)} s`);
  return { tenantId: tenant.id, fillers };
}
const { tenantId, fillers } = await filled();
const tenant = { id: tenantId };
const sandbox = await insertApiKey(sql, { tenantId, environment: "sandbox", keyType: "secret", name: "bench" });
const sz = await sizes();
for (const s of sz) console.log(`  ${s.rel}: ${s.rows} rows, ${(s.bytes / 1e6).toFixed(1)} MB, ${(s.bytes / Math.max(1, s.rows)).toFixed(0)} bytes/row`);
const total = sz.reduce((a, s) => a + s.rows, 0);
if (FILL_ONLY) {
  console.log(`--fill-only: the rows stay; tenant ${tenant.id} (sandbox) is the measured one, ${fillers[1]} the swept one; measure them with --reuse 1`);
  await deletePrefix(redis as any, process.env.REDIS_PREFIX!);
  await sql.end({ timeout: 5 });
  process.exit(0);
}

// the empty side: a database of its own next to the filled one, migrated the same way
const emptyUrl = new URL(config.databaseUrl);
emptyUrl.pathname = `${emptyUrl.pathname}_empty`;
const migrated = Bun.spawnSync([process.execPath, "scripts/migrate.ts"], { env: { ...process.env, DATABASE_URL: emptyUrl.href } });
if (migrated.exitCode !== 0) throw new Error(`migrating ${emptyUrl.pathname.slice(1)} failed: ${migrated.stdout}${migrated.stderr}`);

/** A side process on one database; its rounds run only when asked, so the two sides never run at once. */
function side(name: string, env: Record<string, string>) {
  let waiting: ((m: any) => void) | undefined;
  const ready = new Promise<void>((resolve) => (waiting = () => resolve()));
  const child = Bun.spawn([process.execPath, "scripts/bench-history-side.ts"], {
    env: { ...process.env, REDIS_PREFIX: `${process.env.REDIS_PREFIX}-${name}`, ...env },
    stdout: "inherit",
    stderr: "inherit",
    ipc: (m) => waiting?.(m),
  });
  const ask = (m: unknown) => new Promise<any>((resolve) => ((waiting = resolve), child.send(m)));
  child.exited.then((code) => {
    if (code !== 0) throw new Error(`the ${name} side exited with ${code}`);
  });
  return { ready, round: async (n: number) => (await ask({ round: n })).round as Round, quit: () => ask({ quit: true }) };
}
const emptySide = side("empty", { DATABASE_URL: emptyUrl.href });
const filledSide = side("filled", { DATABASE_URL: config.databaseUrl, BENCH_TENANT_ID: tenant.id, BENCH_API_KEY: sandbox.raw });
await Promise.all([emptySide.ready, filledSide.ready]);

// rounds in the order empty, filled, filled, empty, ...: every minute's load falls on both sides alike
const rounds = { empty: [] as Round[], filled: [] as Round[] };
const kinds = ["accept", "deliver", "reads"] as const;
for (let k = 0; k < ROUNDS; k++) {
  for (const name of k % 2 === 0 ? (["empty", "filled"] as const) : (["filled", "empty"] as const)) {
    const r = await (name === "empty" ? emptySide : filledSide).round(REQUESTS);
    rounds[name].push(r);
    console.log(`  round ${k + 1} ${name.padEnd(6)}: ${kinds.map((x) => `${x} p99 ${p(r[x].lat, 0.99).toFixed(1)}`).join(", ")} ms, rollup rows ${r.rollupRows} (load ${await load()})`);
  }
}
await Promise.all([emptySide.quit(), filledSide.quit()]);

/** A side's rounds pooled: every latency, and CPU per request in the bench process and in PostgreSQL. */
const pooled = (rs: Round[], x: (typeof kinds)[number]) => {
  const all: Sample[] = rs.map((r) => r[x]);
  const lat = all.flatMap((s) => s.lat);
  return { lat, p50: p(lat, 0.5), p99: p(lat, 0.99), cpu: all.reduce((a, s) => a + s.cpuMs, 0) / lat.length, pgCpu: all.reduce((a, s) => a + s.pgCpuMs, 0) / lat.length };
};
const before = Object.fromEntries(kinds.map((x) => [x, pooled(rounds.empty, x)])) as Record<(typeof kinds)[number], ReturnType<typeof pooled>>;
const after = Object.fromEntries(kinds.map((x) => [x, pooled(rounds.filled, x)])) as typeof before;
const phase = (w: typeof before) =>
  kinds.map((x) => `${x} p99 ${w[x].p99.toFixed(1)} p50 ${w[x].p50.toFixed(1)} ms, cpu ${w[x].cpu.toFixed(2)} + pg ${w[x].pgCpu.toFixed(2)} ms/req`).join(" | ");
/** the read mix by read: p50 / p99 of each, pooled over the rounds */
const readKinds = (rs: Round[]) =>
  ["feed", "detail", "overview"]
    .map((k) => {
      const lat = rs.flatMap((r) => r.reads.byKind?.[k] ?? []);
      return `${k} ${p(lat, 0.5).toFixed(1)} / ${p(lat, 0.99).toFixed(1)}`;
    })
    .join(", ");
/** Each round's filled p99 over the empty p99 of the round beside it (the two ran back to back on the
 *  same machine), the median over the rounds: a spike of the shared machine in one round moves one pair,
 *  where it moves the pooled p99 of a whole side. */
const paired = (x: (typeof kinds)[number]) => {
  const rs = rounds.filled.map((f, k) => p(f[x].lat, 0.99) / Math.max(1e-6, p(rounds.empty[k]![x].lat, 0.99))).sort((a, b) => a - b);
  return { median: p(rs, 0.5), lo: rs[0] ?? 0, hi: rs[rs.length - 1] ?? 0 };
};
const pairs = Object.fromEntries(kinds.map((x) => [x, paired(x)])) as Record<(typeof kinds)[number], ReturnType<typeof paired>>;
console.log(`empty  (${ROUNDS} rounds of ${REQUESTS} each, pooled): ${phase(before)}`);
console.log(`filled (${ROUNDS} rounds of ${REQUESTS} each, pooled): ${phase(after)}`);
console.log(`reads p50 / p99 ms by read: empty ${readKinds(rounds.empty)}; filled ${readKinds(rounds.filled)}`);
console.log(
  `p99 filled / empty, round by round (median, lowest-highest of ${ROUNDS}): ` +
    kinds.map((x) => `${x} ${pairs[x].median.toFixed(2)} (${pairs[x].lo.toFixed(2)}-${pairs[x].hi.toFixed(2)})`).join(", ") +
    `; pooled: ${kinds.map((x) => `${x} ${(after[x].p99 / Math.max(1e-6, before[x].p99)).toFixed(2)}`).join(", ")}`,
);

if (ROUNDS_ONLY) {
  console.log(`--rounds-only: the rows stay (no retention or drop phase); reads p99 ${after.reads.p99.toFixed(0)} ms (${pairs.reads.median.toFixed(2)} of empty)`);
  await deletePrefix(redis as any, process.env.REDIS_PREFIX!);
  await sql.end({ timeout: 5 });
  process.exit(0);
}

// the retention and partition phases run here, on the filled database: a warm-up first (this process's first requests)
await workload(app, tenant.id, sandbox.raw, 50);

// retention of one tenant with a window shorter than the partitions' (20 days: the batched delete) while accepts go on
const victim = fillers[1]!;
const [{ n: oldRows }] = await sql`select count(*)::int as n from notifications where tenant_id = ${victim} and created_at < now() - interval '20 days'`;
let sweeping = true;
const r0 = performance.now();
const sweep = sweepTenant(victim, { notifications_days: 20, inbox_days: 365, webhook_deliveries_days: 20 }).finally(() => (sweeping = false));
const during: number[] = [];
// p99 of the accepts of each 10 s of the sweep: the target is that none is above 100 ms
const windows: number[][] = [];
let i = 0;
while (sweeping) {
  const t0 = performance.now();
  await call(app, "POST", "/v1/notifications", sandbox.raw, { channel: "email", to: `r${i++}@example.com`, data: { subject: "s", content: "c" } });
  const ms = performance.now() - t0;
  during.push(ms);
  (windows[Math.floor((t0 - r0) / 10_000)] ??= []).push(ms);
}
const removed = await sweep;
const sweepMs = performance.now() - r0;
const windowP99 = windows.filter((w) => w && w.length).map((w) => p(w, 0.99));
console.log(
  `retention: ${removed.notifications} notifications (${oldRows} old) and ${removed.events} events of one tenant in ${sweepMs.toFixed(0)} ms; ` +
    `${during.length} accepts meanwhile, p99 ${p(during, 0.99).toFixed(1)} ms, highest p99 of a 10 s window ${Math.max(0, ...windowP99).toFixed(1)} ms, max ${p(during, 1).toFixed(1)} ms (load ${await load()})`,
);

// the partition job's pass: days older than the longest window (30, the default) leave whole, while accepts go on
let dropping = true;
const d0 = performance.now();
const pass = maintainPartitions().finally(() => (dropping = false));
const duringDrop: number[] = [];
while (dropping) {
  const t0 = performance.now();
  await call(app, "POST", "/v1/notifications", sandbox.raw, { channel: "email", to: `d${i++}@example.com`, data: { subject: "s", content: "c" } });
  duringDrop.push(performance.now() - t0);
}
const dropped = await pass;
// one day = its partition of each history table
const perDay = new Map<string, number>();
dropped.dropped.forEach((name, k) => {
  const day = name.slice(-8);
  perDay.set(day, (perDay.get(day) ?? 0) + dropped.dropMs[k]!);
});
const dayMs = [...perDay.values()];
console.log(
  `partition drop: ${dropped.dropped.length} partitions (${perDay.size} days) in ${(performance.now() - d0).toFixed(0)} ms; a day's drop p50 ${p(dayMs, 0.5).toFixed(0)} ms, max ${p(dayMs, 1).toFixed(0)} ms; ` +
    `${duringDrop.length} accepts meanwhile, p99 ${p(duringDrop, 0.99).toFixed(1)} ms, max ${p(duringDrop, 1).toFixed(1)} ms (load ${await load()})`,
);

await emptyBenchDatabase();
console.log(
  `history: ${total} rows, accept ${pairs.accept.median.toFixed(2)} of empty, deliver ${pairs.deliver.median.toFixed(2)} of empty, ` +
    `reads p99 ${after.reads.p99.toFixed(0)} ms (${pairs.reads.median.toFixed(2)} of empty), drop day ${dayMs.length ? p(dayMs, 1).toFixed(0) : "n/a"} ms`,
);
await deletePrefix(redis as any, process.env.REDIS_PREFIX!);
await sql.end({ timeout: 5 });
process.exit(0);
