// Pure lease-balancing decisions: how many partitions a host should hold and which ones to
// take or give back. No Redis here, so the rules are unit-tested (test/unit/runtime-balance.test.ts).
import { fnv1a32 } from "./partition";

/** Each live host aims for ceil(P / live): two hosts split 16 as 8/8, three as 6/6/4. */
export function leaseTarget(partitions: number, liveHosts: number): number {
  return Math.ceil(partitions / Math.max(1, liveHosts));
}

/**
 * The order in which a host prefers partitions: a rotation starting at a point derived from its
 * id, so different hosts reach for different partitions first and rebalancing moves few of them.
 */
export function preferenceOrder(hostId: string, partitions: number): number[] {
  const start = fnv1a32(hostId) % partitions;
  return Array.from({ length: partitions }, (_, i) => (start + i) % partitions);
}

export interface LeasePlan {
  acquire: number[];
  release: number[];
}

/**
 * owned: partitions this host holds (not counting ones already being released);
 * free: partitions nobody holds. Surplus goes back least-preferred first; a deficit is filled
 * from free partitions most-preferred first.
 */
export function planLeases(opts: { owned: number[]; free: number[]; target: number; order: number[] }): LeasePlan {
  const rank = new Map(opts.order.map((p, i) => [p, i]));
  const byPreference = (a: number, b: number) => (rank.get(a) ?? 0) - (rank.get(b) ?? 0);
  if (opts.owned.length > opts.target) {
    const owned = [...opts.owned].sort(byPreference);
    return { acquire: [], release: owned.slice(opts.target).reverse() };
  }
  const ownedSet = new Set(opts.owned);
  const free = opts.free.filter((p) => !ownedSet.has(p)).sort(byPreference);
  return { acquire: free.slice(0, opts.target - opts.owned.length), release: [] };
}
