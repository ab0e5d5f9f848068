// A named lease for work that one process of many must do at a time (the reconciler's scan, a
// cron tick): the same Lua scripts as partition leases, so there is one lease implementation.
import { forgetHostId, newHostId, provablyDead } from "./host-identity";
import type { Runtime } from "./types";

export interface NamedLease {
  readonly key: string;
  readonly holder: string;
  /** Takes the lease when free, renews it when held; resolves whether this holder has it now. */
  hold(): Promise<boolean>;
  /** Gives it back (only when this holder has it). */
  release(): Promise<void>;
}

export function createLease(
  runtime: Runtime,
  name: string,
  opts: {
    ttlMs: number;
    holder?: string;
    /**
     * Take the lease at once from a holder proven dead (a process of this machine that is gone,
     * runtime/host-identity.ts) instead of after its ttl: for leases that only keep one process at
     * a time on a job (docs/runtime.md "Takeover in seconds"), not for a lease that marks work done.
     */
    takeFromDead?: boolean;
  },
): NamedLease {
  const key = runtime.keys.namedLease(name);
  // a host id (hostname, pid, pid namespace) when the lease may be taken from a dead holder, so a
  // restarted process can prove this one dead in turn
  const holder = opts.holder ?? (opts.takeFromDead ? newHostId() : `${process.pid}-${Math.random().toString(36).slice(2, 10)}`);
  return {
    key,
    holder,
    async hold() {
      if (Number(await runtime.redis.nmsRuntime_renewLease(key, holder, opts.ttlMs, 1)) === 1) return true;
      if (!opts.takeFromDead) return false;
      const current = await runtime.redis.get(key);
      if (!current || !provablyDead(current)) return false;
      // compare-and-set on the dead holder's id: a live process that won it meanwhile keeps it
      return Number(await runtime.redis.nmsRuntime_takeLease(key, current, holder, opts.ttlMs)) === 1;
    },
    async release() {
      await runtime.redis.nmsRuntime_releaseLease(key, holder);
      if (opts.takeFromDead && !opts.holder) forgetHostId(holder);
    },
  };
}
