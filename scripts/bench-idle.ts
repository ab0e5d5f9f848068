// Idle burn of the one-process start: CPU per second (bun, its PostgreSQL backends, a private Redis)
// with nothing to do after ready, then how long a first notification after the idle period takes.
//
//   npm run bench:idle            (BENCH_IDLE_S=60, BENCH_REDIS_PORT=6441, BENCH_PORT=4161; db of BENCH_DATABASE_URL)
// BENCH_BASELINE_ROOT=<dir>: measure that checkout too, in the same run (e.g. `git archive <commit> | tar -x -C dir`
// with node_modules linked): the idle burn and first-message latency of both, side by side.
// BENCH_SETTLE_S (5): seconds from the warm-up message to the idle window (the start's own jobs run ~10 s after ready).
// After the idle period, BENCH_FIRST_N (5) messages are sent BENCH_FIRST_GAP_S (7) s apart, each after a quiet spell
// (a message ends a reader's block at once): the median of accept-to-delivered is "the first message after idle".
// Last line: `idle: <N> ms/s (bun A, pg B, redis C) over S s; first message delivered in X ms (median of N); load L`
import postgres from "postgres";
import { bootstrapKey, CpuTally, loadAvg, pgBackends, PG_SERVER, recreateDb, sleep, startRedis, startService, treeCpuMs } from "./perf/meter";

const IDLE_S = Number(process.env.BENCH_IDLE_S ?? 60);
const db = new URL(process.env.BENCH_DATABASE_URL ?? `${PG_SERVER}/nms_bench`).pathname.slice(1) || "nms_bench";
const redisPort = Number(process.env.BENCH_REDIS_PORT ?? 6441);
const port = Number(process.env.BENCH_PORT ?? 4161);

const FIRST_N = Number(process.env.BENCH_FIRST_N ?? 5);
/** Seconds between the warm-up message and the idle window: with the default 5 the window still holds the start's own jobs (the table-statistics job's first run 10 s in). */
const SETTLE_S = Number(process.env.BENCH_SETTLE_S ?? 5);
const FIRST_GAP_S = Number(process.env.BENCH_FIRST_GAP_S ?? 7);

async function measure(label: string, root: string | undefined, redisPort: number): Promise<{ perS: number; firstMs: number; line: string }> {
  const redis = await startRedis(redisPort);
  await recreateDb(db);
  const svc = await startService({ db, port, redisUrl: redis.url, root });
  const admin = postgres(`${PG_SERVER}/postgres`, { max: 1, onnotice: () => {} });
  try {
    const key = await bootstrapKey(svc.url);
    const send = async () => {
      const res = await fetch(`${svc.url}/v1/notifications`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ channel: "sms", to: "+5511999000001", payload: { content: "idle" } }),
      });
      const j = (await res.json()) as any;
      if (res.status !== 202) throw new Error(`send: ${res.status} ${JSON.stringify(j)}`);
      return j.data.id as string;
    };
    const waitDelivered = async (id: string) => {
      const t0 = performance.now();
      for (;;) {
        const res = await fetch(`${svc.url}/v1/notifications/${id}`, { headers: { authorization: `Bearer ${key}` } });
        const j = (await res.json()) as any;
        if (j.data?.status === "delivered" || j.data?.status === "failed") return j.data.status as string;
        if (performance.now() - t0 > 60_000) throw new Error(`not delivered in 60 s: ${JSON.stringify(j)}`);
        await sleep(20);
      }
    };
    // warm: one message through every path first
    await waitDelivered(await send());
    await sleep(SETTLE_S * 1000);

    const pg = new CpuTally();
    const red = new CpuTally();
    const b0 = treeCpuMs([svc.pid]);
    pg.mark(await pgBackends(admin, db));
    red.mark([redis.pid]);
    const t0 = performance.now();
    while (performance.now() - t0 < IDLE_S * 1000) {
      await sleep(1000);
      pg.sample(await pgBackends(admin, db));
    }
    const secs = (performance.now() - t0) / 1000;
    const bunMs = treeCpuMs([svc.pid]) - b0;
    pg.sample(await pgBackends(admin, db));
    red.sample([redis.pid]);
    const perS = (x: number) => x / secs;

    // first messages after idle: accept to delivered, from the database's own timestamps
    const ids: string[] = [];
    for (let i = 0; i < FIRST_N; i++) {
      if (i) await sleep(FIRST_GAP_S * 1000);
      const id = await send();
      await waitDelivered(id);
      ids.push(id);
    }
    const dbc = postgres(`${PG_SERVER}/${db}`, { max: 1, onnotice: () => {} });
    const rows = await dbc<{ ms: number }[]>`select extract(epoch from (coalesce(delivered_at, updated_at) - created_at)) * 1000 as ms from notifications where id in ${dbc(ids)}`;
    await dbc.end();
    const firsts = rows.map((r) => Number(r.ms)).sort((a, b) => a - b);
    const firstMs = firsts[Math.floor(firsts.length / 2)]!;
    const total = perS(bunMs) + perS(pg.total()) + perS(red.total());
    const line =
      `${label}: idle ${total.toFixed(1)} ms/s (bun ${perS(bunMs).toFixed(1)}, pg ${perS(pg.total()).toFixed(1)}, redis ${perS(red.total()).toFixed(1)}) over ${secs.toFixed(0)} s; ` +
      `first message after idle: median ${firstMs.toFixed(0)} ms (${firsts.map((x) => x.toFixed(0)).join(", ")}; created to delivered); load ${loadAvg()}`;
    console.log(line);
    return { perS: total, firstMs, line };
  } finally {
    await admin.end();
    await svc.stop();
    await redis.stop();
  }
}

const baselineRoot = process.env.BENCH_BASELINE_ROOT;
const ours = await measure("ours", undefined, redisPort);
const base = baselineRoot ? await measure("baseline", baselineRoot, redisPort) : null;
console.log(
  `idle: ${ours.perS.toFixed(1)} ms/s; first message delivered in ${ours.firstMs.toFixed(0)} ms (median of ${FIRST_N})` +
    (base ? `; baseline ${base.perS.toFixed(1)} ms/s, first message ${base.firstMs.toFixed(0)} ms` : "") +
    `; load ${loadAvg()}`,
);
