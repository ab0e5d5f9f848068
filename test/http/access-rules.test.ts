// Every route says who may call it where it is declared (`access: "<rule>"`, http/plugins/access.ts):
// the app's routes are walked, a scratch app proves the walk names a route that forgets, and each
// rule's guard is exercised once through a real request.
import { describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { ACCESS_RULES, accessPlugin } from "../../http/plugins/access";
import { edgePlugins } from "../../http/plugins/edge";
import { ADMIN_TOKEN, app, call, createKey, createTenant } from "../support/fixtures";
import { accessProblems } from "../support/route-access";
import { readFileSync } from "node:fs";

describe("the app's routes declare their access rule", () => {
  test("every route, /v1 and the rest, declares a rule whose guard runs, consistent with its method and path", () => {
    const routes = app().routes as any[];
    expect(routes.filter((r) => String(r.path).startsWith("/v1/")).length).toBeGreaterThan(80);
    expect(accessProblems(routes)).toEqual([]);
  });

  test("the OpenAPI document says per operation which rule applies and its security requirement", async () => {
    const doc = (await call("GET", "/openapi.json")).body;
    const seen: string[] = [];
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        const rule = op["x-access"] as keyof typeof ACCESS_RULES;
        expect(`${method} ${path} ${rule in ACCESS_RULES}`).toBe(`${method} ${path} true`);
        expect(op.security).toEqual(ACCESS_RULES[rule].security);
        seen.push(rule);
      }
    }
    expect(doc.paths["/v1/templates"].post["x-access"]).toBe("secret-write");
    expect(doc.paths["/v1/templates"].get["x-access"]).toBe("secret-read");
    expect(doc.paths["/v1/subscribers/{id}/notifications"].get["x-access"]).toBe("subscriber-read");
    expect(doc.paths["/v1/team/members"].post["x-access"]).toBe("session-manager");
    expect(doc.paths["/v1/admin/blocked-domains"].get["x-access"]).toBe("admin");
    // every rule is in use somewhere, so none is dead weight in the table
    expect([...new Set(seen)].sort()).toEqual(Object.keys(ACCESS_RULES).sort());
  });

  test("docs/auth.md lists every rule", () => {
    const doc = readFileSync(new URL("../../docs/auth.md", import.meta.url), "utf8");
    for (const rule of Object.keys(ACCESS_RULES)) expect(`${rule}: ${doc.includes(`| \`${rule}\``)}`).toBe(`${rule}: true`);
  });
});

describe("the walk fails a route that forgets or contradicts its rule", () => {
  const scratch = new Elysia()
    .use(accessPlugin)
    .get("/v1/forgot", () => "no rule")
    .post("/v1/reads-on-post", () => "read rule on a write", { access: "secret-read" })
    .get("/v1/admin/things", () => "admin path, key rule", { access: "secret-read" })
    .get("/v1/open", () => "public /v1", { access: "public" })
    .get("/v1/hand-written", () => "x-access without the macro", { detail: { "x-access": "secret-read" } as any })
    .get("/v1/fine", () => "ok", { access: "secret-read" });

  test("each problem names the route and what to write", () => {
    const problems = accessProblems(scratch.routes as any[]);
    expect(problems).toEqual([
      expect.stringMatching(/^GET \/v1\/forgot: declares no access rule; add `access: "<rule>"`/),
      expect.stringMatching(/^POST \/v1\/reads-on-post: POST changes state but declares "secret-read"; use "secret-write"/),
      expect.stringMatching(/^GET \/v1\/admin\/things: an admin path must declare access "admin"/),
      expect.stringMatching(/^GET \/v1\/open: a \/v1 route is authenticated/),
      expect.stringMatching(/^GET \/v1\/hand-written: says access "secret-read" but no guard of that rule runs/),
    ]);
  });

  test("an unknown rule is refused where it is declared", () => {
    expect(() => new Elysia().use(accessPlugin).get("/v1/x", () => "x", { access: "secret" as any })).toThrow(/is no rule; use one of public, secret-read/);
  });
});

describe("each rule's guard, through a probe app", () => {
  const probe = new Elysia().use(edgePlugins).use(
    new Elysia({ name: "test.access-probe" })
      .use(accessPlugin)
      .get("/p/public", () => ({ data: "public" }), { access: "public" })
      .get("/p/admin", () => ({ data: "admin" }), { access: "admin" })
      .post("/p/write", ({ auth }) => ({ data: auth.tenantId }), { access: "secret-write" })
      .get("/p/session", ({ auth }) => ({ data: auth.session?.role ?? null }), { access: "session" })
      .get("/p/manager", () => ({ data: "manager" }), { access: { rule: "session-manager", refusal: "Only owners and admins see the probe" } }),
  );
  const hit = async (method: string, path: string, key?: string) => {
    const res = await probe.handle(new Request(`http://localhost${path}`, { method, headers: key ? { authorization: `Bearer ${key}` } : {} }));
    const body = (await res.json()) as any;
    return [res.status, body.error?.code ?? body.data];
  };

  test("public passes anyone; admin wants ADMIN_TOKEN; secret-write wants a write key; session wants a cookie", async () => {
    const a = await createTenant();
    const ro = await createKey(a.tenant.id, { permissions: ["read"] });
    expect(await hit("GET", "/p/public")).toEqual([200, "public"]);
    expect(await hit("GET", "/p/admin", a.secretKey)).toEqual([401, "invalid_admin_token"]);
    expect(await hit("GET", "/p/admin", ADMIN_TOKEN)).toEqual([200, "admin"]);
    expect(await hit("POST", "/p/write")).toEqual([401, "invalid_api_key"]);
    expect(await hit("POST", "/p/write", ro.raw)).toEqual([403, "insufficient_permissions"]);
    expect(await hit("POST", "/p/write", a.secretKey)).toEqual([200, a.tenant.id]);
    expect(await hit("GET", "/p/session")).toEqual([401, "invalid_session"]);
    expect(await hit("GET", "/p/session", a.secretKey)).toEqual([403, "session_required"]);
    expect(await hit("GET", "/p/manager", a.secretKey)).toEqual([403, "session_required"]);
  });
});
