// The metrics read on scrape (cheaply, one round trip each): per partition this process owns the
// stream length, pending count, oldest pending age, consumer lag and timers; dead letters; host stats; pool use.
import postgres from "postgres";
import { AggregatorRegistry } from "prom-client";
import { GROUP, type Host, type Runtime } from "../runtime";
import { config } from "../config";
import { logger } from "../basics/log";
import { metricsRegistry, scrapeGauges as g } from "../basics/metrics";
import { poolApplicationName } from "./db";
import { getRuntime } from "./runtime-handle";

/** A collector slower than this is abandoned for this scrape (its gauges keep their last values). */
const COLLECT_TIMEOUT_MS = 2000;

interface Watched {
  host: Host;
  runtime: Runtime;
  seen: { readerRestarts: number; loopFailures: number };
}

const watched = new Set<Watched>();

/** Reports a runtime host's partitions and stats on every scrape until the returned function is called. */
export function watchHost(host: Host, runtime: Runtime = getRuntime()): () => void {
  const w: Watched = { host, runtime, seen: { readerRestarts: 0, loopFailures: 0 } };
  watched.add(w);
  return () => void watched.delete(w);
}

interface PartitionNumbers {
  actor: string;
  partition: number;
  length: number;
  pending: number;
  oldestPendingMs: number | null;
  lag: number | null;
  timers: number;
}

const idMs = (id: string) => Number(id.split("-")[0]);

function groupFields(groups: unknown): Map<string, unknown> | undefined {
  for (const g of (groups ?? []) as unknown[][]) {
    const f = new Map<string, unknown>();
    for (let i = 0; i + 1 < g.length; i += 2) f.set(String(g[i]), g[i + 1]);
    if (f.get("name") === GROUP) return f;
  }
  return undefined;
}

/** One command per key (no cross-partition pipeline, so it works where partitions live on different nodes). */
async function partitionNumbers(runtime: Runtime, actor: string, p: number): Promise<PartitionNumbers> {
  const stream = runtime.keys.stream(actor, p);
  const r = runtime.redis;
  const noGroup = (err: Error) => {
    if (/no such key|NOGROUP/i.test(err.message)) return null;
    throw err;
  };
  const [length, groups, summary, timers] = await Promise.all([
    r.xlen(stream),
    r.xinfo("GROUPS", stream).catch(noGroup),
    r.xpending(stream, GROUP).catch(noGroup) as Promise<[number, string | null, string | null, unknown] | null>,
    r.zcard(runtime.keys.timers(actor, p)),
  ]);
  const group = groupFields(groups);
  const lag = group?.get("lag");
  const pending = summary ? Number(summary[0]) : 0;
  return {
    actor,
    partition: p,
    length,
    pending,
    oldestPendingMs: pending > 0 && summary?.[1] ? idMs(summary[1]) : null,
    // Redis answers nil when it cannot tell (entries deleted in the middle of the stream)
    lag: lag === null || lag === undefined ? null : Number(lag),
    timers,
  };
}

async function collectActors(): Promise<void> {
  const jobs: Promise<PartitionNumbers>[] = [];
  const owned = new Map<string, number>();
  const deadStreams = new Map<string, Runtime>();
  let inFlight = 0;
  let running = 0;
  let waiting = 0;
  for (const w of watched) {
    const s = w.host.stats();
    inFlight += s.inFlight;
    running += s.running;
    waiting += s.waiting;
    g.readerRestarts.inc(Math.max(0, s.readerRestarts - w.seen.readerRestarts));
    g.loopFailures.inc(Math.max(0, s.loopFailures - w.seen.loopFailures));
    w.seen = { readerRestarts: s.readerRestarts, loopFailures: s.loopFailures };
    for (const [actor, partitions] of w.host.owned()) {
      owned.set(actor, (owned.get(actor) ?? 0) + partitions.length);
      deadStreams.set(actor, w.runtime);
      for (const p of partitions) jobs.push(partitionNumbers(w.runtime, actor, p));
    }
  }
  g.hostInFlight.set(inFlight);
  g.hostRunning.set(running);
  g.hostWaiting.set(waiting);
  const anyRuntime = [...watched][0]?.runtime;
  const [numbers, dead, now] = await Promise.all([
    Promise.all(jobs),
    Promise.all([...deadStreams].map(async ([actor, runtime]) => [actor, await runtime.redis.xlen(runtime.keys.dead(actor))] as const)),
    anyRuntime ? anyRuntime.redis.time().then(([s, us]) => Number(s) * 1000 + Math.floor(Number(us) / 1000)) : Promise.resolve(Date.now()),
  ]);
  // Partitions that moved to another process since the last scrape must disappear, not freeze.
  for (const gauge of [g.streamLength, g.pending, g.oldestPendingAge, g.lag, g.timersPending, g.partitionsOwned, g.deadLetters]) gauge.reset();
  for (const [actor, n] of owned) g.partitionsOwned.set({ actor }, n);
  for (const [actor, n] of dead) g.deadLetters.set({ actor }, n);
  for (const n of numbers) {
    const labels = { actor: n.actor, partition: String(n.partition) };
    g.streamLength.set(labels, n.length);
    g.pending.set(labels, n.pending);
    g.oldestPendingAge.set(labels, n.oldestPendingMs === null ? 0 : Math.max(0, now - n.oldestPendingMs) / 1000);
    if (n.lag !== null) g.lag.set(labels, n.lag);
    g.timersPending.set(labels, n.timers);
  }
}

// A connection of its own: a scrape must answer while the pool it reports on is exhausted.
let observer: postgres.Sql | null = null;

async function collectPool(): Promise<void> {
  g.pgPoolMax.set(config.databasePoolSize);
  observer ??= postgres(config.databaseUrl, { max: 1, idle_timeout: 60, connect_timeout: 2, onnotice: () => {}, connection: { application_name: "nms-metrics" } });
  const rows = await observer<{ state: string | null; n: number }[]>`
    select state, count(*)::int as n from pg_stat_activity where application_name = ${poolApplicationName} group by state`;
  const by = { active: 0, idle: 0, idle_in_transaction: 0, other: 0 };
  for (const r of rows) {
    if (r.state === "active" || r.state === "idle") by[r.state] += r.n;
    else if (r.state?.startsWith("idle in transaction")) by.idle_in_transaction += r.n;
    else by.other += r.n;
  }
  for (const [state, n] of Object.entries(by)) g.pgPoolConnections.set({ state }, n);
}

async function bounded(name: string, fn: () => Promise<void>): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await Promise.race([fn(), new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out after ${COLLECT_TIMEOUT_MS} ms`)), COLLECT_TIMEOUT_MS)))]);
  } catch (err) {
    g.scrapeErrors.inc({ collector: name });
    logger.warn({ err, collector: name }, "metrics collector failed; its gauges keep their last values");
  } finally {
    clearTimeout(timer);
  }
}

type MetricsJson = Awaited<ReturnType<typeof metricsRegistry.getMetricsAsJSON>>;

/** Metrics of the process's other threads (the actor thread of `npm start`), merged into every scrape. */
const threadSources = new Set<() => Promise<MetricsJson>>();

/** Adds a thread's metrics (see threadMetrics) to this thread's scrapes until the returned function is called. */
export function addThreadMetrics(source: () => Promise<MetricsJson>): () => void {
  threadSources.add(source);
  return () => void threadSources.delete(source);
}

/** Reported once per process, by the thread that serves /metrics: its process, runtime and pool figures. */
const PROCESS_WIDE = /^nms_(process_|nodejs_|pg_pool_connections$)/;

/** What a thread that does not serve /metrics hands to the one that does: its on-scrape gauges refreshed, process-wide figures left out. */
export async function threadMetrics(): Promise<MetricsJson> {
  await bounded("actors", collectActors);
  g.pgPoolMax.set(config.databasePoolSize); // this thread's own pool: the sum is the process's
  return (await metricsRegistry.getMetricsAsJSON()).filter((m) => !PROCESS_WIDE.test(m.name));
}

/** Refreshes the on-scrape gauges and renders the whole registry in the Prometheus text format. */
export async function collectMetrics(): Promise<{ contentType: string; text: string }> {
  await Promise.all([bounded("actors", collectActors), bounded("postgres_pool", collectPool)]);
  if (!threadSources.size) return { contentType: metricsRegistry.contentType, text: await metricsRegistry.metrics() };
  // counters and histograms add up across threads; a thread that does not answer is left out of this scrape
  const others = await Promise.all(
    [...threadSources].map((source) =>
      source().catch((err) => {
        g.scrapeErrors.inc({ collector: "thread" });
        logger.warn({ err }, "a thread's metrics did not come; this scrape leaves them out");
        return [] as MetricsJson;
      }),
    ),
  );
  // a family of this thread alone goes out as it is (the aggregator would drop those marked "omit", e.g. the start time)
  const theirs = new Set(others.flat().map((m) => m.name));
  const own = (await metricsRegistry.getMetricsAsJSON()).map((m) => (theirs.has(m.name) ? m : { ...m, aggregator: "first" as const }));
  const merged = AggregatorRegistry.aggregate([own, ...others]);
  return { contentType: metricsRegistry.contentType, text: await merged.metrics() };
}
