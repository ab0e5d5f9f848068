// Table-driven isolation (issue 3, DESIGN.md 4: "another tenant's or the other environment's record
// is 404, never data"): walks EVERY authenticated route of the app, so routes added later are covered.
import { beforeAll, describe, expect, test } from "bun:test";
import { sql } from "../../store/db";
import { newId } from "../../store/ids";
import { app, call, createKey, createTenant } from "../support/fixtures";

type Tenant = Awaited<ReturnType<typeof createTenant>>;
let A: Tenant;
let B: Tenant;
/** Ids (and other secrets) of tenant A's production records; no foreign response may contain any. */
const secretsOfA = new Set<string>();
/** Route resource segment -> an id of A's record of that kind. */
const idsOfA: Record<string, string> = {};

const uniq = crypto.randomUUID().slice(0, 8);

async function created(method: string, path: string, body: unknown): Promise<any | null> {
  const r = await call(method, path, { key: A.secretKey, body });
  return r.status >= 200 && r.status < 300 ? r.body?.data ?? null : null;
}

beforeAll(async () => {
  A = await createTenant(`iso-a-${uniq}`);
  B = await createTenant(`iso-b-${uniq}`);

  // Records of A made through the API where a route exists (bodies per SPEC), else in SQL.
  const key = await created("POST", "/v1/api-keys", { key_type: "secret", label: "iso" });
  idsOfA["api-keys"] = key?.id ?? A.secretKeyId;
  const origin = await created("POST", "/v1/inbox-embed/allowed-origins", { origin: `https://iso-${uniq}.example.com` });
  if (origin) idsOfA["allowed-origins"] = origin.id;
  const externalId = `iso-sub-${uniq}`;
  let sub = await created("POST", "/v1/subscribers", { external_id: externalId, email: `iso-${uniq}@example.com`, name: "Iso" });
  if (!sub) {
    const id = newId();
    await sql`insert into subscribers (id, tenant_id, environment, external_id, email) values (${id}, ${A.tenant.id}, 'production', ${externalId}, ${`iso-${uniq}@example.com`})`;
    sub = { id };
  }
  idsOfA.subscribers = sub.id;
  secretsOfA.add(externalId);
  const tpl = await created("POST", "/v1/templates", { slug: `iso-${uniq}`, name: "Iso", channel: "email", content: "Hello {{ name }}" });
  if (tpl) idsOfA.templates = tpl.id;
  await created("POST", "/v1/channels", { channel: "in_app", provider: "inbox" });
  const notif = await created("POST", "/v1/notifications", { channel: "in_app", to: externalId, data: { title: "iso", body: "iso" } });
  if (notif) idsOfA.notifications = notif.id;
  // An inbox item for the :notif_id routes, in SQL (the inbox is filled by delivery, not by a route)
  const itemId = newId();
  await sql`insert into inbox_items (id, tenant_id, environment, subscriber_id, title, body) values (${itemId}, ${A.tenant.id}, 'production', ${sub.id}, 'iso', 'iso')`;
  idsOfA.notif_id = itemId;

  const [entry] = await sql`select id::text from audit_logs where tenant_id = ${A.tenant.id} limit 1`;
  if (entry) idsOfA["audit-logs"] = entry.id;

  for (const id of Object.values(idsOfA)) secretsOfA.add(id);
  secretsOfA.add(A.secretKey);
  secretsOfA.add(A.tenant.inbox_secret);
  secretsOfA.add(A.secretKeyId);
});

/** The value for a path parameter: A's record of the resource named just before it, else a fresh UUID. */
function paramValue(path: string, name: string): string {
  if (name === "channel") return "in_app";
  if (name === "domain") return `iso-${uniq}.example.com`;
  if (name === "notif_id" || name === "notification_id") return idsOfA.notif_id ?? newId();
  if (name === "provider") return "github";
  const parts = path.split("/");
  const i = parts.indexOf(`:${name}`);
  const resource = parts[i - 1] ?? "";
  return idsOfA[resource] ?? newId();
}

function fill(path: string): string {
  return path.replace(/:(\w+)/g, (_, name) => encodeURIComponent(paramValue(path, name)));
}

/** Bodies worth sending so a mutating route gets past validation to its tenant check. */
function bodyFor(method: string, path: string): unknown {
  if (method === "GET" || method === "DELETE" || method === "OPTIONS" || method === "HEAD") return undefined;
  if (path.includes("/preferences")) return { preferences: [{ category: "marketing", channel: "email", enabled: false }] };
  if (path.startsWith("/v1/subscribers/:id") && method === "PUT") return { name: "taken over" };
  if (path.startsWith("/v1/templates/:id") && method === "PUT") return { name: "taken over" };
  if (path.endsWith("/rotate")) return { grace_period_hours: 0 };
  return {};
}

// Public routes answer without credentials; everything else must answer 401/403 without them.
async function isAuthenticated(method: string, path: string): Promise<boolean> {
  const res = await app().handle(new Request(`http://localhost${fill(path)}`, { method }));
  await res.body?.cancel();
  return res.status === 401 || res.status === 403;
}

async function send(method: string, path: string, key: string) {
  const body = bodyFor(method, path);
  const headers: Record<string, string> = { authorization: `Bearer ${key}` };
  if (body !== undefined) headers["content-type"] = "application/json";
  const res = await app().handle(
    new Request(`http://localhost${fill(path)}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }),
  );
  // a stream that opened would never end: read what is there within a short time
  const text = res.headers.get("content-type")?.includes("event-stream")
    ? await Promise.race([res.text(), Bun.sleep(300).then(() => "<stream>")]).finally(() => res.body?.cancel().catch(() => {}))
    : await res.text();
  return { status: res.status, text };
}

const ALLOWED_WITH_PARAMS = [401, 403, 404, 422];
/**
 * Routes whose parameter is not A's record but a name every tenant has: a channel without
 * configuration is tested through its built-in provider (in_app everywhere, any channel in sandbox),
 * so another tenant gets its own 200; what it must not get is A's data, which `leaked` checks.
 */
const SHARED_NAMES = new Set(["POST /v1/channels/:channel/test"]);

describe("isolation: every authenticated route, with tenant B's key and with A's key of the other environment", () => {
  test("each route answers 404/403 (401/422 where that applies), never A's data; A's records are untouched", async () => {
    const routes = (app().routes as { method: string; path: string }[])
      .filter((r) => r.method !== "ALL" && r.method !== "OPTIONS")
      .map((r) => ({ method: r.method, path: r.path }));
    const sandboxOfA = await createKey(A.tenant.id, { environment: "sandbox" });
    const checked: string[] = [];
    const failures: string[] = [];
    // DELETEs last, so no route's check is weakened by an earlier foreign delete succeeding
    routes.sort((x, y) => Number(x.method === "DELETE") - Number(y.method === "DELETE"));
    for (const r of routes) {
      if (!(await isAuthenticated(r.method, r.path))) continue;
      checked.push(`${r.method} ${r.path}`);
      for (const [who, key] of [["tenant B", B.secretKey], ["A sandbox", sandboxOfA.raw]] as const) {
        const res = await send(r.method, r.path, key);
        const leaked = [...secretsOfA].filter((s) => res.text.includes(s));
        const hasParams = r.path.includes(":");
        const statusOk = hasParams && !SHARED_NAMES.has(`${r.method} ${r.path}`) ? ALLOWED_WITH_PARAMS.includes(res.status) : res.status < 500;
        if (leaked.length || !statusOk) {
          failures.push(`${r.method} ${r.path} as ${who}: ${res.status}${leaked.length ? ` leaked ${leaked.join(",")}` : ""} ${res.text.slice(0, 200)}`);
        }
      }
    }
    if (process.env.ISO_DEBUG) console.log(JSON.stringify({ idsOfA, checked }, null, 1));
    expect(failures).toEqual([]);
    // the walk really covered the app, including the auth routes
    expect(checked.length).toBeGreaterThan(15);
    for (const must of ["GET /v1/api-keys", "DELETE /v1/api-keys/:id", "POST /v1/api-keys/:id/rotate", "DELETE /v1/inbox-embed/allowed-origins/:id", "GET /api/internal/audit-logs/:id"]) {
      expect(checked).toContain(must);
    }
    // nothing of A was changed by the foreign calls
    const keys = await call("GET", "/v1/api-keys", { key: A.secretKey });
    expect(keys.text).toContain(idsOfA["api-keys"]!);
    if (idsOfA["allowed-origins"]) expect((await call("GET", "/v1/inbox-embed/allowed-origins", { key: A.secretKey })).text).toContain(idsOfA["allowed-origins"]);
    const [sub] = await sql`select deleted_at, name from subscribers where id = ${idsOfA.subscribers!}`;
    expect(sub!.deleted_at).toBeNull();
    expect(sub!.name === "taken over").toBe(false);
    const [rotated] = await sql`select expires_at, revoked_at from api_keys where id = ${idsOfA["api-keys"]!}`;
    expect(rotated).toEqual({ expires_at: null, revoked_at: null });
  }, 120_000);
});
