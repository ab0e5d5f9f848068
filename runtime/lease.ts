// A named lease for work that one process of many must do at a time (the reconciler's scan, a
// cron tick): the same Lua scripts as partition leases, so there is one lease implementation.
import type { Runtime } from "./types";

export interface NamedLease {
  readonly key: string;
  readonly holder: string;
  /** Takes the lease when free, renews it when held; resolves whether this holder has it now. */
  hold(): Promise<boolean>;
  /** Gives it back (only when this holder has it). */
  release(): Promise<void>;
}

export function createLease(runtime: Runtime, name: string, opts: { ttlMs: number; holder?: string }): NamedLease {
  const key = runtime.keys.namedLease(name);
  const holder = opts.holder ?? `${process.pid}-${Math.random().toString(36).slice(2, 10)}`;
  return {
    key,
    holder,
    async hold() {
      return Number(await runtime.redis.nmsRuntime_renewLease(key, holder, opts.ttlMs, 1)) === 1;
    },
    async release() {
      await runtime.redis.nmsRuntime_releaseLease(key, holder);
    },
  };
}
