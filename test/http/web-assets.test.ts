// GET /embed/* serves the built browser code (scripts/build-web.ts) with its content type, CORS *,
// caching and ETag; a missing build is a 503 in the standard body; isApiPath covers every API route.
import { beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Elysia } from "elysia";
import { buildWeb } from "../../scripts/build-web";
import { errorsPlugin } from "../../http/plugins/errors";
import { isApiPath, webAssetRoutes } from "../../http/routes/web-assets";
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
    for (const path of ["/embed/nope.js", "/embed/..%2fbuild-stamp.json", "/embed/%2e%2e/%2e%2e/package.json", "/embed/", "/embed/nms-inbox.ts"]) {
      const r = await call("GET", path);
      expect(r.status).toBe(404);
      expect(r.body.error.code).toBe("not_found");
    }
  });

  test("no build: 503 service_unavailable saying how to build, not a crash", async () => {
    const empty = mkdtempSync(join(tmpdir(), "nms-web-none-"));
    const bare = new Elysia().use(errorsPlugin).use(webAssetRoutes(empty));
    const res = await bare.handle(new Request("http://localhost/embed/nms-inbox.js"));
    expect(res.status).toBe(503);
    const body = await res.json();
    expect(body.error.code).toBe("service_unavailable");
    expect(body.error.message).toContain("scripts/build-web.ts");
  });
});

describe("isApiPath (what a dashboard's fallback at / must leave alone)", () => {
  test("every route the API serves is under one of its prefixes", () => {
    const paths = (app().routes as { path: string }[]).map((r) => r.path.replace(/:\w+/g, "x").replace("*", "x"));
    expect(paths.length).toBeGreaterThan(30);
    for (const p of paths) expect([p, isApiPath(p)]).toEqual([p, true]);
  });
  test("dashboard paths are not API paths; prefixes match whole segments", () => {
    for (const p of ["/", "/notifications/123", "/templates", "/v1x", "/healthy", "/embedded", "/apikeys"]) expect([p, isApiPath(p)]).toEqual([p, false]);
    for (const p of ["/v1", "/v1/notifications", "/api/internal/tenants", "/api-keys/1", "/docs", "/openapi.json"]) expect([p, isApiPath(p)]).toEqual([p, true]);
  });
});
