// What every service process is started with (npm start, the benches; the Procfile repeats it on each
// line): settings Bun reads only when a process starts, so they cannot live in config.ts.
//
// BUN_JSC_useFTLJIT=0: JavaScriptCore's fourth tier (FTL) off. Under steady load its compiler thread
// kept recompiling for minutes and cost a fifth of the process's CPU, while the main thread's time per
// notification stayed the same without it (docs/operations.md "The JIT's own CPU").
// MIMALLOC_PURGE_HOLES_MIN_INTERVAL=1000: Bun's allocator (mimalloc 3) returns the free holes inside pages
// in use once a second instead of every 100 ms. At 100 ms its scavenger thread took a twentieth of the
// process's CPU under load, and the memory it gave back faulted in again at its next use; at 1 s the
// resident set stays the same (docs/operations.md "The allocator's scavenger").
// An operator's own value in the environment wins.
export const SERVICE_ENV = Object.freeze({ BUN_JSC_useFTLJIT: "0", MIMALLOC_PURGE_HOLES_MIN_INTERVAL: "1000" });

/** `env` with SERVICE_ENV's settings added where it has none of its own. */
export function withServiceEnv(env) {
  const out = { ...env };
  for (const [k, v] of Object.entries(SERVICE_ENV)) out[k] ??= v;
  return out;
}
