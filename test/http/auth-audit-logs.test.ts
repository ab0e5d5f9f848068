// The audit log (SPEC "Audit log entry", "Audit logs (admin only)", DESIGN.md 6): immutable for the
// application's role, written in the change's transaction, and read through the admin routes.
import { describe, expect, test } from "bun:test";
import { sql } from "../../store/db";
import { writeAudit } from "../../store/audit";
import { ADMIN_TOKEN, call, createTenant } from "../support/fixtures";

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
const list = (qs: string) => call("GET", `/api/internal/audit-logs${qs}`, { headers: admin });

function expectError(r: { status: number; body: any }, status: number, code: string) {
  expect(r.status).toBe(status);
  expect(r.body.error.code).toBe(code);
}

async function seed() {
  const a = await createTenant();
  const ids: string[] = [];
  const mk = (action: string, actorType: "user" | "api_key" | "system", resourceType: string, resourceId: string, actorId: string | null) =>
    sql.begin(async (tx) =>
      ids.push(
        await writeAudit(tx as any, {
          tenantId: a.tenant.id,
          actorType,
          actorId,
          action,
          resourceType,
          resourceId,
          metadata: { n: ids.length },
          ip: "192.0.2.1",
          userAgent: "test-agent",
        }),
      ),
    );
  await mk("api_key.created", "api_key", "api_key", "k1", "actor-1");
  await mk("api_key.revoked", "api_key", "api_key", "k1", "actor-1");
  await mk("team_member.invited", "user", "team_member", "m1", "user-1");
  await mk("subscription.expired", "system", "subscription", "s1", null);
  return { a, ids };
}

describe("SPEC Audit log entry: UPDATE and DELETE are refused by PostgreSQL for the application's role", () => {
  test("UPDATE, DELETE and TRUNCATE through the app's own connection fail; the row is unchanged", async () => {
    const { ids } = await seed();
    const id = ids[0]!;
    // each attempt runs in a transaction rolled back whatever happens, so a missing trigger fails
    // the test without destroying the shared table
    const attempt = (stmt: (tx: any) => Promise<unknown>) =>
      sql.begin(async (tx) => {
        await stmt(tx);
        throw new Error("statement was allowed");
      });
    await expect(attempt((tx) => tx`update audit_logs set action = 'tampered' where id = ${id}`)).rejects.toThrow(/immutable/);
    await expect(attempt((tx) => tx`delete from audit_logs where id = ${id}`)).rejects.toThrow(/immutable/);
    await expect(attempt((tx) => tx`truncate audit_logs`)).rejects.toThrow(/immutable/);
    const [row] = await sql`select action from audit_logs where id = ${id}`;
    expect(row!.action).toBe("api_key.created");
  });

  test("entries are written in the same transaction as the change: a rolled-back change leaves no entry", async () => {
    const a = await createTenant();
    let id = "";
    await expect(
      sql.begin(async (tx) => {
        id = await writeAudit(tx as any, { tenantId: a.tenant.id, actorType: "system", actorId: null, action: "x.y", resourceType: "x", resourceId: null });
        throw new Error("change failed");
      }),
    ).rejects.toThrow("change failed");
    expect(await sql`select 1 from audit_logs where id = ${id}`).toHaveLength(0);
  });
});

describe("GET /api/internal/audit-logs (SPEC: admin only)", () => {
  test("requires the admin bearer token, not an API key (401)", async () => {
    const a = await createTenant();
    expectError(await call("GET", `/api/internal/audit-logs?tenant_id=${a.tenant.id}`, { key: a.secretKey }), 401, "invalid_admin_token");
    expectError(await call("GET", `/api/internal/audit-logs?tenant_id=${a.tenant.id}`), 401, "invalid_admin_token");
  });

  test("200 {audit_logs, count}; entries carry exactly SPEC's fields; inserted_at with microseconds", async () => {
    const { a, ids } = await seed();
    const r = await list(`?tenant_id=${a.tenant.id}`);
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(["audit_logs", "count"]);
    expect(r.body.count).toBe(r.body.audit_logs.length);
    expect(r.body.audit_logs.map((e: any) => e.id)).toEqual([...ids].reverse()); // newest first
    for (const e of r.body.audit_logs) {
      expect(Object.keys(e).sort()).toEqual(
        // SPEC's fields, plus the names looked up when read (issue 27: people's emails and key prefixes)
        ["action", "actor_id", "actor_name", "actor_type", "id", "inserted_at", "ip_address", "metadata", "resource_id", "resource_name", "resource_type", "tenant_id", "user_agent"].sort(),
      );
      expect(e.inserted_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
      expect(e.tenant_id).toBe(a.tenant.id);
    }
    const system = r.body.audit_logs.find((e: any) => e.actor_type === "system");
    expect(system).toMatchObject({ actor_id: null, ip_address: null, user_agent: null }); // SPEC: null for system actions
    const byUser = r.body.audit_logs.find((e: any) => e.actor_type === "user");
    expect(byUser).toMatchObject({ actor_id: "user-1", ip_address: "192.0.2.1", user_agent: "test-agent", metadata: { n: 2 } });
  });

  test("inserted_at keeps PostgreSQL's microseconds", async () => {
    const { a, ids } = await seed();
    const [row] = await sql`select to_char(inserted_at at time zone 'UTC', 'US') as us from audit_logs where id = ${ids[0]!}`;
    const r = await call("GET", `/api/internal/audit-logs/${ids[0]}`, { headers: admin });
    expect(r.body.data.inserted_at.slice(20, 26)).toBe(row!.us);
    expect(r.body.data.tenant_id).toBe(a.tenant.id);
  });

  test("filters: action, resource_type, resource_id, actor_type, actor_id", async () => {
    const { a } = await seed();
    const q = async (f: string) => (await list(`?tenant_id=${a.tenant.id}&${f}`)).body.audit_logs.map((e: any) => e.action);
    expect(await q("action=api_key.created")).toEqual(["api_key.created"]);
    expect(await q("resource_type=api_key")).toEqual(["api_key.revoked", "api_key.created"]);
    expect(await q("resource_id=m1")).toEqual(["team_member.invited"]);
    expect(await q("actor_type=system")).toEqual(["subscription.expired"]);
    expect(await q("actor_type=user")).toEqual(["team_member.invited"]);
    expect(await q("actor_id=actor-1&action=api_key.revoked")).toEqual(["api_key.revoked"]);
    expect(await q("action=none")).toEqual([]);
  });

  test("start_date / end_date (ISO 8601) bound inserted_at", async () => {
    const { a } = await seed();
    const future = new Date(Date.now() + 3600_000).toISOString();
    const past = new Date(Date.now() - 3600_000).toISOString();
    expect((await list(`?tenant_id=${a.tenant.id}&start_date=${future}`)).body.count).toBe(0);
    expect((await list(`?tenant_id=${a.tenant.id}&start_date=${past}`)).body.count).toBe(4);
    expect((await list(`?tenant_id=${a.tenant.id}&end_date=${past}`)).body.count).toBe(0);
    expect((await list(`?tenant_id=${a.tenant.id}&start_date=${past}&end_date=${future}`)).body.count).toBe(4);
    expect((await list(`?tenant_id=${a.tenant.id}&start_date=2020-01-01`)).body.count).toBe(4);
  });

  test("limit: default 50, max 200 (SPEC Limits)", async () => {
    const a = await createTenant();
    await sql.begin(async (tx) => {
      for (let i = 0; i < 55; i++) {
        await writeAudit(tx as any, { tenantId: a.tenant.id, actorType: "system", actorId: null, action: "bulk.test", resourceType: "x", resourceId: String(i) });
      }
    });
    expect((await list(`?tenant_id=${a.tenant.id}`)).body.count).toBe(50);
    expect((await list(`?tenant_id=${a.tenant.id}&limit=200`)).body.count).toBe(55);
    expect((await list(`?tenant_id=${a.tenant.id}&limit=3`)).body.count).toBe(3);
    expectError(await list(`?tenant_id=${a.tenant.id}&limit=201`), 422, "validation_failed");
    expectError(await list(`?tenant_id=${a.tenant.id}&limit=0`), 422, "validation_failed");
    expectError(await list(`?tenant_id=${a.tenant.id}&limit=abc`), 422, "validation_failed");
  });

  test("422 validation_failed: tenant_id missing or not a UUID, bad dates, unknown actor_type", async () => {
    const a = await createTenant();
    const missing = await list("");
    expectError(missing, 422, "validation_failed");
    expect(missing.body.error.details.tenant_id).toBeArray();
    expectError(await list("?tenant_id=nope"), 422, "validation_failed");
    for (const bad of ["start_date=yesterday", "end_date=2024-13-45", "start_date=12/01/2024", "end_date=1700000000"]) {
      const r = await list(`?tenant_id=${a.tenant.id}&${bad}`);
      expectError(r, 422, "validation_failed");
      expect(Object.keys(r.body.error.details)).toEqual([bad.split("=")[0]!]);
    }
    expectError(await list(`?tenant_id=${a.tenant.id}&actor_type=robot`), 422, "validation_failed");
  });

  test("another tenant's entries never appear", async () => {
    const { ids } = await seed();
    const b = await createTenant();
    const r = await list(`?tenant_id=${b.tenant.id}`);
    for (const id of ids) expect(r.text).not.toContain(id);
  });
});

describe("GET /api/internal/audit-logs/:id", () => {
  test("200 {data: entry}; unknown or malformed id -> 404", async () => {
    const { ids } = await seed();
    const r = await call("GET", `/api/internal/audit-logs/${ids[1]}`, { headers: admin });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ id: ids[1], action: "api_key.revoked", resource_id: "k1" });
    expectError(await call("GET", `/api/internal/audit-logs/${crypto.randomUUID()}`, { headers: admin }), 404, "not_found");
    expectError(await call("GET", `/api/internal/audit-logs/xyz`, { headers: admin }), 404, "not_found");
    expectError(await call("GET", `/api/internal/audit-logs/${ids[1]}`), 401, "invalid_admin_token");
  });
});

describe("SPEC Audit events: actor_type set by who acted", () => {
  test("an API key action is recorded with actor_type api_key, the key id, the caller's IP and user agent", async () => {
    const a = await createTenant();
    const r = await call("POST", "/v1/api-keys", {
      key: a.secretKey,
      body: { key_type: "secret" },
      headers: { "x-test-client-ip": "198.51.100.9", "user-agent": "nms-test/1" },
    });
    const [e] = (await list(`?tenant_id=${a.tenant.id}&resource_id=${r.body.data.id}`)).body.audit_logs;
    expect(e).toMatchObject({ actor_type: "api_key", actor_id: a.secretKeyId, ip_address: "198.51.100.9", user_agent: "nms-test/1", action: "api_key.created" });
  });
});

describe("names in the audit log (issue 27): people by email, keys by prefix", () => {
  test("a key created through the API names its actor key and the new key by prefix and label; a removed member keeps the email", async () => {
    const t = await createTenant();
    const created = await call("POST", "/v1/api-keys", { key: t.secretKey, body: { key_type: "secret", label: "ci deploys", environment: "production" } });
    expect(created.status).toBe(201);
    const r = await call("GET", `/api/internal/audit-logs?tenant_id=${t.tenant.id}&action=api_key.created`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    const e = r.body.audit_logs[0];
    expect(e.actor_type).toBe("api_key");
    expect(e.actor_name).toBe(`${t.secretKey.slice(0, 12)} (default)`);
    expect(e.resource_name).toBe(`${created.body.data.prefix} (ci deploys)`);
    await sql.begin(async (tx) => {
      await writeAudit(tx, { tenantId: t.tenant.id, actorType: "system", actorId: null, action: "team_member.removed", resourceType: "team_member", resourceId: crypto.randomUUID(), metadata: { email: "gone@example.com", role: "member" } });
    });
    const removed = await call("GET", `/api/internal/audit-logs?tenant_id=${t.tenant.id}&action=team_member.removed`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(removed.body.audit_logs[0]).toMatchObject({ actor_name: null, resource_name: "gone@example.com" });
  });
});
