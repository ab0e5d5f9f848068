// Spawns a separate API process (test/support/api-process-main.ts) with extra environment and
// resolves once it listens; tests use it for multi-process behaviour and dependency failures.
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { PROCESS_START_MS, stopChild } from "./spawn-ready";

const root = join(import.meta.dir, "..", "..");

export interface ApiProcess {
  url: string;
  port: number;
  child: ChildProcess;
  stop(): Promise<void>;
}

export async function startApiProcess(env: Record<string, string> = {}): Promise<ApiProcess> {
  const child = spawn(join(root, "node_modules", ".bin", "bun"), [join(root, "test/support/api-process-main.ts")], {
    cwd: root,
    env: { ...process.env, PORT: "0", LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const started = new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`API process did not start:\n${output}`)), PROCESS_START_MS);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const m = /listening (\d+)/.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", (c: Buffer) => (output += c.toString()));
    child.once("exit", (code) => reject(new Error(`API process exited ${code}:\n${output}`)));
  });
  let port: number;
  try {
    port = await started;
  } catch (err) {
    await stopChild(child, 0); // never returned to the caller: gone before this throws
    throw err;
  }
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    child,
    async stop() {
      await stopChild(child, 5000); // resolves once it has exited, after the SIGKILL too
    },
  };
}
