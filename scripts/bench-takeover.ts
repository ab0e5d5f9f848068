// Takeover under kill -9: the Procfile split (api, reconciler, channel-sender, webhook-dispatcher,
// workflow-run as processes of their own) under notifications, workflow runs and a webhook, while the
// only sender, dispatcher and workflow-run processes are killed with SIGKILL every few seconds and
// restarted at once. Nothing may be lost; the longest gap with no progress says how fast they took over.
//
//   npm run bench:takeover -- [--rate 200] [--runs 50] [--seconds 60] [--kill-every 5]
// Env: BENCH_DATABASE_URL (recreated), BENCH_REDIS_PORT (6443, a private redis-server), BENCH_PORT (4163).
// Last line: `takeover: <N> accepted, <N> lost, longest gap <N> ms, delivered p99 <N> ms, run p99 <N> ms`
import type { ChildProcess } from "node:child_process";
import postgres from "postgres";
import { openLoop } from "./bench-load";
import { bootstrapKey, CpuTally, loadAvg, PG_SERVER, recreateDb, sleep, startRedis, startService, stopChild, type Service } from "./perf/meter";

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ""), process.argv[i + 1] ?? "");
const RATE = Number(args.get("rate") ?? 200);
const RUNS = Number(args.get("runs") ?? 50);
const SECONDS = Number(args.get("seconds") ?? 60);
const KILL_EVERY_S = Number(args.get("kill-every") ?? 5);
const db = new URL(process.env.BENCH_DATABASE_URL ?? `${PG_SERVER}/nms_bench`).pathname.slice(1) || "nms_bench";
const port = Number(process.env.BENCH_PORT ?? 4163);
const redis = await startRedis(Number(process.env.BENCH_REDIS_PORT ?? 6443));
await recreateDb(db);

// a webhook receiver: counts distinct events (ids) it was sent, and how long after its first
// receipt an event came again (an attempt whose outcome died with the dispatcher is re-sent)
const seenEvents = new Map<string, number>();
let webhookRequests = 0;
let longestResend = 0;
const resendAfter = new Map<string, number>();
const receiver = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  async fetch(req) {
    webhookRequests++;
    try {
      const j = (await req.json()) as { id?: string };
      if (j.id) {
        const first = seenEvents.get(j.id);
        if (first === undefined) seenEvents.set(j.id, Date.now());
        else {
          longestResend = Math.max(longestResend, Date.now() - first);
          if (!resendAfter.has(j.id)) resendAfter.set(j.id, Date.now() - first);
        }
      }
    } catch {}
    return new Response("ok");
  },
});

// TIME_SCALE 0.01: the runs' one-minute delay lasts 600 ms (and retry back-offs shrink alike)
const common: Record<string, string> = { WEBHOOK_ALLOW_PRIVATE: "true", TIME_SCALE: "0.01" };
// TAKEOVER_LOG_LEVEL=info: the processes log at that level and each one's log is written to .nms/takeover-logs/ at the end
if (process.env.TAKEOVER_LOG_LEVEL) common.LOG_LEVEL = process.env.TAKEOVER_LOG_LEVEL;
const allLogs: { name: string; log: string[] }[] = [];
const api = await startService({ db, port, redisUrl: redis.url, only: "api", env: common });
const kinds = ["reconciler", "channel-sender", "webhook-dispatcher", "workflow-run"] as const;
const procs = new Map<string, Service>();
await Promise.all(kinds.map(async (k) => procs.set(k, await startService({ db, port: 0, redisUrl: redis.url, only: k, env: common, migrate: false }))));
const sql = postgres(`${PG_SERVER}/${db}`, { max: 2, onnotice: () => {} });
const restarted: ChildProcess[] = [];
try {
  const key = await bootstrapKey(api.url);
  const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
  const post = async (path: string, body: unknown) => {
    const r = await fetch(`${api.url}${path}`, { method: "POST", headers, body: JSON.stringify(body) });
    if (r.status >= 300) throw new Error(`${path}: ${r.status} ${await r.text()}`);
  };
  await post("/v1/templates", { slug: "tk-a", name: "A", channel: "sms", content: "Hi {{ name }}" });
  await post("/v1/templates", { slug: "tk-b", name: "B", channel: "sms", content: "Again {{ name }}" });
  await post("/v1/workflows", {
    slug: "tk",
    name: "Takeover",
    steps: [{ type: "send", channel: "sms", template: "tk-a" }, { type: "delay", duration: "1m" }, { type: "send", channel: "sms", template: "tk-b" }],
  });
  await post("/v1/webhooks", { url: `http://127.0.0.1:${receiver.port}/hook`, events: ["notification.delivered"] });

  const killed = ["channel-sender", "webhook-dispatcher", "workflow-run"] as const;
  let kills = 0;
  const restartMs: number[] = [];
  const killTimes: number[] = [];
  const readyByKind: Record<string, number[]> = {};
  let stopKilling = false;
  const killer = (async () => {
    while (!stopKilling) {
      // in short steps, so the end of the load is not held up by a long kill period
      for (const until = Date.now() + KILL_EVERY_S * 1000; !stopKilling && Date.now() < until; ) await sleep(100);
      if (stopKilling) break;
      // kill -9 all three and restart each at once; the next kill comes KILL_EVERY_S after they are up
      killTimes.push(Date.now());
      await Promise.all(
        killed.map(async (k) => {
          const old = procs.get(k)!;
          old.child.kill("SIGKILL");
          restarted.push(old.child);
          kills++;
          const t = performance.now();
          const fresh = await startService({ db, port: 0, redisUrl: redis.url, only: k, env: common, migrate: false }).catch((err) => {
            console.error(`restart of ${k} failed: ${err}`);
            return null;
          });
          if (fresh) {
            allLogs.push({ name: `${k}-${kills}-killed-at-${Date.now()}`, log: fresh.log });
            procs.set(k, fresh);
            restartMs.push(performance.now() - t);
            (readyByKind[k] ??= []).push(performance.now() - t);
          }
        }),
      );
    }
  })();

  // CPU of each kind's processes (the killed ones counted to their death), sampled every 250 ms
  const cpu = new Map<string, CpuTally>(["api", ...kinds].map((k) => [k, new CpuTally()]));
  const cpuSampler = setInterval(() => {
    cpu.get("api")!.sample([api.pid]);
    for (const [k, p] of procs) cpu.get(k)!.sample([p.pid]);
  }, 250);
  const since = new Date((await sql<{ t: Date }[]>`select now() as t`)[0]!.t);
  const phone = () => `+5511988${Math.floor(Math.random() * 1e6).toString().padStart(6, "0")}`;
  console.log(`load: ${RATE} notifications/s and ${RUNS} runs/s for ${SECONDS} s, kill -9 of ${killed.join(", ")} every ${KILL_EVERY_S} s; load ${loadAvg()}`);
  const [notes, runs] = await Promise.all([
    openLoop({ url: `${api.url}/v1/notifications`, headers, body: () => JSON.stringify({ channel: "sms", to: phone(), payload: { content: "takeover" } }) }, { rate: RATE, seconds: SECONDS }),
    openLoop({ url: `${api.url}/v1/workflows/tk/trigger`, headers, body: () => JSON.stringify({ to: phone(), data: { name: "Ana" } }) }, { rate: RUNS, seconds: SECONDS }),
  ]);
  const loadEnd = new Date((await sql<{ t: Date }[]>`select now() as t`)[0]!.t);
  stopKilling = true;
  await killer;
  clearInterval(cpuSampler);
  restartMs.sort((a, b) => a - b);
  console.log(`CPU during the load (ms, killed processes up to their death): ${[...cpu].map(([k, t]) => `${k} ${t.total().toFixed(0)}`).join(", ")}`);
  console.log(
    `accepted: ${notes.ok} notifications (${notes.errors} refused: ${JSON.stringify(notes.statuses)}), ${runs.ok} runs (${runs.errors} refused); ${kills} kills; ` +
      `kill to ready line: median ${restartMs[Math.floor(restartMs.length / 2)]?.toFixed(0)} ms, max ${restartMs.at(-1)?.toFixed(0)} ms`,
  );
  console.log(
    `kill to ready line by kind (median/max ms): ${Object.entries(readyByKind)
      .map(([k, xs]) => (xs.sort((a, b) => a - b), `${k} ${xs[Math.floor(xs.length / 2)]!.toFixed(0)}/${xs.at(-1)!.toFixed(0)}`))
      .join(", ")}`,
  );

  // drain: every accepted notification and run terminal (or 120 s)
  const t0 = Date.now();
  for (;;) {
    const [r] = await sql<{ n: number; w: number }[]>`select
        (select count(*)::int from notifications where created_at >= ${since} and status not in ('delivered', 'failed')) as n,
        (select count(*)::int from workflow_runs where started_at >= ${since} and status = 'running') as w`;
    if ((r!.n === 0 && r!.w === 0) || Date.now() - t0 > 120_000) break;
    await sleep(1000);
  }
  // and the webhooks of every delivery received (the dispatcher may be behind; a late event is not lost)
  for (const t1 = Date.now(); Date.now() - t1 < 120_000; ) {
    const [e] = await sql<{ n: number }[]>`select count(*)::int as n from events where created_at >= ${since} and type = 'notification.delivered'`;
    if (seenEvents.size >= e!.n) break;
    await sleep(1000);
  }
  await sleep(1000);
  // every notification: the accepted ones and the runs' steps
  const [c] = await sql<{ accepted: number; delivered: number; failed: number; runs: number; completed: number }[]>`select
      (select count(*)::int from notifications where created_at >= ${since}) as accepted,
      (select count(*)::int from notifications where created_at >= ${since} and status = 'delivered') as delivered,
      (select count(*)::int from notifications where created_at >= ${since} and status = 'failed') as failed,
      (select count(*)::int from workflow_runs where started_at >= ${since}) as runs,
      (select count(*)::int from workflow_runs where started_at >= ${since} and status = 'completed') as completed`;
  // notifications whose attempt died with the sender (recorded outcome_unknown, then retried): how late they were delivered
  const [unknown] = await sql<{ n: number; worst: number | null }[]>`select count(*)::int as n,
      max(extract(epoch from (n.delivered_at - n.created_at)) * 1000)::float8 as worst
    from notifications n where n.created_at >= ${since} and exists (
      select 1 from notification_attempts a where a.notification_id = n.id and a.error->>'code' = 'outcome_unknown')`;
  const deliveredEvents = await sql<{ n: number }[]>`select count(*)::int as n from events where created_at >= ${since} and type = 'notification.delivered'`;
  // webhook latency: an event's first receipt after its creation
  const created = await sql<{ id: string; t: number }[]>`select id, extract(epoch from created_at) * 1000 as t from events where created_at >= ${since} and type = 'notification.delivered'`;
  const hookLat = created.flatMap((e) => (seenEvents.has(e.id) ? [seenEvents.get(e.id)! - Number(e.t)] : [])).sort((a, b) => a - b);
  // the re-sends: how long after its first receipt each came (an outcome lost with a killed dispatcher)
  const resends = [...resendAfter.values()].sort((a, b) => a - b);
  const lat = (await sql<{ ms: number }[]>`select (extract(epoch from (delivered_at - created_at)) * 1000)::float8 as ms
      from notifications where created_at >= ${since} and status = 'delivered'`).map((r) => Number(r.ms)).sort((a, b) => a - b);
  const runLat = (await sql<{ ms: number }[]>`select (extract(epoch from (completed_at - started_at)) * 1000)::float8 as ms
      from workflow_runs where started_at >= ${since} and status = 'completed'`).map((r) => Number(r.ms)).sort((a, b) => a - b);
  // progress: any delivery or run completion; the longest stretch of the load window without one
  const times = async (q: Promise<{ t: number }[]>) => (await q).map((r) => Number(r.t));
  const deliveredAt = await times(sql`select extract(epoch from delivered_at) * 1000 as t from notifications where delivered_at between ${since} and ${loadEnd} order by 1`);
  const completedAt = await times(sql`select extract(epoch from completed_at) * 1000 as t from workflow_runs where completed_at between ${since} and ${loadEnd} order by 1`);
  const marks = [...deliveredAt, ...completedAt].sort((a, b) => a - b);
  let gap = 0;
  let prev = since.getTime();
  const gaps: { from: number; ms: number }[] = [];
  for (const t of [...marks, loadEnd.getTime()]) {
    gap = Math.max(gap, t - prev);
    if (t - prev >= 1000) gaps.push({ from: prev, ms: t - prev });
    prev = t;
  }
  // where the long gaps fell: each one's start, measured from the kill before it
  const sinceKill = (t: number) => {
    const k = killTimes.filter((x) => x <= t).at(-1);
    return k === undefined ? "before the first kill" : `${(t - k).toFixed(0)} ms after a kill`;
  };
  gaps.sort((a, b) => b.ms - a.ms);
  // after each kill: how long until the first delivery and the first run completion
  const firstAfter = (ts: number[]) => killTimes.map((k) => (ts.find((t) => t >= k) ?? NaN) - k).filter(Number.isFinite).sort((a, b) => a - b);
  const [fd, fr] = [firstAfter(deliveredAt), firstAfter(completedAt)];
  const med = (xs: number[]) => xs[Math.floor(xs.length / 2)]?.toFixed(0);
  console.log(`after a kill: first delivery median ${med(fd)} ms, max ${fd.at(-1)?.toFixed(0)} ms; first run completed median ${med(fr)} ms, max ${fr.at(-1)?.toFixed(0)} ms`);
  console.log(`gaps of 1 s or more: ${gaps.length}${gaps.length ? `; longest: ${gaps.slice(0, 5).map((g) => `${g.ms.toFixed(0)} ms from ${sinceKill(g.from)}`).join(", ")}` : ""}`);
  // messages dead-lettered because hosts kept dying while holding them (each claim counts a delivery)
  const cli = (...a: string[]) => Bun.spawnSync(["redis-cli", "-p", String(redis.port), ...a]).stdout.toString().trim();
  const deadKeys = cli("--scan", "--pattern", "*dead:*").split("\n").filter(Boolean);
  const deadLetters = deadKeys.reduce((n, k) => n + (Number(cli("XLEN", k)) || 0), 0);
  console.log(`dead letters: ${deadLetters}${deadKeys.length ? ` (${deadKeys.join(", ")})` : ""}`);
  if (c!.delivered < c!.accepted) for (const [k, p] of procs) console.log(`${k} log: ${p.log.join("").slice(-1200)}`);
  const p99 = (xs: number[]) => (xs.length ? xs[Math.min(xs.length - 1, Math.floor(xs.length * 0.99))]! : NaN);
  // lost: an accepted notification missing or not terminal, a run not completed, a delivered event the receiver never saw
  const lost = Math.max(0, notes.ok - (c!.accepted - 2 * c!.runs)) + (c!.accepted - c!.delivered - c!.failed) + (runs.ok - c!.completed);
  console.log(
    `notifications: ${c!.accepted} stored, ${c!.delivered} delivered, ${c!.failed} failed (runs' included); runs: ${c!.runs} stored, ${c!.completed} completed; ` +
      `webhook: ${deliveredEvents[0]!.n} delivered events, ${seenEvents.size} distinct received (${webhookRequests} requests, a re-sent event at most ${longestResend} ms after its first receipt)`,
  );
  console.log(
    `webhook: first receipt after the event p50 ${hookLat[Math.floor(hookLat.length / 2)]?.toFixed(0)} ms p99 ${p99(hookLat).toFixed(0)} ms; ` +
      `${resends.length} events re-sent, after their first receipt: p50 ${resends[Math.floor(resends.length / 2)]?.toFixed(0) ?? "-"} ms, p90 ${resends[Math.floor(resends.length * 0.9)]?.toFixed(0) ?? "-"} ms, max ${resends.at(-1)?.toFixed(0) ?? "-"} ms`,
  );
  console.log(`attempts lost with a killed sender: ${unknown!.n} notifications, delivered at most ${unknown!.worst?.toFixed(0) ?? "-"} ms after accept`);
  console.log(`delivered p50 ${lat[Math.floor(lat.length / 2)]?.toFixed(0)} ms p99 ${p99(lat).toFixed(0)} ms; run p50 ${runLat[Math.floor(runLat.length / 2)]?.toFixed(0)} ms p99 ${p99(runLat).toFixed(0)} ms (its delay is 600 ms); load ${loadAvg()}`);
  console.log(
    `takeover: ${notes.ok + runs.ok} accepted, ${lost + Math.max(0, deliveredEvents[0]!.n - seenEvents.size)} lost, longest gap ${gap.toFixed(0)} ms, delivered p99 ${p99(lat).toFixed(0)} ms, run p99 ${p99(runLat).toFixed(0)} ms`,
  );
} finally {
  if (process.env.TAKEOVER_LOG_LEVEL) {
    const { mkdirSync, writeFileSync } = await import("node:fs");
    const dir = `${import.meta.dir}/../.nms/takeover-logs`;
    mkdirSync(dir, { recursive: true });
    for (const [k, p] of procs) allLogs.push({ name: `${k}-last`, log: p.log });
    for (const l of allLogs) writeFileSync(`${dir}/${l.name}.log`, l.log.join(""));
  }
  await sql.end();
  for (const p of procs.values()) await p.stop();
  for (const c of restarted) await stopChild(c, "SIGKILL", 1000);
  await api.stop();
  receiver.stop(true);
  await redis.stop();
}
