// Idle burn of the one-process start: CPU per second (bun, its PostgreSQL backends, a private Redis)
// with nothing to do after ready, then how long a first notification after the idle period takes.
//
//   npm run bench:idle            (BENCH_IDLE_S=60, BENCH_REDIS_PORT=6441, BENCH_PORT=4161; db of BENCH_DATABASE_URL)
// Last line: `idle: <N> ms/s (bun A, pg B, redis C) over S s; first message delivered in X ms; load L`
import postgres from "postgres";
import { bootstrapKey, CpuTally, loadAvg, pgBackends, PG_SERVER, recreateDb, sleep, startRedis, startService, treeCpuMs } from "./perf/meter";

const IDLE_S = Number(process.env.BENCH_IDLE_S ?? 60);
const db = new URL(process.env.BENCH_DATABASE_URL ?? `${PG_SERVER}/nms_bench`).pathname.slice(1) || "nms_bench";
const redisPort = Number(process.env.BENCH_REDIS_PORT ?? 6441);
const port = Number(process.env.BENCH_PORT ?? 4161);

const redis = await startRedis(redisPort);
await recreateDb(db);
const svc = await startService({ db, port, redisUrl: redis.url, env: process.env.BENCH_START_ENV ? JSON.parse(process.env.BENCH_START_ENV) : {} });
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
      await sleep(10);
    }
  };
  // warm: one message through every path first
  await waitDelivered(await send());
  await sleep(5000);

  const bun = new CpuTally();
  const pg = new CpuTally();
  const red = new CpuTally();
  bun.mark([svc.pid]);
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

  // first message after the idle period: accept (202) to delivered, measured from the database's own timestamps
  const sentAt = performance.now();
  const id = await send();
  const status = await waitDelivered(id);
  const observed = performance.now() - sentAt;
  const dbc = postgres(`${PG_SERVER}/${db}`, { max: 1, onnotice: () => {} });
  const [row] = await dbc<{ ms: number }[]>`select extract(epoch from (coalesce(delivered_at, updated_at) - created_at)) * 1000 as ms from notifications where id = ${id}`;
  await dbc.end();
  const total = perS(bunMs) + perS(pg.total()) + perS(red.total());
  console.log(
    `idle: ${total.toFixed(1)} ms/s (bun ${perS(bunMs).toFixed(1)}, pg ${perS(pg.total()).toFixed(1)}, redis ${perS(red.total()).toFixed(1)}) over ${secs.toFixed(0)} s; ` +
      `first message ${status} in ${Number(row?.ms ?? NaN).toFixed(0)} ms (created to delivered; ${observed.toFixed(0)} ms seen by polling); load ${loadAvg()}`,
  );
} finally {
  await admin.end();
  await svc.stop();
  await redis.stop();
}
