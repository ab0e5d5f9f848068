// Tenant offboarding (issue 26 item 4): DELETE /api/internal/tenants/:id answers 202 with progress,
// removes every record of the tenant in batches but keeps the audit log, and a process killed with
// SIGKILL half-way leaves a running offboarding that the retention job finishes.
import { afterAll, describe, expect, test } from "bun:test";
import { ADMIN_TOKEN, call, createTenant } from "../support/fixtures";
import { startApiProcess, type ApiProcess } from "../support/api-process";
import { deleteTenants } from "../support/tenant-cleanup";
import { seedInboxItem, seedManyNotifications, seedNotification, seedSubscriber, seedWebhookDelivery, seedWorkflowRun } from "../support/history-rows";
import { startRetentionJob } from "../../jobs/retention";
import { sql } from "../../store/db";
import { tenantTables } from "../../store/offboardings";

const run = crypto.randomUUID().slice(0, 8);
const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
const tenants: string[] = [];
let child: ApiProcess | null = null;

afterAll(async () => {
  await child?.stop();
  await deleteTenants(tenants);
});

async function tenant() {
  const t = await createTenant(`offboard-${run}`);
  tenants.push(t.tenant.id);
  return t;
}

/** Rows carrying the tenant's id, per table, leaving out the audit log and the offboarding record. */
async function leftovers(tenantId: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const table of await tenantTables(sql, { all: true })) {
    const [r] = await sql`select count(*)::int as n from ${sql(table)} where tenant_id = ${tenantId}`;
    if (r!.n > 0) out[table] = r!.n;
  }
  return out;
}

async function waitFor<T>(what: string, fn: () => Promise<T | undefined | null | false>, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(20);
  }
}

async function seedHistory(tenantId: string) {
  await seedNotification(tenantId, 1);
  await seedNotification(tenantId, 50);
  const sub = await seedSubscriber(tenantId);
  await seedInboxItem(tenantId, sub, 3);
  await seedWebhookDelivery(tenantId, 2);
  await seedWorkflowRun(tenantId, 1, "running");
  await seedWorkflowRun(tenantId, 1, "completed");
}

describe("DELETE /api/internal/tenants/:id", () => {
  test("202 with progress; every record goes in batches, the audit log stays, the key stops working, another tenant is untouched", async () => {
    const t = await tenant();
    const other = await tenant();
    await seedHistory(t.tenant.id);
    await seedHistory(other.tenant.id);
    expect((await call("PUT", "/v1/settings/retention", { key: t.secretKey, body: { inbox_days: 30 } })).status).toBe(200);
    expect(Object.keys(await leftovers(t.tenant.id)).length).toBeGreaterThan(8);

    const r = await call("DELETE", `/api/internal/tenants/${t.tenant.id}`, { headers: admin });
    expect(r.status).toBe(202);
    expect(r.body.data).toMatchObject({ tenant_id: t.tenant.id, tenant_name: `offboard-${run}`, status: "running", completed_at: null });
    expect(r.body.data.tables_total).toBe((await tenantTables()).length);

    const done = await waitFor("the offboarding to complete", async () => {
      const g = await call("GET", `/api/internal/tenants/${t.tenant.id}/offboarding`, { headers: admin });
      expect(g.status).toBe(200);
      return g.body.data.status === "completed" && g.body.data;
    });
    expect(done.rows_deleted).toBeGreaterThan(10);
    expect(done.completed_at).toMatch(/^\d{4}-/);
    expect(done.current_table).toBeNull();
    // keys and sessions went first
    expect(done.tables_done.slice(0, 2)).toEqual(["api_keys", "sessions"]);

    expect(await leftovers(t.tenant.id)).toEqual({});
    expect((await sql`select 1 from tenants where id = ${t.tenant.id}`).length).toBe(0);
    const audit = await sql<{ action: string }[]>`select action from audit_logs where tenant_id = ${t.tenant.id} order by inserted_at`;
    expect(audit.map((a) => a.action)).toEqual(["retention_settings.updated", "tenant.offboarding_started", "tenant.offboarded"]);
    expect((await call("GET", "/v1/settings/retention", { key: t.secretKey })).status).toBe(401);

    // the other tenant keeps everything
    expect(Object.keys(await leftovers(other.tenant.id)).length).toBeGreaterThan(8);
    expect((await call("GET", "/v1/settings/retention", { key: other.secretKey })).status).toBe(200);

    // repeating the DELETE answers the finished offboarding
    const again = await call("DELETE", `/api/internal/tenants/${t.tenant.id}`, { headers: admin });
    expect(again.status).toBe(200);
    expect(again.body.data.status).toBe("completed");
  });

  test("an unknown tenant is 404 tenant_not_found; without the admin token 401; no offboarding is 404 offboarding_not_found", async () => {
    const t = await tenant();
    const unknown = await call("DELETE", `/api/internal/tenants/${crypto.randomUUID()}`, { headers: admin });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe("tenant_not_found");
    expect((await call("DELETE", "/api/internal/tenants/not-a-uuid", { headers: admin })).status).toBe(404);
    const noToken = await call("DELETE", `/api/internal/tenants/${t.tenant.id}`, { key: t.secretKey });
    expect(noToken.status).toBe(401);
    expect((await sql`select 1 from tenants where id = ${t.tenant.id}`).length).toBe(1);
    const none = await call("GET", `/api/internal/tenants/${t.tenant.id}/offboarding`, { headers: admin });
    expect(none.status).toBe(404);
    expect(none.body.error.code).toBe("offboarding_not_found");
  });

  test("the API process killed (SIGKILL) half-way: the offboarding stays running, and the retention job finishes it", async () => {
    const t = await tenant();
    await seedManyNotifications(t.tenant.id, 6000);
    await seedHistory(t.tenant.id);
    // small batches with a pause, so the kill lands mid-way
    child = await startApiProcess({ RETENTION_BATCH_ROWS: "200", RETENTION_BATCH_PAUSE_MS: "25" });
    const res = await fetch(`${child.url}/api/internal/tenants/${t.tenant.id}`, { method: "DELETE", headers: admin });
    expect(res.status).toBe(202);
    await waitFor("the first batches", async () => {
      const [o] = await sql`select rows_deleted from tenant_offboardings where tenant_id = ${t.tenant.id}`;
      return Number(o?.rows_deleted ?? 0) >= 400;
    });
    const exited = new Promise((resolve) => child!.child.once("exit", resolve));
    child.child.kill("SIGKILL");
    await exited;
    child = null;

    const [mid] = await sql`select status, rows_deleted from tenant_offboardings where tenant_id = ${t.tenant.id}`;
    expect(mid!.status).toBe("running");
    const left = await leftovers(t.tenant.id);
    expect(Object.values(left).reduce((a, b) => a + b, 0)).toBeGreaterThan(1000);
    expect((await sql`select 1 from tenants where id = ${t.tenant.id}`).length).toBe(1);

    // the retention job resumes a running offboarding whose progress stopped moving
    const job = startRetentionJob({ everyMs: 3_600_000, offboardingStaleMs: 1 });
    try {
      await Bun.sleep(5);
      await job.runOnce();
      expect(job.failures).toBe(0);
    } finally {
      await job.stop();
    }
    const [end] = await sql`select status, rows_deleted from tenant_offboardings where tenant_id = ${t.tenant.id}`;
    expect(end!.status).toBe("completed");
    // notifications and events counted; their attempts left by cascade (uncounted), as leftovers() shows
    expect(Number(end!.rows_deleted)).toBeGreaterThanOrEqual(12_000);
    expect(await leftovers(t.tenant.id)).toEqual({});
    expect((await sql`select 1 from tenants where id = ${t.tenant.id}`).length).toBe(0);
    const actions = (await sql<{ action: string }[]>`select action from audit_logs where tenant_id = ${t.tenant.id}`).map((a) => a.action);
    expect(actions).toContain("tenant.offboarded");
  }, 60_000);
});
