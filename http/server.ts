// Listens with the Elysia app on PORT via Bun.serve; returns a handle that stops gracefully.
import { buildApp } from "./app";
import { logger } from "../basics/log";
import { MAX_BODY_BYTES } from "./plugins/errors";
import { closeInboxStreams } from "./routes/inbox";

export function startServer(port: number, hostname = "0.0.0.0") {
  const app = buildApp();
  // Bun refuses bodies far above our limit itself; our own 413 covers the rest
  app.listen({ port, hostname, maxRequestBodySize: MAX_BODY_BYTES * 4, idleTimeout: 120 });
  const server = app.server!;
  logger.info({ port: server.port }, "http listening");
  return {
    app,
    port: server.port as number,
    url: `http://localhost:${server.port}`,
    async stop() {
      closeInboxStreams(); // open SSE streams never finish by themselves; clients resume elsewhere
      await app.stop();
    },
  };
}
