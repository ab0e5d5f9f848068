// Builds the Elysia application: error mapper, OpenAPI document, every route plugin.
// Tests call buildApp().handle(request); http/server.ts listens with it.
import { Elysia } from "elysia";
import { openapi } from "@elysiajs/openapi";
import { config } from "../config";
import { errorsPlugin } from "./plugins/errors";
import { corsPlugin } from "./plugins/cors";
import { idempotencyPlugin } from "./plugins/idempotency";
import { routePlugins } from "./routes";

export function buildApp() {
  let app = new Elysia({ name: "nms" })
    .use(idempotencyPlugin)
    .use(errorsPlugin)
    .use(corsPlugin)
    .use(
      openapi({
        path: "/docs",
        specPath: "/openapi.json",
        provider: "scalar",
        documentation: {
          info: {
            title: "NMS notification service",
            version: config.version,
            description: "Multi-tenant notifications over email, WhatsApp, SMS, push and in-app inbox.",
          },
          components: {
            securitySchemes: { bearer: { type: "http", scheme: "bearer", description: "API key nk_/pk_ or admin token" } },
          },
          security: [{ bearer: [] }],
        },
      }),
    );
  for (const plugin of routePlugins) app = app.use(plugin as any);
  return app;
}

export type App = ReturnType<typeof buildApp>;
