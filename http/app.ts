// Builds the Elysia application: error mapper, OpenAPI document and /docs, every route plugin.
// Tests call buildApp().handle(request); http/server.ts listens with it.
import { Elysia } from "elysia";
import { config } from "../config";
import { edgePlugins } from "./plugins/edge";
import { corsPlugin } from "./plugins/cors";
import { idempotencyPlugin } from "./plugins/idempotency";
import { readRoutingPlugin } from "./plugins/read-routing";
import { httpMetricsPlugin } from "./plugins/metrics";
import { routePlugins } from "./routes";
import { apiReferenceRoutes } from "./routes/api-reference";
import { OUTBOUND_WEBHOOKS, SECURITY, SECURITY_SCHEMES } from "./route-docs";

export function buildApp() {
  // normalize "typebox" (TypeBox Clean), not Elysia's default exact mirror: the mirror runs before
  // validation and rebuilds a string or array sent for an object field as {"0": ...}, which then
  // passes (credentials "abc" was stored as {"0":"a","1":"b","2":"c"}). Clean leaves wrong types
  // for the check to refuse and still strips undeclared response fields.
  let app = new Elysia({ name: "nms", normalize: "typebox" })
    .use(idempotencyPlugin)
    .use(readRoutingPlugin)
    .use(edgePlugins)
    .use(corsPlugin)
    .use(httpMetricsPlugin)
    .use(
      apiReferenceRoutes({
        info: {
          title: "NMS notification service",
          version: config.version,
          description: "Multi-tenant notifications over email, WhatsApp, SMS, push and in-app inbox.",
        },
        components: { securitySchemes: SECURITY_SCHEMES },
        security: SECURITY.key,
        webhooks: OUTBOUND_WEBHOOKS,
      }),
    );
  for (const plugin of routePlugins) app = app.use(plugin as any);
  return app;
}

export type App = ReturnType<typeof buildApp>;
