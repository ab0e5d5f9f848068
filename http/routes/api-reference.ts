// GET /openapi.json (the OpenAPI 3.1 document generated from every route's schemas) and GET /docs
// (Swagger UI served from the swagger-ui-dist package, so the reference works with no network).
import { Elysia } from "elysia";
import { toOpenAPISchema } from "@elysiajs/openapi";
import { createRequire } from "node:module";
import { dirname } from "node:path";
import { notFound } from "../../basics/errors";
import { parseBody } from "../plugins/body-parser";
import { builtFile } from "./web-assets";
import { accessPlugin } from "../plugins/access";

const SWAGGER_UI_DIR = dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
/** The files of the package the page loads; nothing else of node_modules is reachable. */
const VIEWER_FILES = new Set(["swagger-ui.css", "swagger-ui-bundle.js", "favicon-32x32.png"]);

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>NMS API reference</title>
<link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png">
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/init.js"></script>
</body>
</html>
`;

// A file, not an inline script, so the page's Content-Security-Policy can stay 'self' only.
const INIT = `window.ui = SwaggerUIBundle({
  url: "/openapi.json",
  dom_id: "#swagger-ui",
  deepLinking: true,
  presets: [SwaggerUIBundle.presets.apis],
  layout: "BaseLayout",
});
`;

const PAGE_HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "content-security-policy": "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'",
  "x-content-type-options": "nosniff",
};

interface Route {
  hooks?: Record<string, any>;
}
/** The root app's routes and models, which Elysia lends a mounted plugin (protected in its types). */
interface GlobalView {
  getGlobalRoutes(): Route[];
  getGlobalDefinitions(): unknown;
}

/**
 * The route as the generator should see it. @elysiajs/openapi builds a request body's media types
 * from a route's parse hooks and skips function hooks, so our global parser (a function) left every
 * body as `content: {}`. Ours takes JSON: it is shown as the named JSON parser, unless the route
 * declares its own media types (a form callback), which then speak for it.
 */
function asDocumented(route: Route): Route {
  const parse = route.hooks?.parse as { fn: unknown }[] | undefined;
  if (!parse?.some((p) => p.fn === parseBody)) return route;
  const own = parse.filter((p) => p.fn !== parseBody);
  return { ...route, hooks: { ...route.hooks, parse: own.length ? own : [{ fn: "application/json" }] } };
}

/**
 * The generator's answers fixed where it writes invalid OpenAPI: a bodiless status (t.Void) comes
 * out as `content: {type: "void"}`, and a string schema is always text/plain. A response without a
 * body has no content; a string schema with `contentMediaType` (text/html, text/event-stream)
 * is listed under that media type.
 */
function fixResponses<P extends object>(paths: P): P {
  for (const item of Object.values<Record<string, any>>(paths as Record<string, any>)) {
    for (const op of Object.values(item ?? {})) {
      for (const response of Object.values<any>(op?.responses ?? {})) {
        const content = response?.content;
        if (typeof content?.type === "string") delete response.content;
        const plain = content?.["text/plain"]?.schema;
        if (plain?.contentMediaType) response.content = { [plain.contentMediaType]: { schema: plain } };
      }
    }
  }
  return paths;
}

export function apiReferenceRoutes(documentation: Record<string, any>) {
  let cached: { routes: number; doc: Record<string, any> } | null = null;
  const plugin = new Elysia({ name: "routes.api-reference" }).use(accessPlugin);
  const root = plugin as unknown as GlobalView;
  return plugin
    .get(
      "/openapi.json",
      () => {
        const routes = root.getGlobalRoutes();
        if (cached?.routes === routes.length) return cached.doc;
        const view = { getGlobalRoutes: () => routes.map(asDocumented), getGlobalDefinitions: () => root.getGlobalDefinitions() };
        const { paths, components } = toOpenAPISchema(view as unknown as Elysia, undefined, undefined, undefined, "3.1.0");
        const doc = {
          openapi: "3.1.0",
          ...documentation,
          paths: fixResponses(paths),
          components: { ...documentation.components, schemas: { ...components.schemas, ...documentation.components?.schemas } },
        };
        cached = { routes: routes.length, doc };
        return doc;
      },
      { access: "public", detail: { hide: true } },
    )
    .get("/docs", () => new Response(PAGE, { headers: PAGE_HEADERS }), { access: "public", detail: { hide: true } })
    .get(
      "/docs/assets/:file",
      ({ params, request }) => {
        if (params.file === "init.js") {
          return new Response(INIT, { headers: { "content-type": "text/javascript; charset=utf-8", "x-content-type-options": "nosniff" } });
        }
        if (!VIEWER_FILES.has(params.file)) throw notFound("not_found", `No file /docs/assets/${params.file}`);
        return builtFile(request, ".", params.file, { headers: { "cache-control": "public, max-age=86400" } }, SWAGGER_UI_DIR);
      },
      { access: "public", detail: { hide: true } },
    );
}
