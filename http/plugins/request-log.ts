// The request log: one `request` line per response with the request id, method, path, status and
// duration (at info level; nothing is built when info is off).
import { Elysia } from "elysia";
import { logger } from "../../basics/log";
import { requestFacts } from "../request-context";

export const requestLogPlugin = new Elysia({ name: "plugins.request-log" })
  .onAfterResponse({ as: "global" }, ({ request, set }) => {
    if (!logger.isLevelEnabled("info")) return; // the hot path builds nothing it will not log
    const f = requestFacts(request);
    const ms = Math.round((performance.now() - f.startedAt) * 10) / 10;
    logger.info(
      { request_id: f.id, method: request.method, path: new URL(request.url).pathname, status: set.status, ms },
      "request",
    );
  });
