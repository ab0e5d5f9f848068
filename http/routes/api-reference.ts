// GET /openapi.json (the OpenAPI 3.1 document generated from every route's schemas) and GET /docs
// (Swagger UI served from the swagger-ui-dist package, so the reference works with no network).
import { Elysia } from "elysia";
import { toOpenAPISchema } from "@elysiajs/openapi";
import { createRequire } from "node:module";
import { dirname } from "node:path";
import { notFound } from "../../basics/errors";
import { parseBody } from "../plugins/body-parser";
import { builtFile } from "./web-assets";
import { accessPlugin, RATE_LIMITED_RULES, type AccessRule } from "../plugins/access";
import { IDEMPOTENT_POST_RE } from "../plugins/idempotency";
import { API_TAGS, INTERNAL_TAGS } from "../route-docs";

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

/** Elysia's `t.Integer`/`t.Numeric` schema variant: the string it converts to the number. */
const isConversion = (v: any) => v?.type === "string" && (v.format === "integer" || v.format === "numeric");

/**
 * Integers as integers: Elysia's `t.Integer` is a union of the number and a string it converts, so the
 * generator wrote every integer as `anyOf: [string (format integer), integer]`. A JSON body's string is
 * refused (http/plugins/body-shape.ts), and a query or path parameter is text in the URL whatever its
 * type says, so the document shows the number alone (with the union's bounds and description).
 */
function withoutConversions<T>(node: T): T {
  if (Array.isArray(node)) {
    node.forEach(withoutConversions);
    return node;
  }
  if (!node || typeof node !== "object") return node;
  const o = node as Record<string, any>;
  if (Array.isArray(o.anyOf) && o.anyOf.some(isConversion)) {
    const kept = o.anyOf.filter((v: any) => !isConversion(v));
    if (kept.length === 1 && kept[0] && typeof kept[0] === "object") {
      delete o.anyOf;
      Object.assign(o, { ...kept[0], ...o });
    } else o.anyOf = kept;
  }
  for (const v of Object.values(o)) withoutConversions(v);
  return node;
}

const METHODS = ["get", "put", "post", "delete", "patch", "head", "options", "trace"];

/** Headers and parameters the decoration adds to operations. */
const SHARED_COMPONENTS = {
  parameters: {
    IdempotencyKey: {
      name: "Idempotency-Key",
      in: "header",
      required: false,
      description:
        "Any string up to 255 characters, unique per intended operation (a UUID). Retrying with the same key and body within 24 hours answers the first response again, byte for byte, with `Idempotent-Replayed: true`; the same key with another body is 422 `idempotency_key_reused`, and while the first request still runs, 409 `idempotency_key_in_use`.",
      schema: { type: "string", maxLength: 255 },
      example: "3f1c2a9e-7b4d-4e0a-9c61-2d8f5b7a1e34",
    },
  },
  headers: {
    "X-RateLimit-Limit": { description: "Requests per minute allowed to this API key (or dashboard user): the tenant plan's rate", schema: { type: "integer" } },
    "X-RateLimit-Remaining": { description: "Requests left in the current window", schema: { type: "integer" } },
    "X-RateLimit-Reset": { description: "Unix time (seconds) when the budget is full again", schema: { type: "integer" } },
    "Retry-After": { description: "Seconds to wait before retrying", schema: { type: "integer" } },
    "Idempotent-Replayed": { description: "true when this is the stored answer to an earlier request with the same Idempotency-Key", schema: { type: "string", enum: ["true"] } },
  },
};

// written out, not $ref'd: Swagger UI resolves every reference on its own, and a few hundred of them
// tripled the time /docs takes to draw
const headerRef = (name: keyof typeof SHARED_COMPONENTS.headers) => SHARED_COMPONENTS.headers[name];

/**
 * What the routes' own options do not say, added from the same rules the service applies: the
 * Idempotency-Key parameter on the POSTs that honour it (IDEMPOTENT_POST_RE), the rate-limit headers
 * on every answer of a rate-limited access rule (and Retry-After on its 429), the sections (API_TAGS)
 * and the paths ordered by section, internal routes last.
 */
function decorate<P extends Record<string, any>>(paths: P): P {
  const rank = (tag: string | undefined) => {
    const i = API_TAGS.findIndex((t) => t.name === tag);
    return i < 0 ? API_TAGS.length : i;
  };
  for (const [path, item] of Object.entries<Record<string, any>>(paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      if (method === "post" && IDEMPOTENT_POST_RE.test(path)) {
        op.parameters = [...(op.parameters ?? []), SHARED_COMPONENTS.parameters.IdempotencyKey];
        for (const [status, r] of Object.entries<any>(op.responses ?? {})) {
          if (/^2\d\d$/.test(status)) op.responses[status] = { ...r, headers: { ...r.headers, "Idempotent-Replayed": headerRef("Idempotent-Replayed") } };
        }
      }
      if (RATE_LIMITED_RULES.has(op["x-access"] as AccessRule)) {
        for (const [status, r] of Object.entries<any>(op.responses ?? {})) {
          // 401 and 403 are answered before the budget is read
          if (status === "401" || status === "403") continue;
          const headers = { ...r.headers, "X-RateLimit-Limit": headerRef("X-RateLimit-Limit"), "X-RateLimit-Remaining": headerRef("X-RateLimit-Remaining"), "X-RateLimit-Reset": headerRef("X-RateLimit-Reset") };
          if (status === "429") headers["Retry-After"] = headerRef("Retry-After");
          op.responses[status] = { ...r, headers };
        }
      }
    }
  }
  const sectionOf = (item: Record<string, any>) => Math.min(...METHODS.map((m) => rank(item[m]?.tags?.[0])));
  const internal = new Set(INTERNAL_TAGS.map(rank));
  const ordered = Object.entries<Record<string, any>>(paths)
    .map(([path, item], i) => ({ path, item, i, section: sectionOf(item) }))
    // stable: within a section the routes keep their registration order
    .sort((a, b) => Number(internal.has(a.section)) - Number(internal.has(b.section)) || a.section - b.section || a.i - b.i);
  return Object.fromEntries(ordered.map(({ path, item }) => [path, item])) as P;
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
          tags: API_TAGS.map((t) => ({ ...t })),
          // a copy: the generator may hand out the routes' own schema objects, which validate requests
          paths: decorate(fixResponses(withoutConversions(JSON.parse(JSON.stringify(paths)) as typeof paths))),
          components: {
            ...documentation.components,
            schemas: { ...components.schemas, ...documentation.components?.schemas },
          },
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
