// Spawns a test subprocess and resolves once it prints its ready text (the worker entry points
// print "ready <id>"); throws with what it printed when it exits first or takes too long; stops a
// child and waits for its exit. Also the workers' side: print "ready <id>" when up, exit 0 on SIGTERM.
import type { Subprocess } from "bun";
import type { ChildProcess } from "node:child_process";

/**
 * How long a test's subprocess may take to print its ready line: a second or two on a quiet machine,
 * past 20 s with the suite beside other work on 2 cores (load 20 and more), where 10-20 s bounds failed.
 */
export const PROCESS_START_MS = 45_000;

export async function spawnUntilReady(
  cmd: string[],
  opts: { cwd: string; env: Record<string, string | undefined>; ready: string; timeoutMs?: number },
): Promise<Subprocess<"ignore", "pipe", "inherit">> {
  const proc = Bun.spawn(cmd, { cwd: opts.cwd, env: opts.env, stdout: "pipe", stderr: "inherit" });
  const reader = proc.stdout.getReader();
  let out = "";
  let late = false;
  // a read that never returns is ended too: the kill closes stdout
  const timer = setTimeout(() => {
    late = true;
    proc.kill("SIGKILL");
  }, opts.timeoutMs ?? PROCESS_START_MS);
  try {
    while (!out.includes(opts.ready)) {
      const { value, done } = await reader.read();
      if (late) throw new Error(`${cmd.join(" ")} did not print "${opts.ready}": ${out}`);
      if (done) throw new Error(`${cmd.join(" ")} exited before "${opts.ready}": ${out}`);
      out += new TextDecoder().decode(value);
    }
  } catch (err) {
    // not returned to the caller, so gone before this throws
    proc.kill("SIGKILL");
    await proc.exited;
    throw err;
  } finally {
    clearTimeout(timer);
    reader.releaseLock();
  }
  return proc;
}

/**
 * Stops a node:child_process child: SIGTERM, then SIGKILL after `graceMs`; resolves once it has
 * exited (at once when it had). A file awaits this for every child before it ends: a process left
 * running reads the run's streams while the next files run.
 */
export async function stopChild(child: ChildProcess, graceMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
  await exited;
  clearTimeout(timer);
}

/**
 * A worker entry point's side: on SIGTERM runs `stop` (the worker's loops, then its runtime) and
 * exits 0; prints "ready <hostId>" once `ready` resolves. The entry point, not the runtime, owns signals.
 */
export async function serveUntilSigterm(hostId: string, ready: Promise<unknown>, stop: () => Promise<unknown>): Promise<void> {
  process.on("SIGTERM", () => {
    void stop().then(() => process.exit(0));
  });
  await ready;
  console.log(`ready ${hostId}`);
}
