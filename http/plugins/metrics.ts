// Counts every answered request and its latency by method, route pattern and status
// (basics/metrics.ts): the pattern Elysia matched (/v1/notifications/:id), never the raw path.
import { Elysia } from "elysia";
import { recordHttpRequest } from "../../basics/metrics";
import { requestFacts } from "../request-context";
import { DASHBOARD_FALLBACK } from "../routes/web-assets";

export const httpMetricsPlugin = new Elysia({ name: "plugins.http-metrics" }).onAfterResponse({ as: "global" }, ({ request, set, route }) => {
  // a request no route matched has no pattern: its path is the client's choice, so it is never a label
  const status = typeof set.status === "number" ? set.status : 200;
  // the dashboard's catch-all 404s unknown API paths: for those no route really matched
  const pattern = route === DASHBOARD_FALLBACK && status === 404 ? undefined : route;
  recordHttpRequest(request.method, pattern, status, (performance.now() - requestFacts(request).startedAt) / 1000);
});
