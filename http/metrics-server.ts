// The metrics listener of processes without the API (actor kinds): GET /metrics on METRICS_PORT,
// the same answer and token rule as the API's route; anything else is a standard 404 body.
import { logger } from "../basics/log";
import { AppError } from "../basics/errors";
import { collectMetrics } from "../store/metrics";
import { errorBody, statusFor } from "./plugins/errors";
import { assertMetricsToken } from "./plugins/auth";

function errorResponse(code: string, message: string): Response {
  return Response.json(errorBody(code, message), { status: statusFor(code) });
}

export function startMetricsServer(port: number, hostname = "0.0.0.0") {
  const server = Bun.serve({
    port,
    hostname,
    async fetch(request) {
      const path = new URL(request.url).pathname;
      if (path !== "/metrics" || (request.method !== "GET" && request.method !== "HEAD")) {
        return errorResponse("not_found", `No route for ${request.method} ${path}; this port serves GET /metrics only`);
      }
      try {
        assertMetricsToken(request);
        const { contentType, text } = await collectMetrics();
        return new Response(text, { headers: { "content-type": contentType, "cache-control": "no-store" } });
      } catch (err) {
        if (err instanceof AppError) return errorResponse(err.code, err.message);
        logger.error({ err }, "metrics listener failed");
        return errorResponse("internal_error", "metrics could not be collected");
      }
    },
  });
  logger.info({ port: server.port }, "metrics listening");
  return {
    port: server.port as number,
    url: `http://localhost:${server.port}`,
    async stop() {
      await server.stop(true);
    },
  };
}
