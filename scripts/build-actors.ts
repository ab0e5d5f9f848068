// Compiles the service into one executable with its bytecode, .nms/bin/nms, for the Procfile's actor
// kinds (scripts/run-kind.sh): a restarted actor process reaches its ready line on a third of the CPU.
//
//   npm run build:actors     (again after every code change: run-kind.sh runs from source while it is older)
import { mkdirSync, renameSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..");
export const ACTOR_BINARY = join(ROOT, ".nms", "bin", "nms");

/** Builds the binary (written beside it, then renamed: a process starting meanwhile runs a whole one). */
export function buildActorBinary(): { ms: number; bytes: number } {
  const started = performance.now();
  mkdirSync(join(ROOT, ".nms", "bin"), { recursive: true });
  const tmp = `${ACTOR_BINARY}.${process.pid}.tmp`;
  const r = Bun.spawnSync([process.execPath, "build", "scripts/start.ts", "--compile", "--bytecode", "--format=esm", "--outfile", tmp], {
    cwd: ROOT,
    stdout: "pipe",
    stderr: "pipe",
  });
  if (r.exitCode !== 0) {
    rmSync(tmp, { force: true });
    throw new Error(`bun build --compile failed (${r.exitCode}): ${(r.stderr.toString() + r.stdout.toString()).slice(-2000)}`);
  }
  renameSync(tmp, ACTOR_BINARY);
  return { ms: performance.now() - started, bytes: statSync(ACTOR_BINARY).size };
}

if (import.meta.main) {
  const { ms, bytes } = buildActorBinary();
  console.log(`built ${ACTOR_BINARY} (${(bytes / 1e6).toFixed(0)} MB) in ${(ms / 1000).toFixed(1)} s; the Procfile's actor kinds start from it until a source file is newer`);
}
