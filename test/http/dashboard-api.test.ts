// The routes the dashboard added to the API: GET /v1/providers (the field description the channel
// forms are built from), GET /auth/providers (configured OAuth sign-ins), GET /v1/team/audit-logs.
import { afterAll, describe, expect, test } from "bun:test";
import { call, createKey, createTenant } from "../support/fixtures";
import { deleteTenants } from "../support/tenant-cleanup";
import { sql, type Tx } from "../../store/db";
import { config } from "../../config";
import { SESSION_COOKIE } from "../../http/session";
import { createSession } from "../../store/sessions";
import { insertUser, type Role } from "../../store/users";
import { getProviderDefinition, PROVIDER_NAMES } from "../../providers/registry";

const run = crypto.randomUUID().slice(0, 8);
const ORIGIN = new URL(config.appUrl).origin;
const tenantIds: string[] = [];
afterAll(() => deleteTenants(tenantIds));

async function tenant() {
  const t = await createTenant(`dash-${run}`);
  tenantIds.push(t.tenant.id);
  return t;
}

async function signedIn(tenantId: string, role: Role) {
  const email = `${role}-${crypto.randomUUID().slice(0, 8)}@dash-${run}.com`;
  const session = await sql.begin(async (t) => {
    const tx: Tx = t;
    const user = await insertUser(tx, { tenantId, email, role });
    return createSession(tx, { userId: user.id, tenantId, ip: null, userAgent: null });
  });
  return { cookie: `${SESSION_COOKIE}=${session.token}`, origin: ORIGIN };
}

describe("GET /v1/providers", () => {
  test("every registry provider with its channels and typed fields, to a secret key and to a session", async () => {
    const t = await tenant();
    const byKey = await call("GET", "/v1/providers", { key: t.secretKey });
    expect(byKey.status).toBe(200);
    expect(byKey.body.data.map((p: any) => p.name)).toEqual([...PROVIDER_NAMES]);
    for (const p of byKey.body.data) {
      const def = getProviderDefinition(p.name)!;
      expect(p.channels).toEqual(def.channels);
      expect(p.default_rate_limit_per_second).toBe(def.defaultRateLimitPerSecond);
      expect(p.credential_fields).toEqual(def.credentialFields);
      expect(p.setting_fields).toEqual(def.settingFields);
      for (const f of [...p.credential_fields, ...p.setting_fields]) expect(["string", "number", "integer", "boolean", "object"]).toContain(f.type);
    }
    const smtp = byKey.body.data.find((p: any) => p.name === "smtp");
    expect(smtp.setting_fields.find((f: any) => f.name === "port")).toMatchObject({ type: "integer", required: false });
    expect(smtp.setting_fields.find((f: any) => f.name === "secure").type).toBe("boolean");
    expect(byKey.body.data.find((p: any) => p.name === "fcm").credential_fields[0]).toMatchObject({ name: "service_account", type: "object", required: true });

    const bySession = await call("GET", "/v1/providers", { headers: await signedIn(t.tenant.id, "member") });
    expect(bySession.status).toBe(200);
    expect(bySession.body).toEqual(byKey.body);
  });

  test("no credentials: 401; a publishable key: 403", async () => {
    expect((await call("GET", "/v1/providers")).body.error.code).toBe("invalid_api_key");
    const t = await tenant();
    const pk = await createKey(t.tenant.id, { keyType: "publishable" });
    const r = await call("GET", "/v1/providers", { key: pk.raw });
    expect([r.status, r.body.error.code]).toEqual([403, "insufficient_permissions"]);
  });
});

describe("GET /auth/providers", () => {
  const saved = { id: process.env.GITHUB_CLIENT_ID, secret: process.env.GITHUB_CLIENT_SECRET };
  afterAll(() => {
    for (const [k, v] of [["GITHUB_CLIENT_ID", saved.id], ["GITHUB_CLIENT_SECRET", saved.secret]] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });

  test("lists only the providers with a client id and secret, each with its start URL on PUBLIC_URL", async () => {
    delete process.env.GITHUB_CLIENT_ID;
    delete process.env.GITHUB_CLIENT_SECRET;
    const none = await call("GET", "/auth/providers");
    expect(none.status).toBe(200);
    expect(none.body.data.filter((p: any) => p.name === "github")).toEqual([]);

    process.env.GITHUB_CLIENT_ID = "dash-client";
    process.env.GITHUB_CLIENT_SECRET = "dash-secret";
    const some = await call("GET", "/auth/providers");
    expect(some.body.data).toContainEqual({ name: "github", start_url: `${config.publicUrl.replace(/\/$/, "")}/auth/github` });
    // the listed URL starts the real flow
    const start = await call("GET", "/auth/github");
    expect(start.status).toBe(302);
  });
});

describe("GET /v1/team/audit-logs", () => {
  test("an owner or admin reads their own tenant's entries, newest first, with the admin route's filters", async () => {
    const t = await tenant();
    const other = await tenant();
    const owner = await signedIn(t.tenant.id, "owner");
    // two audited changes in this tenant (api_key.created), one in another tenant
    const a = await call("POST", "/v1/api-keys", { headers: owner, body: { label: `audit-${run}-a` } });
    const b = await call("POST", "/v1/api-keys", { headers: { ...owner, "x-environment": "sandbox" }, body: { label: `audit-${run}-b` } });
    expect([a.status, b.status]).toEqual([201, 201]);
    await call("POST", "/v1/api-keys", { key: other.secretKey, body: { label: "elsewhere" } });

    const all = await call("GET", "/v1/team/audit-logs", { headers: owner });
    expect(all.status).toBe(200);
    expect(all.body.count).toBe(all.body.audit_logs.length);
    expect(all.body.audit_logs.every((e: any) => e.tenant_id === t.tenant.id)).toBe(true);
    const created = all.body.audit_logs.filter((e: any) => e.action === "api_key.created" && e.actor_type === "user");
    expect(created.map((e: any) => e.resource_id)).toEqual([b.body.data.id, a.body.data.id]); // both environments, newest first

    const admin = await signedIn(t.tenant.id, "admin");
    const filtered = await call("GET", `/v1/team/audit-logs?action=api_key.created&actor_type=user&limit=1`, { headers: admin });
    expect(filtered.body.audit_logs.map((e: any) => e.resource_id)).toEqual([b.body.data.id]);
    const older = await call("GET", `/v1/team/audit-logs?action=api_key.created&actor_type=user&end_date=${encodeURIComponent(created[1].inserted_at)}`, { headers: admin });
    // inclusive to the microsecond: the entry whose inserted_at is the bound is in
    expect(older.body.audit_logs.map((e: any) => e.resource_id)).toEqual([a.body.data.id]);
    // a tenant_id in the query changes nothing: the session's tenant is the one read
    const foreign = await call("GET", `/v1/team/audit-logs?tenant_id=${other.tenant.id}`, { headers: owner });
    expect(foreign.body.audit_logs.every((e: any) => e.tenant_id === t.tenant.id)).toBe(true);
  });

  test("members get 403, API keys 403 session_required, no session 401, bad filters 422 naming the field", async () => {
    const t = await tenant();
    const member = await call("GET", "/v1/team/audit-logs", { headers: await signedIn(t.tenant.id, "member") });
    expect([member.status, member.body.error.code, member.body.error.message]).toEqual([403, "insufficient_permissions", "Only owners and admins read the audit log"]);
    const key = await call("GET", "/v1/team/audit-logs", { key: t.secretKey });
    expect([key.status, key.body.error.code]).toEqual([403, "session_required"]);
    const anonymous = await call("GET", "/v1/team/audit-logs");
    expect([anonymous.status, anonymous.body.error.code]).toEqual([401, "invalid_session"]);
    const bad = await call("GET", "/v1/team/audit-logs?actor_type=robot&start_date=yesterday&limit=500", { headers: await signedIn(t.tenant.id, "owner") });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.error.details).sort()).toEqual(["actor_type", "limit", "start_date"]);
  });
});
