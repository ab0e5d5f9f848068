// Questions tests ask the local machine about processes and ports: is this pid still running, is
// this port free to listen on (at the address the process under test will bind).
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
