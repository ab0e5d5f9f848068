// GET /health: liveness of the service and its two dependencies, for uptime checks.
// 200 {status: "ok"} when PostgreSQL and Redis answer, 503 {status: "degraded"} otherwise.
import { Elysia, t } from "elysia";
import { config } from "../../config";
import { pingPostgres } from "../../store/db";
import { pingRedis } from "../../store/redis";
import { accessPlugin } from "../plugins/access";

const Check = t.Object({ status: t.Union([t.Literal("ok"), t.Literal("down")]), latency_ms: t.Number() });
const Report = (description: string, example: Record<string, unknown>) =>
  t.Object({ status: t.String(), checks: t.Object({ postgres: Check, redis: Check }), version: t.String() }, { description, examples: [example] });
const up = { status: "ok", latency_ms: 0.6 };

async function timed(fn: () => Promise<boolean>) {
  const start = performance.now();
  const ok = await fn();
  return { status: ok ? ("ok" as const) : ("down" as const), latency_ms: Math.round((performance.now() - start) * 10) / 10 };
}

export const healthRoutes = new Elysia({ name: "routes.health" }).use(accessPlugin).get(
  "/health",
  async ({ set }) => {
    const [postgres, redis] = await Promise.all([timed(() => pingPostgres()), timed(() => pingRedis())]);
    const ok = postgres.status === "ok" && redis.status === "ok";
    set.status = ok ? 200 : 503;
    return { status: ok ? ("ok" as const) : ("degraded" as const), checks: { postgres, redis }, version: config.version };
  },
  {
    access: "public",
    detail: { summary: "Service health", description: "200 with status ok when PostgreSQL and Redis both answer; 503 with status degraded and the failing check otherwise. Uptime checks and load balancers call it; it needs no credentials.", tags: ["service"] },
    response: {
      200: Report("Both dependencies answer", { status: "ok", checks: { postgres: up, redis: up }, version: "0.1.0" }),
      503: Report("A dependency is down: status degraded (the report, not the error body)", {
        status: "degraded",
        checks: { postgres: up, redis: { status: "down", latency_ms: 1000.2 } },
        version: "0.1.0",
      }),
    },
  },
);
