// Host ids that say where their process runs (`<hostname>-<pid>-<random>@<pid namespace>`), and the
// one proof of death the runtime accepts before its lease expires: same machine, and that pid is gone.
import { readFileSync, readlinkSync } from "node:fs";
import { hostname } from "node:os";

function pidNamespace(): string | null {
  try {
    return /\[(\d+)\]/.exec(readlinkSync("/proc/self/ns/pid"))?.[1] ?? null;
  } catch {
    return null; // no /proc (macOS): ids carry no namespace and are never proven dead
  }
}
const NS = pidNamespace();
const HOST = hostname();
/** Ids of the hosts running in this process now (several hosts share one pid under `npm start`). */
const ours = new Set<string>();

/** A fresh host id for this process; registered as alive until released. */
export function newHostId(): string {
  const id = `${HOST}-${process.pid}-${Math.random().toString(36).slice(2, 8)}${NS ? `@${NS}` : ""}`;
  ours.add(id);
  return id;
}

export function forgetHostId(id: string): void {
  ours.delete(id);
}

/**
 * True only when `id` is a host of this machine and pid namespace whose process is gone (or a
 * zombie): it can never renew a lease, ack or run a handler again, so its leases may be taken at
 * once. Any doubt (another machine, an id given by hand, a pid alive, possibly reused) is false:
 * those leases are taken when they expire.
 */
export function provablyDead(id: string): boolean {
  if (!NS) return false;
  const m = /^(.+)-(\d+)-[a-z0-9]+@(\d+)$/.exec(id);
  if (!m || m[1] !== HOST || m[3] !== NS) return false;
  const pid = Number(m[2]);
  if (pid === process.pid) return !ours.has(id); // a host of this process that is not running here, or a predecessor with our pid
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state === "Z" || state === "X";
  } catch {
    return true; // no such process in this namespace
  }
}

/** Whether `id` names a host of this machine's pid namespace (other than this process's live hosts). */
export function isLocalPeer(id: string): boolean {
  if (!NS || ours.has(id)) return false;
  const m = /^(.+)-(\d+)-[a-z0-9]+@(\d+)$/.exec(id);
  return !!m && m[1] === HOST && m[3] === NS;
}
