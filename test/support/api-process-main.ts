// Entry point of a separate API process for tests that need more than one process:
// listens on PORT (0 = any) and prints "listening <port>" once ready.
import { startServer } from "../../http/server";

const server = startServer(Number(process.env.PORT ?? 0), "127.0.0.1");
console.log(`listening ${server.port}`);
process.on("SIGTERM", async () => {
  await server.stop();
  process.exit(0);
});
