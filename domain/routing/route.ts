// Which configured provider entry a send goes through (docs/routing.md): the primary, then the
// backups in order, skipping entries whose circuit is open; and where a retryable failure goes next.
import { recordCircuitSkip } from "../../basics/metrics";
import type { SendResult } from "../../providers/types";
import { admit, circuitSettings, faultOf, type CircuitRef } from "./circuit-breaker";

/** One provider a channel can send through: the primary (index 0) or a backup (index 1-3). */
export interface RouteEntry {
  /** the circuit's name: the channel configuration id for the primary, the backup entry's own id */
  id: string;
  index: number;
  role: "primary" | "failover";
  provider: string;
  credentials: Record<string, unknown>;
  settings: Record<string, unknown>;
}

export interface RouteScope {
  tenantId: string;
  environment: string;
  channel: string;
}

export type RouteChoice =
  | { kind: "entry"; entry: RouteEntry; circuit: (CircuitRef & { role: RouteEntry["role"] }) | null }
  /** every entry's circuit is open: try again in waitMs (the soonest cool-down's end), calling nobody now */
  | { kind: "all_open"; waitMs: number };

export function circuitOf(scope: RouteScope, e: RouteEntry): CircuitRef & { role: RouteEntry["role"] } {
  return { tenantId: scope.tenantId, environment: scope.environment, channel: scope.channel, entryId: e.id, provider: e.provider, role: e.role };
}

/**
 * The entry to call: from `start` (a failover retry starts past the entry that failed) through the
 * last, then from the primary, the first whose circuit admits a call (closed, or its half-open
 * probe). A channel without backups has no circuit: there is nowhere else to send, and the retry
 * back-off already holds off from a failing provider.
 */
export async function chooseEntry(scope: RouteScope, entries: RouteEntry[], start = 0): Promise<RouteChoice> {
  if (entries.length === 0) throw new Error("chooseEntry: no entries");
  if (entries.length === 1) return { kind: "entry", entry: entries[0]!, circuit: null };
  const from = start > 0 && start < entries.length ? start : 0;
  const order = [...entries.slice(from), ...entries.slice(0, from)];
  let soonest = Infinity;
  for (const entry of order) {
    const circuit = circuitOf(scope, entry);
    const a = await admit(circuit);
    if (a.verdict !== "open") return { kind: "entry", entry, circuit };
    recordCircuitSkip(scope.channel, entry.provider);
    soonest = Math.min(soonest, a.openedAtMs + circuitSettings().cooldownMs - a.nowMs);
  }
  return { kind: "all_open", waitMs: Math.max(250, Math.min(soonest, circuitSettings().cooldownMs)) };
}

/**
 * After a failed call through `entry`: the index of the entry the next attempt starts from at once
 * (no back-off), or null to wait out the back-off from the primary. Only a retryable failure of a
 * channel with a backup after this entry fails over.
 */
export function failoverAfter(entries: RouteEntry[], entry: RouteEntry, result: SendResult): number | null {
  if (result.ok || !result.retryable || faultOf(result) !== "provider") return null;
  return entry.index + 1 < entries.length ? entry.index + 1 : null;
}
