// The browser code scripts/build-web.ts builds into .nms/web/: GET /embed/<file> (the inbox web
// component, loadable by any page), and isApiPath for a later dashboard's SPA fallback at /.
import { Elysia } from "elysia";
import { existsSync } from "node:fs";
import { extname, join, normalize, sep } from "node:path";
import { AppError, notFound } from "../../basics/errors";

/** The build output folder; scripts/build-web.ts writes the same one (WEB_BUILD_DIR there). */
export const WEB_BUILD_DIR = join(import.meta.dir, "..", "..", ".nms", "web");

/**
 * Top-level paths the API owns. A dashboard served at / answers index.html only for other paths
 * (a `GET /*` route checking isApiPath, then builtFile(..., "dashboard", "index.html")), so an
 * unknown API path keeps its JSON 404. test/http/web-assets.test.ts fails when a route outside
 * this list appears.
 */
export const API_PATH_PREFIXES = ["/v1", "/api", "/api-keys", "/auth", "/webhooks", "/unsubscribe", "/health", "/openapi.json", "/docs", "/embed", "/track", "/metrics"];

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

export function webAssetRoutes(root = WEB_BUILD_DIR) {
  return new Elysia({ name: "routes.web-assets", seed: root }).get(
    "/embed/*",
    ({ request, params }) => builtFile(request, "embed", params["*"], { headers: EMBED_HEADERS }, root),
    { detail: { tags: ["public"], summary: "Built browser files: /embed/nms-inbox.js is the <nms-inbox> web component (docs/inbox-embed.md)" } },
  );
}
