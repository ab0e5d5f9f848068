// Request bodies fuzzed from the OpenAPI document itself (issue 27 item 8), so a route added later is
// covered without a line here: keys that name Object.prototype members, unknown fields where the
// body says additionalProperties: false, non-objects where it takes an object, and numbers or booleans as strings.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ADMIN_TOKEN, call, createTenant } from "../support/fixtures";
import { deleteTenants } from "../support/tenant-cleanup";
import { config } from "../../config";
import { sql } from "../../store/db";
import { insertUser } from "../../store/users";
import { createSession } from "../../store/sessions";
import { SESSION_COOKIE } from "../../http/session";

/** Keys a plain `{}` already answers to. */
const PROTO_KEYS = ["__proto__", "constructor", "prototype", "hasOwnProperty", "toString"];
const METHODS = ["post", "put", "patch"];

interface Operation {
  name: string;
  method: string;
  path: string;
  access: string;
  schema: any;
  example: unknown;
}

let doc: any;
let operations: Operation[] = [];
let tenant: Awaited<ReturnType<typeof createTenant>>;
let cookie: string;
const createdTenants: string[] = [];
/** Path parameter values of resources made from the document's own examples ("/v1/templates" -> data). */
const seeded = new Map<string, Record<string, unknown>>();

function exampleOf(media: any): unknown {
  if (media.example !== undefined) return media.example;
  const ex = media.schema?.examples;
  if (Array.isArray(ex) && ex.length) return ex[0];
  return {};
}

/** The credentials an operation's access rule asks for (x-access, written by http/plugins/access.ts). */
function credentials(op: Operation): Record<string, string> {
  switch (op.access) {
    case "public":
    case "metrics":
      return {};
    case "admin":
      return { authorization: `Bearer ${ADMIN_TOKEN}` };
    case "session":
    case "session-manager":
      return { cookie, origin: new URL(config.appUrl).origin };
    default:
      return { authorization: `Bearer ${tenant.secretKey}` };
  }
}

/** The path with its parameters filled: a seeded resource's field of that name, or its id; else a fresh UUID. */
function concretePath(path: string): string {
  const collection = path.slice(0, path.indexOf("/{") >>> 0);
  const data = path.includes("{") ? seeded.get(collection) : undefined;
  return path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const v = data?.[name] ?? (name === "id" ? data?.id : undefined);
    return encodeURIComponent(String(v ?? crypto.randomUUID()));
  });
}

async function send(op: Operation, body: string) {
  return call(op.method, concretePath(op.path), { rawBody: body, headers: { ...credentials(op), "content-type": "application/json" } });
}

/** The standard error body (schemas/errors.ts: code, message, details, a bulk import's index) and nothing else; "" when it is, else what is wrong. */
function standardErrorProblem(r: { status: number; body: any; text: string }): string {
  if (r.status < 400) return "";
  // a 5xx of a dependency (503 gateway_not_configured) is an answer; 500 is our crash
  if (r.status === 500 || r.body?.error?.code === "internal_error") return `answered ${r.status}: ${r.text.slice(0, 200)}`;
  const e = r.body?.error;
  if (!e || typeof e.code !== "string" || typeof e.message !== "string") return `${r.status} without the standard error body: ${r.text.slice(0, 200)}`;
  const extra = Object.keys(r.body).filter((k) => k !== "error").concat(Object.keys(e).filter((k) => !["code", "message", "details", "index"].includes(k)));
  if (extra.length) return `${r.status} error body has extra keys ${extra.join(", ")}`;
  if (e.details !== undefined) {
    if (typeof e.details !== "object" || e.details === null || Array.isArray(e.details)) return `details is not an object`;
    for (const [k, v] of Object.entries(e.details)) if (!Array.isArray(v) || !v.every((m) => typeof m === "string")) return `details.${k} is not a list of strings`;
  }
  return "";
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** A body schema that takes only objects (an Optional or Nullable wrapper unwrapped). */
function takesObjectOnly(schema: any): boolean {
  if (schema?.type === "object") return true;
  return Array.isArray(schema?.anyOf) && schema.anyOf.length > 0 && schema.anyOf.every(takesObjectOnly);
}

beforeAll(async () => {
  tenant = await createTenant();
  const user = await insertUser(sql, { tenantId: tenant.tenant.id, email: `fuzz-${crypto.randomUUID().slice(0, 8)}@example.com`, role: "owner" });
  const session = await createSession(sql, { userId: user.id, tenantId: tenant.tenant.id, ip: null, userAgent: null });
  cookie = `${SESSION_COOKIE}=${session.token}`;
  doc = (await call("GET", "/openapi.json")).body;
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      const media = op?.requestBody?.content?.["application/json"];
      if (!media?.schema) continue;
      operations.push({ name: `${method.toUpperCase()} ${path}`, method: method.toUpperCase(), path, access: op["x-access"] ?? "secret-write", schema: media.schema, example: exampleOf(media) });
    }
  }
  // resources for the paths that name one, made from the document's own examples (admin routes left out:
  // their resources are global)
  for (const op of operations) {
    if (op.method !== "POST" || op.path.includes("{") || op.access === "admin") continue;
    if (!operations.some((o) => o.path.startsWith(`${op.path}/{`))) continue;
    const r = await send(op, JSON.stringify(op.example));
    if (r.status < 300 && isObject(r.body?.data)) seeded.set(op.path, r.body.data);
  }
});

afterAll(async () => {
  await deleteTenants([tenant.tenant.id, ...createdTenants]);
});

/** Remembers tenants an admin route created, for the cleanup. */
function track(op: Operation, r: { status: number; body: any }) {
  if (op.path === "/api/internal/tenants" && r.status === 201 && typeof r.body?.data?.id === "string") createdTenants.push(r.body.data.id);
}

describe("keys named like Object.prototype members, at the top and one level down of every JSON body", () => {
  test("never a 500, always the standard error body; a closed body names the key", async () => {
    expect(operations.length).toBeGreaterThan(30);
    const problems: string[] = [];
    let sent = 0;
    for (const op of operations) {
      const base = isObject(op.example) ? op.example : {};
      const variants: [string, string][] = [];
      for (const key of PROTO_KEYS) {
        // JSON text, not JSON.stringify of an object literal: {"__proto__": ...} must arrive as a key
        const rest = JSON.stringify(base).slice(1, -1);
        variants.push([key, `{${rest}${rest ? "," : ""}${JSON.stringify(key)}:{"prototype":{"x":1}}}`]);
        for (const [field, value] of Object.entries(base)) {
          if (isObject(value)) {
            const inner = JSON.stringify(value).slice(1, -1);
            const nested = `{${inner}${inner ? "," : ""}${JSON.stringify(key)}:1}`;
            variants.push([`${field}.${key}`, JSON.stringify({ ...base, [field]: "__NESTED__" }).replace('"__NESTED__"', nested)]);
          } else if (Array.isArray(value) && isObject(value[0])) {
            const inner = JSON.stringify(value[0]).slice(1, -1);
            const nested = `[{${inner}${inner ? "," : ""}${JSON.stringify(key)}:1}]`;
            variants.push([`${field}[0].${key}`, JSON.stringify({ ...base, [field]: "__NESTED__" }).replace('"__NESTED__"', nested)]);
          }
        }
      }
      for (const [field, body] of variants) {
        const r = await send(op, body);
        sent++;
        track(op, r);
        const problem = standardErrorProblem(r);
        if (problem) problems.push(`${op.name} with key ${field}: ${problem}`);
        else if (op.schema.additionalProperties === false && !field.includes(".") && !field.includes("[") && r.status !== 401 && r.status !== 403) {
          if (r.status !== 422 || !r.body.error.details || !Object.hasOwn(r.body.error.details, field)) {
            problems.push(`${op.name} with key ${field}: the body is closed (additionalProperties: false) but the answer does not name the key: ${r.status} ${r.text.slice(0, 200)}`);
          }
        }
      }
    }
    expect(problems).toEqual([]);
    expect(sent).toBeGreaterThan(200);
  }, 120_000);

  test("the workflow routes (the reported 500) refuse each key by name", async () => {
    const op = operations.find((o) => o.name === "POST /v1/workflows")!;
    for (const key of PROTO_KEYS) {
      const rest = JSON.stringify(op.example).slice(1, -1);
      const r = await send(op, `{${rest},${JSON.stringify(key)}:{"prototype":{"x":1}}}`);
      expect(r.status).toBe(422);
      expect(r.body.error.code).toBe("validation_failed");
      expect(Object.keys(r.body.error.details)).toEqual([key]);
      expect(r.body.error.details[key]).toEqual(["is not allowed"]);
    }
    const put = operations.find((o) => o.name === "PUT /v1/workflows/{id}")!;
    expect(seeded.get("/v1/workflows")).toBeDefined(); // the PUT reached a real workflow
    for (const key of ["constructor", "hasOwnProperty"]) {
      const rest = JSON.stringify(put.example).slice(1, -1);
      const r = await send(put, `{${rest},${JSON.stringify(key)}:1}`);
      expect(r.status).toBe(422);
      expect(r.body.error.details[key]).toEqual(["is not allowed"]);
    }
  });
});

/** A property schema that takes only numbers, integers or booleans (or null); the document shows an
 *  integer as Elysia's union with a string it converts (format integer or numeric), which is refused too. */
function scalarOnly(schema: any): boolean {
  if (["number", "integer", "boolean"].includes(schema?.type)) return true;
  const variants = Array.isArray(schema?.anyOf) ? schema.anyOf.filter((s: any) => !(s?.type === "string" && ["integer", "numeric"].includes(s.format))) : [];
  return variants.some((s: any) => s?.type !== "null") && variants.every((s: any) => s?.type === "null" || scalarOnly(s));
}

describe("a number or boolean sent as a JSON string, in every JSON body whose example has one", () => {
  test("422 validation_failed naming the field: never converted (\"14\" stored as 14) and never a 500", async () => {
    const problems: string[] = [];
    let sent = 0;
    for (const op of operations) {
      if (!isObject(op.example) || op.schema.type !== "object") continue;
      for (const [field, value] of Object.entries(op.example)) {
        if ((typeof value !== "number" && typeof value !== "boolean") || !scalarOnly(op.schema.properties?.[field])) continue;
        const r = await send(op, JSON.stringify({ ...op.example, [field]: String(value) }));
        sent++;
        track(op, r);
        const problem = standardErrorProblem(r);
        if (problem) problems.push(`${op.name} with ${field} as a string: ${problem}`);
        else if (r.status !== 401 && r.status !== 403 && (r.status !== 422 || !r.body.error.details || !Object.hasOwn(r.body.error.details, field))) {
          problems.push(`${op.name} with ${field} = ${JSON.stringify(String(value))}: ${r.status} ${r.text.slice(0, 200)}`);
        }
      }
    }
    expect(problems).toEqual([]);
    expect(sent).toBeGreaterThanOrEqual(5); // 6 when written (retention, plans, quiet hours, caps...)
  }, 120_000);
});

test("no details map is built from a plain {} (its keys are the client's; basics/errors.ts fieldErrors)", async () => {
  const root = `${import.meta.dir}/../..`;
  const plain = /:\s*(?:ErrorDetails|Record<string,\s*string\[\]>)\s*=\s*\{\s*\}/;
  const found: string[] = [];
  let scanned = 0;
  for (const dir of ["basics", "domain", "http", "store", "providers", "jobs", "actors"]) {
    for await (const file of new Bun.Glob("**/*.ts").scan(`${root}/${dir}`)) {
      scanned++;
      const lines = (await Bun.file(`${root}/${dir}/${file}`).text()).split("\n");
      lines.forEach((line, i) => plain.test(line) && found.push(`${dir}/${file}:${i + 1}: ${line.trim()} -> use fieldErrors()`));
    }
  }
  expect(found).toEqual([]);
  expect(scanned).toBeGreaterThan(100);
});

describe("additionalProperties: false in the document is what the API does", () => {
  test("an unknown field on every operation whose body is closed -> 422 validation_failed naming it", async () => {
    const closed = operations.filter((o) => o.schema.additionalProperties === false);
    for (const name of ["POST /v1/templates", "POST /v1/webhooks", "POST /v1/api-keys"]) expect(closed.map((o) => o.name)).toContain(name);
    const problems: string[] = [];
    for (const op of closed) {
      const base = isObject(op.example) ? op.example : {};
      const r = await send(op, JSON.stringify({ ...base, tenant_id: tenant.tenant.id, nms_unknown_field: 1 }));
      track(op, r);
      const d = r.body?.error?.details;
      if (r.status !== 422 || r.body.error.code !== "validation_failed" || !d || !Object.hasOwn(d, "tenant_id") || !Object.hasOwn(d, "nms_unknown_field")) {
        problems.push(`${op.name}: ${r.status} ${r.text.slice(0, 200)}`);
      } else if (d.nms_unknown_field[0] !== "is not allowed") problems.push(`${op.name}: says ${d.nms_unknown_field}`);
    }
    expect(problems).toEqual([]);
  });

  test("nothing was created by a refused body", async () => {
    const before = await sql`select count(*)::int as n from templates where tenant_id = ${tenant.tenant.id}`;
    const r = await call("POST", "/v1/templates", {
      key: tenant.secretKey,
      body: { slug: "closed-body", name: "x", channel: "sms", content: "hi", tenant_id: crypto.randomUUID() },
    });
    expect(r.status).toBe(422);
    expect(r.body.error.details).toEqual({ tenant_id: ["is not allowed"] });
    const after = await sql`select count(*)::int as n from templates where tenant_id = ${tenant.tenant.id}`;
    expect(after[0]!.n).toBe(before[0]!.n);
  });
});

describe("a body declared as an object refuses anything else", () => {
  test("null, 0, [], true and \"x\" -> 422 on every operation whose body is an object", async () => {
    const problems: string[] = [];
    for (const op of operations.filter((o) => takesObjectOnly(o.schema))) {
      for (const raw of ["null", "0", "[]", "true", '"x"']) {
        const r = await send(op, raw);
        track(op, r);
        if (r.status === 401 || r.status === 403) {
          problems.push(`${op.name}: the fuzz's credentials were refused (${r.text.slice(0, 120)})`);
          break;
        }
        if (r.status !== 422 || r.body?.error?.code !== "validation_failed") problems.push(`${op.name} with body ${raw}: ${r.status} ${r.text.slice(0, 160)}`);
      }
    }
    expect(problems).toEqual([]);
  });

  test("POST /v1/api-keys/:id/rotate with body null rotates nothing", async () => {
    const listed = async () => (await call("GET", "/v1/api-keys", { key: tenant.secretKey })).body.data.map((k: any) => `${k.id}:${k.expires_at}`).sort();
    const before = await listed();
    const r = await call("POST", `/v1/api-keys/${tenant.secretKeyId}/rotate`, { key: tenant.secretKey, rawBody: "null" });
    expect(r.status).toBe(422);
    expect(r.body.error.details).toEqual({ body: ["must be object"] });
    expect(await listed()).toEqual(before);
    // an absent body still rotates (the grace period defaults)
    const empty = await call("POST", `/v1/api-keys/${tenant.sandboxKeyId}/rotate`, { key: tenant.sandboxKey });
    expect(empty.status).toBe(201);
  });
});
