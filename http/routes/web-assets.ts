// The browser code scripts/build-web.ts builds into .nms/web/: GET /embed/<file> (the inbox web
// component, loadable by any page) and the dashboard at / (its files under /assets/, index.html for every other page path).
import { Elysia, t } from "elysia";
import { existsSync } from "node:fs";
import { extname, join, normalize, sep } from "node:path";
import { AppError, notFound } from "../../basics/errors";
import { errors } from "../route-docs";
import { accessPlugin } from "../plugins/access";

/** The build output folder; scripts/build-web.ts writes the same one (WEB_BUILD_DIR there). */
export const WEB_BUILD_DIR = join(import.meta.dir, "..", "..", ".nms", "web");

/**
 * Top-level paths the API owns. The dashboard served at / answers index.html only for other paths
 * (DASHBOARD_ROUTES: `GET /*` checks isApiPath first), so an unknown API path keeps its JSON 404.
 * test/http/web-assets.test.ts fails when a route outside this list and DASHBOARD_ROUTES appears.
 */
export const API_PATH_PREFIXES = ["/v1", "/api", "/api-keys", "/auth", "/webhooks", "/unsubscribe", "/preferences", "/health", "/openapi.json", "/docs", "/embed", "/track", "/metrics"];

export function isApiPath(pathname: string): boolean {
  return API_PATH_PREFIXES.some((p) => pathname === p || pathname.startsWith(`${p}/`));
}

const CONTENT_TYPES: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".map": "application/json; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".html": "text/html; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".woff2": "font/woff2",
};

export interface ServeOptions {
  /** Extra response headers (CORS, caching policy). */
  headers?: Record<string, string>;
}

/**
 * The built file `<dir>/<relPath>` as a response with its content type and an ETag (size and
 * mtime; a conditional GET gets 304). 503 when `<dir>` was never built, 404 for an unknown file
 * or a path that leaves the folder.
 */
export async function builtFile(request: Request, dir: string, relPath: string, opts: ServeOptions = {}, root = WEB_BUILD_DIR): Promise<Response> {
  const base = join(root, dir);
  if (!existsSync(base)) {
    throw new AppError("service_unavailable", `The web assets are not built: run \`node_modules/.bin/bun scripts/build-web.ts\` (npm start and npm test do it)`);
  }
  const full = normalize(join(base, relPath));
  const type = CONTENT_TYPES[extname(full)];
  const file = Bun.file(full);
  if (!full.startsWith(base + sep) || relPath.includes("\0") || !type || !(await file.exists())) {
    throw notFound("not_found", `No file ${new URL(request.url).pathname}`);
  }
  const etag = `W/"${file.size.toString(16)}-${Math.floor(file.lastModified).toString(16)}"`;
  const headers = { ...opts.headers, etag, "content-type": type, "x-content-type-options": "nosniff" };
  const match = request.headers.get("if-none-match");
  if (match && match.split(",").some((t) => t.trim() === etag)) return new Response(null, { status: 304, headers });
  return new Response(file, { status: 200, headers });
}

/** Any page may load the embed: CORS *, and revalidated every 5 minutes (its name never changes). */
const EMBED_HEADERS = {
  "access-control-allow-origin": "*",
  "cross-origin-resource-policy": "cross-origin",
  "cache-control": "public, max-age=300, stale-while-revalidate=3600",
};

/** The dashboard's catch-all: page paths get index.html, API paths a 404 as if no route matched. */
export const DASHBOARD_FALLBACK = "/*";
/** The dashboard's own routes: everything under / that isApiPath leaves to it. */
export const DASHBOARD_ROUTES = ["/", "/assets/*", DASHBOARD_FALLBACK] as const;

/**
 * The dashboard page: revalidated on every load (its file names never change), never framed,
 * scripts and API calls from this origin only (the dashboard talks to the API it is served by).
 * Inline styles are allowed: the template editor renders an email's HTML (which styles inline) in
 * a sandboxed frame that inherits this policy; scripts never run there.
 */
const DASHBOARD_PAGE_HEADERS = {
  "cache-control": "no-cache",
  "content-security-policy":
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; " +
    "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'",
  "x-frame-options": "DENY",
  "referrer-policy": "same-origin",
};
const DASHBOARD_ASSET_HEADERS = { "cache-control": "no-cache" };

export function webAssetRoutes(root = WEB_BUILD_DIR) {
  const page = (request: Request) => builtFile(request, "dashboard", "index.html", { headers: DASHBOARD_PAGE_HEADERS }, root);
  const pageResponse = {
    200: t.String({
      contentMediaType: "text/html",
      description: "The dashboard's index.html; ETag, 304 on If-None-Match",
      examples: ['<!doctype html><html lang="en"><head>... <script type="module" src="/assets/app.js"></script> ...'],
    }),
    304: t.Void({ description: "Not modified (If-None-Match matched the ETag)" }),
    ...errors(404, 503),
  };
  return new Elysia({ name: "routes.web-assets", seed: root }).use(accessPlugin)
    .get(
      "/embed/*",
      ({ request, params }) => builtFile(request, "embed", params["*"], { headers: EMBED_HEADERS }, root),
      {
        access: "public",
        response: {
          200: t.String({ contentMediaType: "text/javascript", description: "The file; ETag, 304 on If-None-Match", examples: ["/* <nms-inbox> */ ..."] }),
          304: t.Void({ description: "Not modified (If-None-Match matched the ETag)" }),
          ...errors(404, 503),
        },
        detail: {
          tags: ["service"],
          summary: "Built browser files: /embed/nms-inbox.js is the <nms-inbox> web component (docs/inbox-embed.md)", description: "Static files with caching headers (ETag); the inbox widget loads from here.",
        },
      },
    )
    .get("/", ({ request }) => page(request), {
      access: "public",
      response: pageResponse,
      detail: { tags: ["service"], summary: "The dashboard (docs/dashboard.md)", description: "The dashboard's page; it signs in with a magic link or OAuth and calls this API with its session cookie." },
    })
    .get("/assets/*", ({ request, params }) => builtFile(request, "dashboard", params["*"], { headers: DASHBOARD_ASSET_HEADERS }, root), {
      access: "public",
      response: {
        200: t.String({ description: "The dashboard's script (app.js), styles (app.css) or source map; ETag, 304 on If-None-Match", examples: ["/* app.js */ ..."] }),
        304: t.Void({ description: "Not modified (If-None-Match matched the ETag)" }),
        ...errors(404, 503),
      },
      detail: { tags: ["service"], summary: "The dashboard's script, styles and source map", description: "Static files with caching headers (ETag)." },
    })
    .get(
      DASHBOARD_FALLBACK,
      ({ request }) => {
        const path = new URL(request.url).pathname;
        // an unknown API path keeps the API's own answer; only page paths get the dashboard
        if (isApiPath(path)) throw notFound("not_found", `No route for GET ${path}`);
        return page(request);
      },
      {
        access: "public",
        response: pageResponse,
        detail: { tags: ["service"], summary: "Dashboard pages (/notifications/<id> ...): the dashboard, which routes in the browser", description: "Any other path that is not an API path answers the dashboard's page, so links into it can be opened directly." },
      },
    );
}
