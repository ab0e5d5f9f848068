// GET /docs (issue 14 item 2): the Swagger UI page and every file it loads answer from the service
// itself (the swagger-ui-dist package), so the reference works with no network; nothing else leaks.
import { describe, expect, test } from "bun:test";
import { app } from "../support/fixtures";

const get = (path: string) => app().handle(new Request(`http://localhost${path}`));

describe("GET /docs", () => {
  test("the page names no external URL; each script and stylesheet it loads answers from the service", async () => {
    const res = await get("/docs");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    expect(res.headers.get("content-security-policy")).toContain("default-src 'self'");
    const html = await res.text();
    expect(html).not.toMatch(/(?:https?:)?\/\/[a-z0-9.-]+\.[a-z]{2,}/i); // no absolute or protocol-relative URL
    const refs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(refs.sort()).toEqual(["/docs/assets/favicon-32x32.png", "/docs/assets/init.js", "/docs/assets/swagger-ui-bundle.js", "/docs/assets/swagger-ui.css"]);
    for (const ref of refs) {
      const asset = await get(ref);
      expect([ref, asset.status]).toEqual([ref, 200]);
      const type = asset.headers.get("content-type") ?? "";
      const want = ref.endsWith(".js") ? "text/javascript" : ref.endsWith(".css") ? "text/css" : "image/png";
      expect([ref, type.startsWith(want)]).toEqual([ref, true]);
      expect((await asset.arrayBuffer()).byteLength).toBeGreaterThan(100);
    }
  });

  test("the viewer is the package's own and reads this service's document", async () => {
    const bundle = await (await get("/docs/assets/swagger-ui-bundle.js")).text();
    expect(bundle).toContain("SwaggerUIBundle");
    expect(bundle.length).toBeGreaterThan(500_000);
    const init = await (await get("/docs/assets/init.js")).text();
    expect(init).toContain('url: "/openapi.json"');
  });

  test("only the viewer's files are served: anything else is the standard 404", async () => {
    for (const path of ["/docs/assets/package.json", "/docs/assets/index.html", "/docs/assets/..%2F..%2Fpackage.json", "/docs/assets/swagger-ui.js.map"]) {
      const res = await get(path);
      expect([path, res.status]).toEqual([path, 404]);
      expect(((await res.json()) as any).error.code).toBe("not_found");
    }
  });

  test("the files are cacheable and revalidate with their ETag", async () => {
    const first = await get("/docs/assets/swagger-ui.css");
    const etag = first.headers.get("etag")!;
    expect(etag).toBeTruthy();
    expect(first.headers.get("cache-control")).toContain("max-age");
    const again = await app().handle(new Request("http://localhost/docs/assets/swagger-ui.css", { headers: { "if-none-match": etag } }));
    expect(again.status).toBe(304);
  });
});
