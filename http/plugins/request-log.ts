// The request log: one `request` line per response with the request id, method, path, the status
// as sent (a redirect is its 302, not 200), duration, and who asked: tenant, environment and the
// key's prefix (or the dashboard user). Nothing is built when info is off.
import { Elysia } from "elysia";
import { logger } from "../../basics/log";
import { requestFacts } from "../request-context";
import { authOf } from "./auth";

/** The status the client received: a handler may answer with a Response of its own (redirects do). */
function sentStatus(responseValue: unknown, status: unknown): unknown {
  return responseValue instanceof Response ? responseValue.status : (status ?? 200);
}

export const requestLogPlugin = new Elysia({ name: "plugins.request-log" })
  .onAfterResponse({ as: "global" }, ({ request, set, responseValue }) => {
    if (!logger.isLevelEnabled("info")) return; // the hot path builds nothing it will not log
    const f = requestFacts(request);
    const ms = Math.round((performance.now() - f.startedAt) * 10) / 10;
    const auth = authOf(request);
    logger.info(
      {
        request_id: f.id,
        method: request.method,
        path: new URL(request.url).pathname,
        status: sentStatus(responseValue, set.status),
        ms,
        ...(auth
          ? {
              tenant_id: auth.tenantId,
              environment: auth.environment,
              ...(auth.keyPrefix ? { key_prefix: auth.keyPrefix } : { user_id: auth.actorId }),
            }
          : {}),
      },
      "request",
    );
  });
