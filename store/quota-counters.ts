// The notification quota's Redis counters (docs/billing.md "Quota"): per tenant, period and
// limits version, a count and the set of open reservations, changed only by the Lua scripts in store/lua/.
import quotaReserveLua from "./lua/quotaReserve-2.lua" with { type: "text" };
import quotaSettleLua from "./lua/quotaSettle-2.lua" with { type: "text" };
import { MicroBatcher } from "./micro-batcher";
import { redis } from "./redis";
import { redisKeys } from "./redis-keys";

/** Which counter: a tenant's period under one version of its limits (a plan or subscription change starts another). */
export interface QuotaRef {
  tenantId: string;
  periodStartMs: number;
  periodEndMs: number;
  version: string;
}

type Scripted = typeof redis & {
  nmsQuotaReserve(used: string, inflight: string, limit: number, nowMs: number, ttlMs: number, ...ids: string[]): Promise<[number, number]>;
  nmsQuotaSettle(used: string, inflight: string, ...idCreatedPairs: (string | number)[]): Promise<number>;
};

let scripted: Scripted | null = null;
function scripts(): Scripted {
  if (!scripted) {
    for (const [name, lua] of [["nmsQuotaReserve", quotaReserveLua], ["nmsQuotaSettle", quotaSettleLua]] as const) {
      redis.defineCommand(name, { numberOfKeys: 2, lua });
    }
    scripted = redis as Scripted;
  }
  return scripted;
}

/** Counters outlive their period by a week, so a late settle or the reconciler still finds them. */
export function counterTtlMs(ref: QuotaRef, nowMs: number): number {
  return Math.max(60_000, ref.periodEndMs - nowMs + 7 * 86_400_000);
}

const keysOf = (ref: QuotaRef) => [redisKeys.quotaUsed(ref.tenantId, ref.periodStartMs, ref.version), redisKeys.quotaInflight(ref.tenantId, ref.periodStartMs, ref.version)] as const;

export type ReserveOutcome = { status: "reserved" | "refused" | "unseeded"; used: number };

/** Reserves for each id in order, as far as the limit allows (one script call); `nowMs` is the reservations' time. */
export async function reserveQuotaMany(ref: QuotaRef, ids: string[], limit: number, nowMs: number): Promise<ReserveOutcome[]> {
  const [used, inflight] = keysOf(ref);
  const [granted, after] = (await scripts().nmsQuotaReserve(used, inflight, limit, nowMs, counterTtlMs(ref, nowMs), ...ids)).map(Number) as [number, number];
  if (granted < 0) return ids.map(() => ({ status: "unseeded", used: 0 }));
  // the i-th reserved id is the (after - granted + i + 1)-th of the period
  return ids.map((_, i) => (i < granted ? { status: "reserved", used: after - granted + i + 1 } : { status: "refused", used: after }));
}

export async function reserveQuota(ref: QuotaRef, id: string, limit: number, nowMs: number): Promise<ReserveOutcome> {
  return (await reserveQuotaMany(ref, [id], limit, nowMs))[0]!;
}

/** Gives each reservation back (created false) or keeps it (true); resolves to how many were still open. */
export async function settleQuotaMany(ref: QuotaRef, settles: { id: string; created: boolean }[]): Promise<number> {
  const [used, inflight] = keysOf(ref);
  return Number(await scripts().nmsQuotaSettle(used, inflight, ...settles.flatMap((x) => [x.id, x.created ? 1 : 0])));
}

/** One reservation's settle; false when it was settled before. */
export async function settleQuota(ref: QuotaRef, id: string, created: boolean): Promise<boolean> {
  return (await settleQuotaMany(ref, [{ id, created }])) === 1;
}

// ---------------------------------------------------------------------------------------------
// Group calls: concurrent accepts of one process share one script call per counter (the batch
// waits for the next turn of the event loop at most), as their inserts share one commit.

function byCounter<T extends { ref: QuotaRef }>(items: T[]): Map<string, { ref: QuotaRef; at: number[] }> {
  const groups = new Map<string, { ref: QuotaRef; at: number[] }>();
  items.forEach((item, i) => {
    const k = memberOf(item.ref);
    let g = groups.get(k);
    if (!g) groups.set(k, (g = { ref: item.ref, at: [] }));
    g.at.push(i);
  });
  return groups;
}

const reserves = new MicroBatcher<{ ref: QuotaRef; id: string; limit: number }, ReserveOutcome>(
  async (items) => {
    const out: ReserveOutcome[] = new Array(items.length);
    const nowMs = Date.now();
    await Promise.all(
      [...byCounter(items).values()].map(async (g) => {
        // one limit per counter: a plan change makes a new counter (QuotaRef.version)
        const got = await reserveQuotaMany(g.ref, g.at.map((i) => items[i]!.id), items[g.at[0]!]!.limit, nowMs);
        g.at.forEach((i, k) => (out[i] = got[k]!));
      }),
    );
    return out;
  },
  { maxSize: 500, maxWaitMs: 0, maxConcurrent: 4, name: "quota reserve" },
);

const settles = new MicroBatcher<{ ref: QuotaRef; id: string; created: boolean }, void>(
  async (items) => {
    await Promise.all([...byCounter(items).values()].map((g) => settleQuotaMany(g.ref, g.at.map((i) => items[i]!))));
    return items.map(() => undefined);
  },
  { maxSize: 1000, maxWaitMs: 0, maxConcurrent: 2, name: "quota settle" },
);

/** reserveQuota through this process's batch (the reservation's time is the batch's). */
export function reserveQuotaBatched(ref: QuotaRef, id: string, limit: number): Promise<ReserveOutcome> {
  return reserves.submit({ ref, id, limit });
}

/** settleQuota through this process's batch. */
export function settleQuotaBatched(ref: QuotaRef, id: string, created: boolean): Promise<void> {
  return settles.submit({ ref, id, created });
}

/** Starts the counter at `count` (PostgreSQL's) unless another process did first; lists it for the reconciler. */
export async function seedQuota(ref: QuotaRef, count: number, nowMs: number): Promise<void> {
  const [used] = keysOf(ref);
  await redis.set(used, String(count), "PX", counterTtlMs(ref, nowMs), "NX");
  await redis.sadd(redisKeys.quotaCounters(), memberOf(ref));
}

/** The count now (null: no counter). */
export async function readQuota(ref: QuotaRef): Promise<number | null> {
  const v = await redis.get(keysOf(ref)[0]);
  return v === null ? null : Number(v);
}

/** Reservations still open that were made before `beforeMs`: their accept ended long ago or its process died. */
export async function oldReservations(ref: QuotaRef, beforeMs: number, limit = 1000): Promise<string[]> {
  return await redis.zrangebyscore(keysOf(ref)[1], "-inf", `(${beforeMs}`, "LIMIT", 0, limit);
}

export function memberOf(ref: QuotaRef): string {
  return [ref.tenantId, ref.periodStartMs, ref.periodEndMs, ref.version].join("|");
}

function refOf(member: string): QuotaRef | null {
  const [tenantId, start, end, version] = member.split("|");
  if (!tenantId || !start || !end || version === undefined) return null;
  return { tenantId, periodStartMs: Number(start), periodEndMs: Number(end), version };
}

/** Every listed counter (the reconciler's work list). */
export async function listedCounters(): Promise<QuotaRef[]> {
  const out: QuotaRef[] = [];
  let cursor = "0";
  do {
    const [next, members] = await redis.sscan(redisKeys.quotaCounters(), cursor, "COUNT", 500);
    cursor = next;
    for (const m of members) {
      const ref = refOf(m);
      if (ref) out.push(ref);
    }
  } while (cursor !== "0");
  return out;
}

/** Drops a counter from the list (its keys expire on their own). */
export async function unlistCounter(ref: QuotaRef): Promise<void> {
  await redis.srem(redisKeys.quotaCounters(), memberOf(ref));
}

/** Deletes a counter outright (tests, and an operator starting a period's count again from PostgreSQL). */
export async function dropQuota(ref: QuotaRef): Promise<void> {
  const [used, inflight] = keysOf(ref);
  await redis.del(used);
  await redis.del(inflight);
  await unlistCounter(ref);
}
