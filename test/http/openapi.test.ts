// The OpenAPI 3 document at GET /openapi.json: valid (swagger-parser), listing every route the app
// serves, and complete operation by operation (test/support/openapi-audit.ts): request schema and
// example, response schemas per status with the standard error body. A scratch app proves the audit
// names what goes missing.
import { describe, expect, test } from "bun:test";
import SwaggerParser from "@apidevtools/swagger-parser";
import { Elysia, t } from "elysia";
import { Value } from "@sinclair/typebox/value";
import { edgePlugins } from "../../http/plugins/edge";
import { JSON_ONLY_PATH } from "../../http/plugins/body-parser";
import { apiReferenceRoutes } from "../../http/routes/api-reference";
import { errors, BODY_ERRORS, KEY_ERRORS, SECURITY } from "../../http/route-docs";
import { app, call } from "../support/fixtures";
import { auditOpenApi } from "../support/openapi-audit";
import { WebhookEvent } from "../../schemas/webhook-events";

/** "METHOD /path/{param}" of every route that declares a body schema. */
function declaredBodies(routes: any[]): Set<string> {
  return new Set(routes.filter((r) => r.hooks?.body).map((r) => `${String(r.method).toUpperCase()} ${String(r.path).replace(/:(\w+)/g, "{$1}")}`));
}

async function documentOf(handle: (r: Request) => Promise<Response> | Response) {
  const res = await handle(new Request("http://localhost/openapi.json"));
  expect(res.status).toBe(200);
  return (await res.json()) as any;
}

describe("GET /openapi.json", () => {
  test("is a valid OpenAPI 3 document covering the app's routes", async () => {
    const r = await call("GET", "/openapi.json");
    expect(r.status).toBe(200);
    expect(r.body.openapi).toMatch(/^3\./);
    await SwaggerParser.validate(structuredClone(r.body));
    const paths = Object.keys(r.body.paths);
    expect(paths).toContain("/health");
    expect(paths).toContain("/api/internal/tenants");
    // every route the app serves (but the reference itself) appears in the document
    const served = new Set(
      app()
        .routes.map((rt: any) => String(rt.path).replace(/:(\w+)/g, "{$1}"))
        .filter((p: string) => !p.startsWith("/docs") && p !== "/openapi.json" && !p.includes("*")),
    );
    for (const p of served) expect(paths).toContain(p);
  });

  test("every operation has its request schema and example, response schemas per status and the standard error body", async () => {
    const doc = await documentOf((r) => app().handle(r));
    const problems = auditOpenApi(doc, { declaredBodies: declaredBodies(app().routes as any[]) });
    expect(problems).toEqual([]);
    // and the audit saw the document's real bodies
    const bodies = Object.entries<any>(doc.paths).flatMap(([path, item]) =>
      Object.values<any>(item).filter((op) => op.requestBody).map((op) => [path, op] as const),
    );
    expect(bodies.length).toBeGreaterThan(20);
    // the API's own paths take JSON only (415 otherwise); a third party's form is declared by its route
    for (const [path, op] of bodies) {
      if (JSON_ONLY_PATH.test(path)) expect(Object.keys(op.requestBody.content)).toEqual(["application/json"]);
    }
    expect(Object.keys(doc.paths["/unsubscribe/{token}"].post.requestBody.content).sort()).toEqual(["application/x-www-form-urlencoded", "multipart/form-data"]);
  });

  test("every example matches the schema it illustrates (TypeBox Value.Check on the routes' own schemas)", () => {
    const wrong: string[] = [];
    let checked = 0;
    const check = (where: string, schema: any) => {
      for (const example of schema?.examples ?? []) {
        checked++;
        const first = [...Value.Errors(schema, example)][0];
        if (first) wrong.push(`${where}: example ${JSON.stringify(example).slice(0, 80)}: ${first.path || "/"} ${first.message}`);
      }
    };
    for (const r of app().routes as any[]) {
      const name = `${String(r.method).toUpperCase()} ${r.path}`;
      check(`${name} body`, r.hooks?.body);
      for (const [status, schema] of Object.entries<any>(r.hooks?.response ?? {})) check(`${name} ${status}`, schema);
    }
    expect(wrong).toEqual([]);
    expect(checked).toBeGreaterThan(100);
  });

  test("an integer is an integer: no schema offers Elysia's converted string (the API refuses it in a body)", async () => {
    const doc = (await call("GET", "/openapi.json")).body;
    const offered: string[] = [];
    const walk = (node: any, at: string) => {
      if (!node || typeof node !== "object") return;
      if (node.type === "string" && (node.format === "integer" || node.format === "numeric")) offered.push(at);
      for (const [k, v] of Object.entries(node)) walk(v, `${at}/${k}`);
    };
    walk(doc.paths, "#/paths");
    expect(offered).toEqual([]);
    const days = doc.paths["/v1/settings/retention"].put.requestBody.content["application/json"].schema.properties.notifications_days;
    expect(days).toMatchObject({ type: "integer", minimum: 1, maximum: 3650 });
    expect(days.anyOf).toBeUndefined();
  });

  test("the request body of POST /v1/notifications carries its schema and example", async () => {
    const doc = await documentOf((r) => app().handle(r));
    const media = doc.paths["/v1/notifications"].post.requestBody.content["application/json"];
    expect(media.schema.properties.channel).toBeDefined();
    expect(media.schema.examples[0].channel).toBe("email");
    const responses = doc.paths["/v1/notifications"].post.responses;
    expect(responses["202"].content["application/json"].schema.properties.data).toBeDefined();
    expect(responses["422"].content["application/json"].schema.properties.error.properties.code).toBeDefined();
  });

  test("outbound webhooks: the event body (schemas/webhook-events.ts) and its signature header", async () => {
    const doc = await documentOf((r) => app().handle(r));
    const post = doc.webhooks.event.post;
    expect(post.parameters[0].name).toBe("X-Service-Signature");
    const media = post.requestBody.content["application/json"];
    expect(Object.keys(media.schema.properties).sort()).toEqual(["created_at", "data", "id", "type"]);
    expect(media.schema.properties.type.anyOf.map((o: any) => o.const)).toContain("notification.delivered");
    expect(Value.Check(WebhookEvent, media.example)).toBe(true);
  });

  test("session-only, admin and public operations say so; key operations take a key or a session", async () => {
    const doc = await documentOf((r) => app().handle(r));
    expect(doc.paths["/v1/me"].get.security).toEqual([{ session: [] }]);
    expect(doc.paths["/api/internal/tenants"].post.security).toEqual([{ adminToken: [] }]);
    expect(doc.paths["/health"].get.security).toEqual([]);
    expect(doc.security).toEqual([{ apiKey: [] }, { session: [] }]);
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(["adminToken", "apiKey", "session"]);
  });
});

describe("the audit names the operation and what is missing", () => {
  // A scratch app with the same parser and document builder, and routes that each forget something.
  const body = t.Object({ name: t.String() }, { examples: [{ name: "a" }] });
  const scratch = new Elysia()
    .use(edgePlugins)
    .use(apiReferenceRoutes({ info: { title: "scratch", version: "0" }, security: SECURITY.key }))
    .post("/v1/complete", ({ body }) => ({ data: body }), {
      body,
      response: { 200: t.Object({ data: body }), ...errors(KEY_ERRORS, BODY_ERRORS) },
    })
    .post("/v1/no-body-schema", () => ({ ok: true }), { response: { 200: t.Object({ ok: t.Boolean() }, { examples: [{ ok: true }] }), ...errors(401) } })
    .post("/v1/no-example", ({ body }) => body, {
      body: t.Object({ name: t.String() }),
      response: { 200: t.Object({ name: t.String() }), ...errors(KEY_ERRORS, BODY_ERRORS) },
    })
    .get("/v1/no-responses", () => ({ ok: true }))
    .get("/v1/no-errors", () => ({ ok: true }), { response: { 200: t.Object({ ok: t.Boolean() }, { examples: [{ ok: true }] }) } })
    .get("/v1/plain-error", () => ({ ok: true }), {
      response: { 200: t.Object({ ok: t.Boolean() }, { examples: [{ ok: true }] }), 401: t.Object({ message: t.String() }) },
    })
    .put("/v1/body-without-422", ({ body }) => body, {
      body,
      response: { 200: body, ...errors(401, 400, 413, 415) },
    });

  test("a complete operation has no problem; each gap is one line naming the operation", async () => {
    const doc = await documentOf((r) => scratch.handle(r));
    const problems = auditOpenApi(doc, { declaredBodies: declaredBodies(scratch.routes as any[]), noRequestBody: {} });
    const about = (op: string) => problems.filter((p) => p.startsWith(`${op}: `));
    expect(about("POST /v1/complete")).toEqual([]);
    expect(about("POST /v1/no-body-schema")).toEqual([expect.stringContaining("no request body schema")]);
    expect(about("POST /v1/no-example")).toEqual([expect.stringContaining("request body application/json has no example")]);
    expect(about("GET /v1/no-responses")).toEqual([expect.stringContaining("no responses declared")]);
    expect(about("GET /v1/no-errors")).toEqual([expect.stringContaining("no error response declared"), "GET /v1/no-errors: requires credentials but declares no 401"]);
    expect(about("GET /v1/plain-error")).toEqual([expect.stringContaining("response 401 is not the standard error body")]);
    expect(about("PUT /v1/body-without-422")).toEqual([expect.stringContaining("takes a body but declares no 422")]);
  });

  test("a body the document lost (content {}) is reported even when the route declares it", () => {
    const doc = {
      openapi: "3.1.0",
      paths: { "/v1/lost": { post: { requestBody: { content: {} }, responses: { "200": { description: "ok" }, "401": { description: "no" } } } } },
    };
    const problems = auditOpenApi(doc, { declaredBodies: new Set(["POST /v1/lost"]) });
    expect(problems).toContain("POST /v1/lost: request body has no media type (content {}): the schema was dropped");
  });
});
