// What every service process is started with (npm start, the benches; the Procfile repeats it on each
// line): settings Bun reads only when a process starts, so they cannot live in config.ts.
//
// BUN_JSC_useFTLJIT=0: JavaScriptCore's fourth tier (FTL) off. Under steady load its compiler thread
// kept recompiling for minutes and cost a fifth of the process's CPU, while the main thread's time per
// notification stayed the same without it (docs/operations.md "The JIT's own CPU"). An operator's own
// value in the environment wins.
export const SERVICE_ENV = Object.freeze({ BUN_JSC_useFTLJIT: "0" });

/** `env` with SERVICE_ENV's settings added where it has none of its own. */
export function withServiceEnv(env) {
  const out = { ...env };
  for (const [k, v] of Object.entries(SERVICE_ENV)) out[k] ??= v;
  return out;
}
