// GET /embed/* serves the built browser code (scripts/build-web.ts) with its content type, CORS *,
// caching and ETag; the dashboard at / and every page path; a missing build is a 503 in the standard
// body; isApiPath covers every API route, so an unknown API path never gets the dashboard.
import { beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Elysia } from "elysia";
import { buildWeb } from "../../scripts/build-web";
import { edgePlugins } from "../../http/plugins/edge";
import { DASHBOARD_ROUTES, isApiPath, webAssetRoutes } from "../../http/routes/web-assets";
import { app, call } from "../support/fixtures";

beforeAll(async () => {
  await buildWeb();
});

describe("GET /embed/nms-inbox.js", () => {
  test("the bundled ES module (lit inside, no bare imports) with its content type, CORS * and caching", async () => {
    const r = await call("GET", "/embed/nms-inbox.js", { headers: { origin: "https://any-page.example" } });
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(r.headers.get("access-control-allow-origin")).toBe("*");
    expect(r.headers.get("cross-origin-resource-policy")).toBe("cross-origin");
    expect(r.headers.get("cache-control")).toContain("max-age=300");
    expect(r.headers.get("x-content-type-options")).toBe("nosniff");
    expect(r.text).toContain('customElements.define("nms-inbox"');
    expect(r.text).not.toMatch(/\bfrom\s*["'](lit|@lit)/); // a browser could not resolve a bare specifier
    expect(r.text).not.toContain("Lit is in dev mode");
    expect(r.text).toContain("sourceMappingURL=nms-inbox.js.map");
    const map = await call("GET", "/embed/nms-inbox.js.map");
    expect(map.status).toBe(200);
    expect(map.body.sources.some((s: string) => s.endsWith("web/inbox/nms-inbox.ts"))).toBe(true);
  });

  test("a conditional GET with the ETag is 304 without a body", async () => {
    const first = await call("GET", "/embed/nms-inbox.js");
    const etag = first.headers.get("etag")!;
    expect(etag).toMatch(/^W\/"/);
    const again = await call("GET", "/embed/nms-inbox.js", { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
    expect(again.text).toBe("");
    expect(again.headers.get("access-control-allow-origin")).toBe("*");
  });

  test("unknown files and paths leaving the folder are 404 in the standard body", async () => {
    for (const path of ["/embed/nope.js", "/embed/..%2fbuild-stamp.json", "/embed/", "/embed/nms-inbox.ts"]) {
      const r = await call("GET", path);
      expect(r.status).toBe(404);
      expect(r.body.error.code).toBe("not_found");
    }
    // the URL parser resolves %2e%2e before routing: this is GET /package.json, a dashboard page path
    const dots = await call("GET", "/embed/%2e%2e/%2e%2e/package.json");
    expect(dots.text).not.toContain('"name": "nms"');
    expect(dots.text).toContain("/assets/app.js");
  });

  test("no build: 503 service_unavailable saying how to build, not a crash", async () => {
    const empty = mkdtempSync(join(tmpdir(), "nms-web-none-"));
    const bare = new Elysia().use(edgePlugins).use(webAssetRoutes(empty));
    const res = await bare.handle(new Request("http://localhost/embed/nms-inbox.js"));
    expect(res.status).toBe(503);
    const body = await res.json();
    expect(body.error.code).toBe("service_unavailable");
    expect(body.error.message).toContain("scripts/build-web.ts");
  });
});

describe("the dashboard at /", () => {
  test("/ and every page path answer the dashboard's index.html: no caching, no framing, same-origin scripts only", async () => {
    const pages = [
      "/",
      "/notifications",
      "/notifications/0190a1b2-0000-7000-8000-000000000000",
      "/templates/welcome?env=sandbox",
      "/keys",
      "/workflows",
      "/workflows/new",
      "/workflows/0190a1b2-0000-7000-8000-000000000000/edit",
      "/workflow-runs?status=running",
      "/workflow-runs/0190a1b2-0000-7000-8000-000000000000",
      "/webhook-endpoints",
      "/webhook-endpoints/0190a1b2-0000-7000-8000-000000000000?status=failed",
      "/domains",
      "/domains/0190a1b2-0000-7000-8000-000000000000",
      "/suppressions?reason=bounced",
      "/preference-categories",
    ];
    for (const path of pages) {
      const r = await call("GET", path);
      expect([path, r.status]).toEqual([path, 200]);
      expect(r.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(r.text).toContain('<script type="module" src="/assets/app.js"></script>');
      expect(r.headers.get("cache-control")).toBe("no-cache");
      expect(r.headers.get("x-frame-options")).toBe("DENY");
      expect(r.headers.get("content-security-policy")).toContain("script-src 'self'");
      expect(r.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    }
  });

  test("its script and styles under /assets/ (preact bundled, no bare imports), revalidated by ETag", async () => {
    const js = await call("GET", "/assets/app.js");
    expect(js.status).toBe(200);
    expect(js.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(js.text).not.toMatch(/\bfrom\s*["'](preact|uplot)/);
    expect(js.text).toContain("sourceMappingURL=app.js.map");
    const css = await call("GET", "/assets/app.css");
    expect(css.status).toBe(200);
    expect(css.headers.get("content-type")).toBe("text/css; charset=utf-8");
    expect(css.text).toContain(".uplot"); // uPlot's own stylesheet comes along
    const again = await call("GET", "/assets/app.js", { headers: { "if-none-match": js.headers.get("etag")! } });
    expect(again.status).toBe(304);
    expect((await call("GET", "/assets/nope.js")).body.error.code).toBe("not_found");
  });

  test("an unknown API path keeps the API's JSON 404, not the dashboard", async () => {
    for (const path of ["/v1/nope", "/v1", "/api/internal/nope", "/auth/nope/x/y", "/embed", "/webhooks/nope"]) {
      const r = await call("GET", path);
      expect([path, r.status, r.body?.error?.code]).toEqual([path, 404, "not_found"]);
      expect(r.body.error.message).toBe(`No route for GET ${path}`);
    }
    // a POST to a page path is no page: the API's own 404
    const post = await call("POST", "/notifications", { body: {} });
    expect([post.status, post.body.error.code]).toEqual([404, "not_found"]);
  });

  test("no build: 503 service_unavailable on / as on /embed", async () => {
    const empty = mkdtempSync(join(tmpdir(), "nms-web-none-"));
    const bare = new Elysia().use(edgePlugins).use(webAssetRoutes(empty));
    const res = await bare.handle(new Request("http://localhost/templates"));
    expect(res.status).toBe(503);
    expect((await res.json()).error.code).toBe("service_unavailable");
  });
});

describe("isApiPath (what the dashboard's fallback at / must leave alone)", () => {
  test("every route the API serves is under one of its prefixes (the dashboard's own routes aside)", () => {
    const dashboard = new Set<string>(DASHBOARD_ROUTES);
    const paths = (app().routes as { path: string }[])
      .filter((r) => !dashboard.has(r.path))
      .map((r) => r.path.replace(/:\w+/g, "x").replace("*", "x"));
    expect(paths.length).toBeGreaterThan(30);
    for (const p of paths) expect([p, isApiPath(p)]).toEqual([p, true]);
  });
  test("dashboard paths are not API paths; prefixes match whole segments", () => {
    for (const p of ["/", "/notifications/123", "/templates", "/v1x", "/healthy", "/embedded", "/apikeys", "/workflows", "/workflow-runs/1", "/webhook-endpoints", "/domains/1", "/suppressions"]) {
      expect([p, isApiPath(p)]).toEqual([p, false]);
    }
    // /webhooks is the API's (the WhatsApp inbound webhook): the dashboard's webhooks page is /webhook-endpoints
    for (const p of ["/v1", "/v1/notifications", "/api/internal/tenants", "/api-keys/1", "/docs", "/openapi.json", "/webhooks", "/v1/workflows"]) expect([p, isApiPath(p)]).toEqual([p, true]);
  });
});
