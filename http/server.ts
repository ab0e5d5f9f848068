// Listens with the Elysia app on PORT via Bun.serve; returns a handle that stops gracefully.
import { buildApp } from "./app";
import { logger } from "../basics/log";
import { closeInboxStreams } from "./routes/inbox";

export function startServer(port: number, hostname = "0.0.0.0") {
  const app = buildApp();
  // No limit of Bun's own: it would answer an empty 413 before the app runs. The app refuses a
  // Content-Length over MAX_BODY_BYTES before reading and stops reading a chunked body there
  // (http/plugins/errors.ts), with the standard error body; a body nobody reads is not buffered.
  app.listen({ port, hostname, maxRequestBodySize: Number.MAX_SAFE_INTEGER, idleTimeout: 120 });
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
