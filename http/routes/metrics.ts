// GET /metrics: the process's Prometheus text exposition (basics/metrics.ts, store/metrics.ts),
// behind Authorization: Bearer <METRICS_TOKEN> when that is set. The actor processes' own listener
// (http/metrics-server.ts) answers with the same function.
import { Elysia, t } from "elysia";
import { collectMetrics } from "../../store/metrics";
import { accessPlugin } from "../plugins/access";
import { errors } from "../route-docs";

export const metricsRoutes = new Elysia({ name: "routes.metrics" }).use(accessPlugin).get(
  "/metrics",
  async ({ set }) => {
    const { contentType, text } = await collectMetrics();
    set.headers["content-type"] = contentType;
    set.headers["cache-control"] = "no-store";
    return text;
  },
  {
    access: "metrics",
    response: {
      200: t.String({
        description: "Prometheus text exposition format 0.0.4",
        examples: ['# HELP nms_http_requests_total HTTP requests answered\n# TYPE nms_http_requests_total counter\nnms_http_requests_total{method="POST",route="/v1/notifications",status="202"} 1042\n'],
      }),
      ...errors(401),
    },
    detail: {
      summary: "Prometheus metrics of this process (Bearer METRICS_TOKEN when set)",
      description: "Every metric and the alert to set on it: docs/operations.md.",
      tags: ["operations"],
    },
  },
);
