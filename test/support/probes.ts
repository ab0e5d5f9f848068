// Questions tests ask the local machine about processes and ports: is this pid still running, which
// children does a process still have, is this port free to listen on (at the address the process under test will bind).
import { readdirSync, readFileSync } from "node:fs";
import net from "node:net";

/** Signal 0: delivers nothing, only says whether the process exists (and is ours to signal). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Whether a listener can bind `port` on `host` right now (it is closed again at once). */
export function portFree(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once("error", () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

/** The live (not zombie) children of `pid`, with their command lines; none where /proc is missing. */
export function childProcessesOf(pid: number): { pid: number; cmd: string }[] {
  let names: string[];
  try {
    names = readdirSync("/proc").filter((n) => /^\d+$/.test(n));
  } catch {
    return [];
  }
  const children: { pid: number; cmd: string }[] = [];
  for (const name of names) {
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      // after the command's closing parenthesis: state, ppid, ...
      const [state, ppid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(ppid) !== pid || state === "Z") continue;
      children.push({ pid: Number(name), cmd: readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0").join(" ").trim() });
    } catch {
      // it exited while we looked
    }
  }
  return children;
}
