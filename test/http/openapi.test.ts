// The OpenAPI 3 document at GET /openapi.json is generated from the route schemas and must
// validate as OpenAPI (swagger-parser), listing the routes the app serves.
import { expect, test } from "bun:test";
import SwaggerParser from "@apidevtools/swagger-parser";
import { app, call } from "../support/fixtures";

test("GET /openapi.json is a valid OpenAPI 3 document covering the app's routes", async () => {
  const r = await call("GET", "/openapi.json");
  expect(r.status).toBe(200);
  expect(r.body.openapi).toMatch(/^3\./);
  const doc = structuredClone(r.body);
  await SwaggerParser.validate(doc);
  const paths = Object.keys(r.body.paths);
  expect(paths).toContain("/health");
  expect(paths).toContain("/api/internal/tenants");
  // every route the app serves (but the document itself) appears in the document
  const served = new Set(
    app()
      .routes.map((rt: any) => String(rt.path).replace(/:(\w+)/g, "{$1}"))
      .filter((p: string) => !p.startsWith("/docs") && p !== "/openapi.json" && !p.includes("*")),
  );
  for (const p of served) expect(paths).toContain(p);
});
