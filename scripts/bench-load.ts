// Bounded HTTP load generators for the notification benchmarks (loopback only): a closed loop
// (N connections as fast as the server answers), an open loop (a fixed rate), and the shared setup.
import { isCluster, scanKeys, type RedisClient } from "../runtime";
import type { Sql } from "../store/db";

export interface Target {
  url: string;
  headers: Record<string, string>;
  body: () => string;
}

export interface LoadResult {
  sent: number;
  ok: number;
  errors: number;
  statuses: Record<string, number>;
  seconds: number;
  rps: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

/** The q-quantile (0-1) of unsorted values, 0 for none (every bench's p50/p99). */
export function percentile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(q * s.length))]! : 0;
}

const pct = (values: number[], p: number) => Math.round(percentile(values, p) * 10) / 10;

function summarise(latencies: number[], sent: number, ok: number, statuses: Record<string, number>, seconds: number): LoadResult {
  const sorted = latencies.sort((a, b) => a - b);
  return {
    sent,
    ok,
    errors: sent - ok,
    statuses,
    seconds,
    rps: ok / seconds,
    p50: pct(sorted, 0.5),
    p90: pct(sorted, 0.9),
    p99: pct(sorted, 0.99),
    max: Math.round((sorted[sorted.length - 1] ?? 0) * 10) / 10,
  };
}

export function latencySummary(r: LoadResult): string {
  const codes = Object.entries(r.statuses).map(([k, v]) => `${k}:${v}`).join(" ");
  return `${r.rps.toFixed(0).padStart(6)} req/s  p50 ${r.p50} ms  p90 ${r.p90} ms  p99 ${r.p99} ms  max ${r.max} ms  errors ${r.errors}  [${codes}]`;
}

async function once(t: Target, statuses: Record<string, number>): Promise<boolean> {
  try {
    const res = await fetch(t.url, { method: "POST", headers: t.headers, body: t.body(), keepalive: true });
    await res.arrayBuffer();
    statuses[res.status] = (statuses[res.status] ?? 0) + 1;
    return res.status === 202;
  } catch {
    statuses.neterr = (statuses.neterr ?? 0) + 1;
    return false;
  }
}

/** `concurrency` workers, each sending its next request when the previous one answered, for `seconds`. */
export async function closedLoop(t: Target, opts: { concurrency: number; seconds: number; maxRequests?: number }): Promise<LoadResult> {
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let sent = 0;
  let ok = 0;
  const started = performance.now();
  const deadline = started + opts.seconds * 1000;
  const max = opts.maxRequests ?? 5_000_000;
  await Promise.all(
    Array.from({ length: opts.concurrency }, async () => {
      while (performance.now() < deadline && sent < max) {
        sent++;
        const t0 = performance.now();
        if (await once(t, statuses)) ok++;
        latencies.push(performance.now() - t0);
      }
    }),
  );
  return summarise(latencies, sent, ok, statuses, (performance.now() - started) / 1000);
}

/**
 * Sends at a fixed rate whatever the answers (bounded by maxInFlight). Latency counts from the
 * moment the request was due, so a server that falls behind shows it (no coordinated omission).
 */
export async function openLoop(t: Target, opts: { rate: number; seconds: number; maxInFlight?: number }): Promise<LoadResult> {
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  const total = Math.round(opts.rate * opts.seconds);
  const maxInFlight = opts.maxInFlight ?? 2000;
  let sent = 0;
  let ok = 0;
  let inFlight = 0;
  const pending: Promise<void>[] = [];
  const started = performance.now();
  const interval = 1000 / opts.rate;
  while (sent < total) {
    const now = performance.now();
    const due = Math.min(total, Math.floor((now - started) / interval) + 1);
    while (sent < due) {
      const dueAt = started + sent * interval;
      sent++;
      if (inFlight >= maxInFlight) {
        statuses.dropped = (statuses.dropped ?? 0) + 1;
        continue;
      }
      inFlight++;
      pending.push(
        once(t, statuses).then((good) => {
          inFlight--;
          if (good) ok++;
          latencies.push(performance.now() - dueAt);
        }),
      );
    }
    await Bun.sleep(1);
  }
  await Promise.all(pending);
  return summarise(latencies, sent, ok, statuses, opts.seconds);
}

/** Polls a spawned server until it answers below 500 (20 s at most). */
export async function waitReady(url: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    try {
      const r = await fetch(url);
      if (r.status < 500) return;
    } catch {}
    await Bun.sleep(100);
  }
  throw new Error(`${url} did not answer`);
}

/** Removes a bench tenant (rows cascade from tenants; events and rollups do not) and its Redis keys. */
export async function removeBenchData(sql: Sql, redis: RedisClient, tenantId: string, prefix: string): Promise<void> {
  await sql`delete from events where tenant_id = ${tenantId}`;
  await sql`delete from notification_stats_hourly where tenant_id = ${tenantId}`;
  await sql`delete from notification_stats_daily where tenant_id = ${tenantId}`;
  await sql`delete from tenants where id = ${tenantId}`;
  await deletePrefix(redis, prefix);
}

/**
 * SCAN + DEL of every key under `<prefix>:` (never FLUSHALL: the Redis is shared); on a cluster key
 * by key, since one DEL's keys must share a slot. Returns how many were deleted.
 */
export async function deletePrefix(redis: RedisClient, prefix: string): Promise<number> {
  let deleted = 0;
  for await (const keys of scanKeys(redis, `${prefix}:*`)) {
    if (isCluster(redis)) deleted += (await Promise.all(keys.map((k) => redis.del(k)))).reduce((a, b) => a + b, 0);
    else deleted += await redis.del(...keys);
  }
  return deleted;
}

/** Calls onLine with each line a child process writes to the stream (its log lines, its ready line). */
export async function forEachLine(stream: ReadableStream<Uint8Array>, onLine: (line: string) => void): Promise<void> {
  const dec = new TextDecoder();
  let buf = "";
  for await (const chunk of stream) {
    buf += dec.decode(chunk, { stream: true });
    let nl: number;
    while ((nl = buf.indexOf("\n")) >= 0) {
      onLine(buf.slice(0, nl));
      buf = buf.slice(nl + 1);
    }
  }
}
