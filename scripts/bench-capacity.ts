// Sustained capacity: the highest rate each system holds for a whole step with every notification
// delivered and accept-to-delivered p99 under 1 s, found by stepping the rate up in one run for the
// naive pipeline (scripts/perf/pipeline.ts), our one-process start and the Procfile split.
//
//   npm run bench:capacity [-- --seconds 60] [--start 250] [--factor 1.5] [--max 20000] [--refine 2] [--conns 4096] [--upkeep vacuum] [--targets pipeline,start,split]
// Each target gets a private redis-server and a recreated database (<BENCH_DATABASE_URL db>_cap_<target>);
// all run at once and step in turns (interleaved, so each rate meets about the same machine for every
// target), after a short warm-up: --start req/s, times --factor after every step it holds (the step past --max is
// --max itself: a target that holds it is at least that fast), until a step fails;
// then --refine steps (default 2), each half-way between the last rate held and the first missed (when the first step
// misses, the rate is halved until a step holds, down to an eighth of --start). Every step is an open-loop
// sender (scripts/perf/rate.ts, latency from the scheduled send time) for --seconds, then up to
// --grace seconds (default 15) for stragglers to become terminal. A step that missed may leave a backlog:
// before anything else runs, its target works it off (up to --drain seconds, default 300, not part of any
// step's figures), so no step shares the machine with another target's backlog or starts behind its own.
// Then (--upkeep vacuum, the default; none skips it) the bench runs VACUUM (ANALYZE) on that target's database and a
// CHECKPOINT, as autovacuum and the checkpointer would between bursts: with autovacuum off (this machine kind's
// PostgreSQL), ours vacuums its own tables every minute (jobs/table-stats.ts), and those vacuums, paced over
// seconds, ran during whichever target stepped next; the pipeline's tables were never vacuumed at all.
// A step holds when every request was answered 2xx, every notification it created is delivered,
// and both the HTTP answer p99 and the accept-to-delivered p99 (delivered_at - created_at, each
// system's own row) are under 1 s. Ports: BENCH_PORT (3103) +100 +200; Redis BENCH_REDIS_PORT (6525) +1 +2.
// Last line: `capacity: ours <N>/s, pipeline <N>/s, ratio <R>` (ours = the one-process start; the split's figure is printed above it).
import { parseArgs } from "node:util";
import { spawn } from "node:child_process";
import { join } from "node:path";
import postgres from "postgres";
import { BUN, ROOT, bootstrapKey, loadAvg, PG_SERVER, recreateDb, sleep, startRedis, startService, stopChild, type RedisServer, type Service } from "./perf/meter";

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    seconds: { type: "string", default: "60" },
    start: { type: "string", default: "250" },
    factor: { type: "string", default: "1.5" },
    max: { type: "string", default: "20000" },
    grace: { type: "string", default: "15" },
    drain: { type: "string", default: "300" },
    targets: { type: "string", default: "pipeline,start,split" },
    refine: { type: "string", default: "2" },
    conns: { type: "string", default: "4096" },
    upkeep: { type: "string", default: "vacuum" },
  },
});
const SECONDS = Number(values.seconds);
const START = Number(values.start);
const FACTOR = Number(values.factor);
const MAX = Number(values.max);
const GRACE_S = Number(values.grace);
const DRAIN_S = Number(values.drain);
const REFINE = Number(values.refine);
// The load client's most connections. An open-loop client must never be what limits a step: with rate.ts's
// default of 256, a system answering in 35 ms (ours batches its statements for a few ms) needs ~250 at 7,000/s,
// and at 7,223/s every one was busy, requests waited for a free one (the client's own lag p99 1,008 ms, HTTP p99
// 3.7 s) while the machine was 1.24 cores busy; with 2,048 allowed the same load peaked at 911 (HTTP p99 94 ms).
const CONNS = Number(values.conns);
const UPKEEP = values.upkeep === "vacuum";
const TARGETS = values.targets!.split(",").map((t) => t.trim()).filter(Boolean);
if (!(SECONDS > 0) || !(START > 0) || !(FACTOR > 1) || !(MAX >= START) || !(Number.isInteger(REFINE) && REFINE >= 0) || !(CONNS > 0) || !["vacuum", "none"].includes(values.upkeep!) || TARGETS.some((t) => !["pipeline", "start", "split"].includes(t))) {
  console.error("usage: bench-capacity.ts [--seconds 60] [--start 250] [--factor 1.5] [--max 20000] [--grace 15] [--drain 300] [--refine 2] [--conns 4096] [--upkeep vacuum|none] [--targets pipeline,start,split]");
  process.exit(2);
}
const baseDb = new URL(process.env.BENCH_DATABASE_URL ?? `${PG_SERVER}/nms_bench`).pathname.slice(1) || "nms_bench";
const PORT = Number(process.env.BENCH_PORT ?? 3103);
const REDIS_PORT = Number(process.env.BENCH_REDIS_PORT ?? 6525);
const LIMIT_MS = 1000;

interface Step {
  rate: number;
  sent: number;
  ok: number;
  delivered: number;
  httpP99: number;
  /** the load client's most open connections, and its own lag p99 (a request waiting for a connection) */
  conns: number;
  lagP99: number;
  p50: number;
  p99: number;
  held: boolean;
  load: string;
  /** seconds the target took after the grace to work off what the step left (0: nothing was left) */
  drainedS: number;
  /** rows still not terminal when the drain gave up (then the next steps start behind them) */
  leftAfterDrain: number;
  /** seconds of the VACUUM (ANALYZE) and CHECKPOINT after the step (--upkeep vacuum), outside every step */
  upkeepS: number;
}

/** One running system: where to send, which database holds its rows, how to stop it. */
interface Target {
  url: string;
  key: string;
  db: string;
  /** statuses that are final in this system's table */
  terminal: string[];
  stop(): Promise<void>;
}

function runRate(url: string, key: string, rate: number, seconds: number, label: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(BUN, [join(ROOT, "scripts/perf/rate.ts"), "--url", `${url}/v1/notifications`, "--key", key, "--rate", String(rate), "--duration", String(seconds), "--conns", String(CONNS), "--label", label], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout!.on("data", (b) => (out += b.toString()));
    child.stderr!.on("data", (b) => (out += b.toString()));
    child.once("exit", (code) => (code === 0 ? resolve(out.trim().split("\n").pop() ?? "") : reject(new Error(`rate.ts exited ${code}: ${out.slice(-500)}`))));
  });
}

const num = (line: string, re: RegExp) => {
  const m = re.exec(line);
  return m ? Number(m[1]) : NaN;
};

async function step(t: Target, sql: postgres.Sql, rate: number): Promise<Step> {
  const [{ t0 }] = await sql<{ t0: Date }[]>`select clock_timestamp() as t0`;
  const line = await runRate(t.url, t.key, rate, SECONDS, `capacity-${rate}`);
  const sent = num(line, /sent (\d+)/);
  const ok = num(line, /ok (\d+)/);
  const httpP99 = num(line, /p99 ([\d.]+) ms/);
  const conns = num(line, /conns (\d+)/);
  const lagP99 = num(line, /lag p99 ([\d.]+) ms/);
  // rows of the step not terminal yet, polled every pollMs until there are none or `seconds` have passed
  const untilTerminal = async (seconds: number, pollMs: number) => {
    const until = performance.now() + seconds * 1000;
    for (;;) {
      const [{ left }] = await sql<{ left: number }[]>`select count(*)::int as left from notifications where created_at >= ${t0} and status <> all(${t.terminal}::text[])`;
      if (left === 0 || performance.now() > until) return left;
      await sleep(pollMs);
    }
  };
  await untilTerminal(GRACE_S, 250); // stragglers
  const [r] = await sql<{ delivered: number; p50: number | null; p99: number | null }[]>`
    select count(*)::int as delivered,
      percentile_cont(0.5) within group (order by extract(epoch from delivered_at - created_at) * 1000) as p50,
      percentile_cont(0.99) within group (order by extract(epoch from delivered_at - created_at) * 1000) as p99
    from notifications where created_at >= ${t0} and status = 'delivered'`;
  const p50 = Number(r!.p50 ?? NaN);
  const p99 = Number(r!.p99 ?? NaN);
  const held = ok === sent && r!.delivered === sent && httpP99 < LIMIT_MS && p99 < LIMIT_MS;
  const load = loadAvg();
  // The verdict is in; what the step left is worked off before any other step runs (a missed step at
  // 2,853/s left 7,000 rows, which the same target's next step queued behind while the other targets'
  // steps shared the machine with their processing).
  const drainFrom = performance.now();
  const left = await untilTerminal(DRAIN_S, 500);
  const drainedS = (performance.now() - drainFrom) / 1000;
  const upkeepFrom = performance.now();
  if (UPKEEP) {
    await sql.unsafe("vacuum (analyze)");
    await sql.unsafe("checkpoint");
  }
  const upkeepS = (performance.now() - upkeepFrom) / 1000;
  return { rate, sent, ok, delivered: r!.delivered, httpP99, conns, lagP99, p50, p99, held, load, drainedS: left === 0 && drainedS < 1 ? 0 : drainedS, leftAfterDrain: left, upkeepS };
}

/**
 * The rates one target is stepped through: up by --factor while steps hold; when the first step
 * misses, halved until one holds (down to --start / 8); then --refine times half-way between the
 * last rate held and the first missed. Each `yield` is a step; the value sent back is whether it held.
 */
function* plan(): Generator<number, number, boolean> {
  let rate = START;
  let held = 0;
  let missed = 0;
  // up to --max and no further: the step that would pass it is --max itself (a climb that stopped at the
  // last step under it printed 6,420/s for a target that held every step, a cap of the bench, not its figure)
  while (held < MAX) {
    rate = Math.min(rate, MAX);
    if (!(yield rate)) {
      missed = rate;
      break;
    }
    held = rate;
    rate = Math.round(rate * FACTOR);
  }
  for (let down = Math.round(START / 2); !held && down >= Math.max(1, Math.round(START / 8)); down = Math.round(down / 2)) {
    if (yield down) held = down;
    else missed = down;
  }
  // --refine halvings of the gap between the last rate held and the first missed: after one, each figure could
  // still be up to 1.25 times below the true one (at --factor 1.5), and a printed 1.88 meant anything from 1.50 to 2.25
  for (let i = 0; i < REFINE && missed && held && missed - held > 1; i++) {
    const mid = Math.round((held + missed) / 2);
    if (yield mid) held = mid;
    else missed = mid;
  }
  return held;
}

interface Climber {
  name: string;
  t: Target;
  sql: postgres.Sql;
  plan: Generator<number, number, boolean>;
  rate: number | null;
  capacity: number;
}

const show = (name: string, s: Step) =>
  console.log(
    `${name} ${s.rate}/s: ${s.held ? "held" : "MISSED"}; sent ${s.sent}, ok ${s.ok}, delivered ${s.delivered}; ` +
      `accept-to-delivered p50 ${s.p50.toFixed(0)} ms, p99 ${s.p99.toFixed(0)} ms; http p99 ${s.httpP99.toFixed(0)} ms (client: ${s.conns} connections, lag p99 ${s.lagP99.toFixed(0)} ms); load ${s.load}` +
      (s.leftAfterDrain > 0
        ? `; ${s.leftAfterDrain} still not terminal after a ${DRAIN_S} s drain (later steps start behind them)`
        : s.drainedS > 0
          ? `; its backlog worked off ${s.drainedS.toFixed(1)} s after the grace`
          : "") +
      (UPKEEP ? `; vacuum and checkpoint ${s.upkeepS.toFixed(1)} s` : ""),
  );

/**
 * Every target climbs at once, interleaved: round after round, each target still climbing runs its
 * next step (the order rotates each round), so the steps of one rate run minutes apart at most and
 * see about the same machine (on a shared machine a sequential climb compared one target's quiet
 * minutes with another's busy ones).
 */
async function climbAll(climbers: Climber[]): Promise<void> {
  for (const c of climbers) {
    await runRate(c.t.url, c.t.key, 300, 3, "warm"); // connections, plans, caches
    const first = c.plan.next(true);
    c.rate = first.done ? null : first.value;
  }
  await sleep(2000);
  for (let round = 0; climbers.some((c) => c.rate !== null); round++) {
    const active = climbers.filter((c) => c.rate !== null);
    const rotated = [...active.slice(round % active.length), ...active.slice(0, round % active.length)];
    for (const c of rotated) {
      const s = await step(c.t, c.sql, c.rate!);
      show(c.name, s);
      const next = c.plan.next(s.held);
      if (next.done) {
        c.capacity = next.value;
        c.rate = null;
        if (next.value >= MAX) console.log(`${c.name} held --max (${MAX}/s): its capacity is at least that, not measured above it`);
      } else c.rate = next.value;
      await sleep(2000);
    }
  }
}

async function startPipeline(): Promise<Target> {
  const redis = await startRedis(REDIS_PORT + 1);
  const db = `${baseDb}_cap_pipe`;
  const port = PORT + 100;
  const child = spawn(BUN, [join(ROOT, "scripts/perf/pipeline.ts")], {
    cwd: ROOT,
    env: { ...process.env, PIPE_PORT: String(port), PIPE_REDIS_URL: redis.url, PIPE_DB: db, PIPE_DATABASE_URL: PG_SERVER },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 120; i++) {
    if (await fetch(`${url}/health`).then((r) => r.ok, () => false)) break;
    await sleep(250);
  }
  return {
    url,
    key: "none",
    db,
    terminal: ["delivered", "failed"],
    stop: async () => {
      await stopChild(child);
      await redis.stop();
    },
  };
}

async function startOurs(split: boolean): Promise<Target> {
  const redis: RedisServer = await startRedis(REDIS_PORT + (split ? 2 : 0));
  const db = `${baseDb}_cap_${split ? "split" : "svc"}`;
  const port = PORT + (split ? 200 : 0);
  await recreateDb(db);
  const services: Service[] = [];
  try {
    if (split) {
      // the Procfile's delivery processes, each its own bun: api, channel-sender, reconciler
      services.push(await startService({ db, port, redisUrl: redis.url, only: "api" }));
      for (const only of ["channel-sender", "reconciler"]) services.push(await startService({ db, port, redisUrl: redis.url, only, migrate: false }));
    } else {
      services.push(await startService({ db, port, redisUrl: redis.url }));
    }
  } catch (e) {
    for (const s of services) await s.stop();
    await redis.stop();
    throw e;
  }
  const url = `http://127.0.0.1:${port}`;
  const key = await bootstrapKey(url);
  return {
    url,
    key,
    db,
    terminal: ["delivered", "failed", "bounced", "suppressed"],
    stop: async () => {
      for (const s of services) await s.stop();
      await redis.stop();
    },
  };
}

const results = new Map<string, number>();
console.log(`capacity: steps of ${SECONDS} s from ${START}/s, x${FACTOR}, targets interleaved, ${UPKEEP ? "VACUUM (ANALYZE) and CHECKPOINT after each step" : "no upkeep between steps"}; holds = all delivered, http and accept-to-delivered p99 < ${LIMIT_MS} ms; load ${loadAvg()}`);
const climbers: Climber[] = [];
try {
  for (const name of TARGETS) {
    const t = name === "pipeline" ? await startPipeline() : await startOurs(name === "split");
    climbers.push({
      name: name === "start" ? "ours" : name === "split" ? "ours-split" : "pipeline",
      t,
      sql: postgres(`${PG_SERVER}/${t.db}`, { max: 2, onnotice: () => {} }),
      plan: plan(),
      rate: null,
      capacity: 0,
    });
  }
  await climbAll(climbers);
  TARGETS.forEach((name, i) => results.set(name, climbers[i]!.capacity));
} finally {
  for (const c of climbers) {
    await c.sql.end();
    await c.t.stop();
  }
}
const ours = results.get("start");
const pipe = results.get("pipeline");
const split = results.get("split");
if (split !== undefined) console.log(`split (api, channel-sender, reconciler): ${split}/s${ours !== undefined ? `, ${(split / Math.max(1, ours)).toFixed(2)} of the one-process start` : ""}`);
const ratio = ours !== undefined && pipe ? (ours / pipe).toFixed(2) : "n/a";
console.log(`load: ${loadAvg()}`);
console.log(`capacity: ours ${ours ?? "n/a"}/s, pipeline ${pipe ?? "n/a"}/s, ratio ${ratio}`);
process.exit(0);
