// The API reference reads like one (issue 27 item 7): every operation has a summary, a description
// and one section tag, internal routes come last, and the Idempotency-Key and rate-limit headers are
// declared where the service applies them. A loopback webhook URL names the setting that allows it.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import SwaggerParser from "@apidevtools/swagger-parser";
import { API_TAGS, INTERNAL_TAGS } from "../../http/route-docs";
import { IDEMPOTENT_POST_RE } from "../../http/plugins/idempotency";
import { RATE_LIMITED_RULES, type AccessRule } from "../../http/plugins/access";
import { call, createTenant } from "../support/fixtures";
import { deleteTenants } from "../support/tenant-cleanup";

const METHODS = ["get", "put", "post", "delete", "patch"];
const TAG_NAMES = API_TAGS.map((t) => t.name as string);

let doc: any;
let tenant: Awaited<ReturnType<typeof createTenant>>;
beforeAll(async () => {
  doc = (await call("GET", "/openapi.json")).body;
  tenant = await createTenant();
});
afterAll(async () => {
  await deleteTenants([tenant.tenant.id]);
});

function operations(): { name: string; path: string; method: string; op: any }[] {
  return Object.entries<any>(doc.paths).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((method) => ({ name: `${method.toUpperCase()} ${path}`, path, method, op: item[method] })),
  );
}

describe("every operation is described", () => {
  test("a summary, a description and exactly one section tag; the message names each operation and what it lacks", () => {
    const fix = "set the route's `detail: routeDoc(<tag>, <summary>, <description>)` (http/route-docs.ts)";
    const problems: string[] = [];
    for (const { name, op } of operations()) {
      if (!op.summary?.trim()) problems.push(`${name}: no summary; ${fix}`);
      if (!op.description?.trim()) problems.push(`${name}: no description (say what it does and what to know before calling it); ${fix}`);
      const tags: string[] = op.tags ?? [];
      if (tags.length !== 1) problems.push(`${name}: has ${tags.length} tags (${tags.join(", ")}); exactly one of ${TAG_NAMES.join(", ")}; ${fix}`);
      else if (!TAG_NAMES.includes(tags[0]!)) problems.push(`${name}: tag "${tags[0]}" is not a section; use one of ${TAG_NAMES.join(", ")} or add it to API_TAGS (http/route-docs.ts)`);
      else if (op.summary && op.description && op.summary.trim() === op.description.trim()) problems.push(`${name}: the description repeats the summary; ${fix}`);
    }
    expect(problems).toEqual([]);
    expect(operations().length).toBeGreaterThan(100);
  });

  test("the sections are listed in order, each with a description, and each is used", () => {
    expect(doc.tags.map((t: any) => t.name)).toEqual(TAG_NAMES);
    for (const t of doc.tags) expect(t.description.length).toBeGreaterThan(20);
    const used = new Set(operations().flatMap(({ op }) => op.tags ?? []));
    expect(TAG_NAMES.filter((t) => !used.has(t))).toEqual([]);
  });

  test("internal routes (admin and operations sections, /api/internal/*, /v1/admin/*) come after every other path", () => {
    const paths = Object.keys(doc.paths);
    const internal = (path: string) => {
      const item = doc.paths[path];
      return METHODS.some((m) => INTERNAL_TAGS.includes(item[m]?.tags?.[0])) || /^\/(?:api\/internal|v1\/admin)(?:\/|$)/.test(path);
    };
    const firstInternal = paths.findIndex(internal);
    expect(firstInternal).toBeGreaterThan(0);
    expect(paths.slice(firstInternal).filter((p) => !internal(p))).toEqual([]);
    // and what an integration calls first opens the document
    expect(paths[0]).toBe("/v1/notifications");
  });

  test("the decorated document is still valid OpenAPI", async () => {
    await SwaggerParser.validate(structuredClone(doc));
  });
});

describe("headers are declared where they apply", () => {
  test("Idempotency-Key on exactly the POSTs that honour it, Idempotent-Replayed on their success answers", () => {
    const problems: string[] = [];
    let idempotent = 0;
    for (const { name, path, method, op } of operations()) {
      const declares = (op.parameters ?? []).some((p: any) => p.in === "header" && p.name === "Idempotency-Key");
      const honours = method === "post" && IDEMPOTENT_POST_RE.test(path);
      if (honours) idempotent++;
      if (declares !== honours) problems.push(`${name}: ${honours ? "honours Idempotency-Key but does not declare it" : "declares Idempotency-Key but the service ignores it there"}`);
      if (honours) {
        for (const [status, r] of Object.entries<any>(op.responses)) {
          if (/^2/.test(status) && !r.headers?.["Idempotent-Replayed"]) problems.push(`${name} ${status}: no Idempotent-Replayed header`);
        }
      }
    }
    expect(problems).toEqual([]);
    expect(idempotent).toBeGreaterThanOrEqual(9);
    const param = doc.paths["/v1/notifications"].post.parameters.find((p: any) => p.name === "Idempotency-Key");
    expect(param).toMatchObject({ in: "header", required: false, schema: { type: "string", maxLength: 255 } });
    expect(param.description).toContain("idempotency_key_reused");
  });

  test("X-RateLimit-* on the answers of rate-limited routes (Retry-After on their 429), and the service sends them", async () => {
    const problems: string[] = [];
    for (const { name, op } of operations()) {
      const limited = RATE_LIMITED_RULES.has(op["x-access"] as AccessRule);
      for (const [status, r] of Object.entries<any>(op.responses)) {
        const has = !!r.headers?.["X-RateLimit-Limit"];
        if (limited && status !== "401" && status !== "403" && !has) problems.push(`${name} ${status}: rate limited but declares no X-RateLimit-* headers`);
        if (!limited && has) problems.push(`${name} ${status}: declares X-RateLimit-* but its access rule takes no budget`);
        if (limited && status === "429" && !r.headers?.["Retry-After"]) problems.push(`${name} 429: no Retry-After`);
      }
    }
    expect(problems).toEqual([]);
    const res = await call("GET", "/v1/templates", { key: tenant.secretKey });
    expect(res.status).toBe(200);
    for (const h of ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"]) expect(res.headers.get(h)).toMatch(/^\d+$/);
    expect(doc.paths["/v1/templates"].get.responses["200"].headers["X-RateLimit-Limit"].schema).toEqual({ type: "integer" });
  });
});

describe("a webhook receiver on a loopback address", () => {
  test("is refused at create with a message naming WEBHOOK_ALLOW_PRIVATE", async () => {
    for (const url of ["http://127.0.0.1:8080/hooks", "http://localhost:3000/hooks"]) {
      const r = await call("POST", "/v1/webhooks", { key: tenant.secretKey, body: { url, events: ["notification.delivered"] } });
      expect(r.status).toBe(422);
      expect(r.body.error.code).toBe("validation_failed");
      expect(r.body.error.details.url[0]).toContain("loopback");
      expect(r.body.error.details.url[0]).toContain("WEBHOOK_ALLOW_PRIVATE=true");
    }
    const listed = await call("GET", "/v1/webhooks", { key: tenant.secretKey });
    expect(listed.body.data).toEqual([]);
  });
});
