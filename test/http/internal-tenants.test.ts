// POST /api/internal/tenants with owner_email and `npm run create-tenant -- <name> --owner <email>`
// (issue 27 item 1): the owner's link signs them into that tenant; a taken or bad address creates nothing.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { ADMIN_TOKEN, call } from "../support/fixtures";
import type { FakeSmtp } from "../support/fake-smtp";
import { startMailerSmtp, stopMailerSmtp } from "../support/system-mail";
import { deleteTenants } from "../support/tenant-cleanup";
import { SESSION_COOKIE } from "../../http/session";
import { sql } from "../../store/db";

const run = crypto.randomUUID().slice(0, 8);
const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
const root = join(import.meta.dir, "..", "..");
let smtp: FakeSmtp;

beforeAll(async () => {
  smtp = await startMailerSmtp();
});
afterAll(async () => {
  await stopMailerSmtp(smtp);
  const rows = await sql<{ id: string }[]>`select id from tenants where name like ${`bootstrap-${run}%`}`;
  await deleteTenants(rows.map((r) => r.id));
});

async function signInWith(url: string) {
  const { pathname, search } = new URL(url);
  const res = await call("GET", pathname + search);
  expect(res.status).toBe(302);
  const c = res.headers.getSetCookie().find((h) => h.startsWith(`${SESSION_COOKIE}=`))!;
  return { cookie: c.split(";")[0]! };
}

describe("POST /api/internal/tenants {name, owner_email}", () => {
  test("creates the tenant, its key and its owner; the returned (and mailed) link signs the owner into that tenant", async () => {
    const email = `Owner-${run}@bootstrap-${run}.com`;
    const res = await call("POST", "/api/internal/tenants", { headers: admin, body: { name: `bootstrap-${run}-a`, owner_email: email } });
    expect(res.status).toBe(201);
    const data = res.body.data;
    expect(data.name).toBe(`bootstrap-${run}-a`);
    expect(data.api_key.raw_key).toMatch(/^nk_live_/);
    expect(data.owner).toMatchObject({ email: email.toLowerCase(), role: "owner" });
    expect(data.owner.sign_in_url).toMatch(/\/auth\/magic-link\/verify\?token=[A-Za-z0-9_%-]{40,}$/);
    const expires = Date.parse(data.owner.sign_in_expires_at) - Date.now();
    expect(expires).toBeGreaterThan(14 * 60_000);
    expect(expires).toBeLessThanOrEqual(15 * 60_000);

    // mailed too, with the same link
    const deadline = Date.now() + 5000;
    while (!smtp.messages.some((m) => m.rcptTo.includes(email.toLowerCase())) && Date.now() < deadline) await Bun.sleep(20);
    const mail = smtp.messages.find((m) => m.rcptTo.includes(email.toLowerCase()))!;
    expect(mail.raw.replace(/=\r?\n/g, "").replace(/=3D/g, "=")).toContain(data.owner.sign_in_url);
    expect(mail.raw).toContain(`bootstrap-${run}-a`);

    const headers = await signInWith(data.owner.sign_in_url);
    const me = await call("GET", "/v1/me", { headers });
    expect(me.body.data).toMatchObject({ id: data.owner.id, email: email.toLowerCase(), tenant_id: data.id, tenant_name: `bootstrap-${run}-a`, role: "owner" });
    // the session works on the tenant's data (the key and the session see the same tenant)
    const keys = await call("GET", "/v1/api-keys", { headers });
    expect(keys.body.data.map((k: { id: string }) => k.id)).toContain(data.api_key.id);
    // the link works once; afterwards the owner signs in with the address and lands in the same tenant
    const again = await call("GET", new URL(data.owner.sign_in_url).pathname + new URL(data.owner.sign_in_url).search);
    expect(again.status).toBe(400);
    const [audit] = await sql`select actor_type, action, metadata from audit_logs where tenant_id = ${data.id}`;
    expect(audit).toMatchObject({ actor_type: "system", action: "team_member.invited", metadata: { email: email.toLowerCase(), role: "owner" } });
  });

  test("without owner_email: owner is null and no dashboard user exists", async () => {
    const res = await call("POST", "/api/internal/tenants", { headers: admin, body: { name: `bootstrap-${run}-b` } });
    expect(res.status).toBe(201);
    expect(res.body.data.owner).toBeNull();
    expect((await sql`select 1 from users where tenant_id = ${res.body.data.id}`).length).toBe(0);
  });

  test("an address that already has a dashboard user: 409 email_taken and no tenant is created", async () => {
    const email = `taken-${run}@bootstrap-${run}.com`;
    expect((await call("POST", "/api/internal/tenants", { headers: admin, body: { name: `bootstrap-${run}-c`, owner_email: email } })).status).toBe(201);
    const res = await call("POST", "/api/internal/tenants", { headers: admin, body: { name: `bootstrap-${run}-d`, owner_email: email.toUpperCase() } });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe("email_taken");
    expect((await sql`select 1 from tenants where name = ${`bootstrap-${run}-d`}`).length).toBe(0);
  });

  test("a malformed owner_email: 422 naming owner_email, nothing created", async () => {
    const res = await call("POST", "/api/internal/tenants", { headers: admin, body: { name: `bootstrap-${run}-e`, owner_email: "not-an-address" } });
    expect(res.status).toBe(422);
    expect(res.body.error.details.owner_email).toEqual(["must be a valid email address"]);
    expect((await sql`select 1 from tenants where name = ${`bootstrap-${run}-e`}`).length).toBe(0);
  });
});

describe("npm run create-tenant -- <name> --owner <email>", () => {
  async function cli(...args: string[]) {
    const p = Bun.spawn([join(root, "node_modules/.bin/bun"), "scripts/create-tenant.ts", ...args], { cwd: root, stdout: "pipe", stderr: "pipe", env: process.env });
    const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
    return { out, err, code };
  }

  test("prints the tenant, its key and the owner's sign-in link, which signs the owner into it", async () => {
    const email = `cli-${run}@bootstrap-${run}.com`;
    const { out, err, code } = await cli(`bootstrap-${run}-cli`, "--owner", email);
    expect([code, err]).toEqual([0, ""]);
    expect(out).toMatch(new RegExp(`^tenant: +bootstrap-${run}-cli \\([0-9a-f-]{36}\\)$`, "m"));
    expect(out).toMatch(/^api key: +nk_live_\S+ /m);
    const link = /^sign in: +(\S+)$/m.exec(out)![1]!;
    const me = await call("GET", "/v1/me", { headers: await signInWith(link) });
    expect(me.body.data).toMatchObject({ email, tenant_name: `bootstrap-${run}-cli`, role: "owner" });
  }, 30_000);

  test("--json prints the API's answer; a taken address exits 1 with the error and creates nothing", async () => {
    const email = `cli2-${run}@bootstrap-${run}.com`;
    const first = await cli(`bootstrap-${run}-cli2`, "--owner", email, "--json");
    expect(first.code).toBe(0);
    expect(JSON.parse(first.out)).toMatchObject({ name: `bootstrap-${run}-cli2`, owner: { email, role: "owner" } });
    const second = await cli(`bootstrap-${run}-cli3`, "--owner", email);
    expect(second.code).toBe(1);
    expect(second.err).toContain("create-tenant: email_taken:");
    expect((await sql`select 1 from tenants where name = ${`bootstrap-${run}-cli3`}`).length).toBe(0);
    const usage = await cli();
    expect(usage.code).toBe(2);
    expect(usage.err).toContain("usage: npm run create-tenant");
  }, 30_000);
});
