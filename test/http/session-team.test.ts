// Team members (DESIGN 5: owner, admin, member; invite, remove, role change with team_member.*
// audit entries) through app.handle with real sessions, PostgreSQL and a local SMTP server.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { call, createTenant } from "../support/fixtures";
import type { FakeSmtp } from "../support/fake-smtp";
import { startMailerSmtp, stopMailerSmtp } from "../support/system-mail";
import { sql, type Tx } from "../../store/db";
import { config } from "../../config";
import { SESSION_COOKIE } from "../../http/session";
import { createSession } from "../../store/sessions";
import { findOrSignUp, insertUser, type Role } from "../../store/users";

const run = crypto.randomUUID().slice(0, 8);
const ORIGIN = new URL(config.appUrl).origin;
let smtp: FakeSmtp;

beforeAll(async () => {
  smtp = await startMailerSmtp();
});
afterAll(() => stopMailerSmtp(smtp));

let seq = 0;
/** A fresh tenant with its owner signed in; returns the owner's cookie header. */
async function ownerSession() {
  const email = `owner-${run}-${++seq}@team-${run}-${seq}.com`;
  const { user, session } = await sql.begin(async (t) => {
    const tx: Tx = t;
    const { user } = await findOrSignUp(tx, email);
    const session = await createSession(tx, { userId: user.id, tenantId: user.tenant_id, ip: null, userAgent: null });
    return { user, session };
  });
  return { user, headers: { cookie: `${SESSION_COOKIE}=${session.token}`, origin: ORIGIN } };
}

/** Another user in the same tenant with a role, signed in. */
async function memberSession(tenantId: string, role: Role) {
  const email = `${role}-${run}-${++seq}@team-${run}.com`;
  const { user, session } = await sql.begin(async (t) => {
    const tx: Tx = t;
    const user = await insertUser(tx, { tenantId, email, role });
    const session = await createSession(tx, { userId: user.id, tenantId, ip: null, userAgent: null });
    return { user, session };
  });
  return { user, headers: { cookie: `${SESSION_COOKIE}=${session.token}`, origin: ORIGIN } };
}

async function auditRows(tenantId: string, action: string) {
  return sql`select * from audit_logs where tenant_id = ${tenantId} and action = ${action} order by inserted_at`;
}

describe("GET /v1/team/members", () => {
  test("lists the tenant's members; members may read", async () => {
    const owner = await ownerSession();
    const member = await memberSession(owner.user.tenant_id, "member");
    const res = await call("GET", "/v1/team/members", { headers: member.headers });
    expect(res.status).toBe(200);
    expect(res.body.data.map((m: any) => m.email).sort()).toEqual([owner.user.email, member.user.email].sort());
    expect(Object.keys(res.body.data[0]).sort()).toEqual(["created_at", "email", "id", "last_login_at", "name", "role"]);
  });

  test("another tenant's members never appear", async () => {
    const a = await ownerSession();
    const b = await ownerSession();
    const res = await call("GET", "/v1/team/members", { headers: a.headers });
    expect(res.body.data.some((m: any) => m.id === b.user.id)).toBe(false);
  });

  test("session only: no session -> 401, an API key -> 403 session_required", async () => {
    expect((await call("GET", "/v1/team/members")).status).toBe(401);
    const { secretKey } = await createTenant();
    const res = await call("GET", "/v1/team/members", { key: secretKey });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe("session_required");
  });
});

describe("POST /v1/team/members (invite)", () => {
  test("owner invites: 201, the user exists with the role, an invite link is mailed, audit team_member.invited {email, role}", async () => {
    const owner = await ownerSession();
    const email = `invitee-${run}@team-${run}.com`;
    smtp.reset();
    const res = await call("POST", "/v1/team/members", {
      headers: { ...owner.headers, "user-agent": "dash/1", "x-test-client-ip": "203.0.113.9" },
      body: { email: email.toUpperCase(), role: "admin" },
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ email, role: "admin", name: null, last_login_at: null });
    const [audit] = await auditRows(owner.user.tenant_id, "team_member.invited");
    expect(audit).toMatchObject({
      actor_type: "user",
      actor_id: owner.user.id,
      resource_type: "team_member",
      resource_id: res.body.data.id,
      metadata: { email, role: "admin" },
      user_agent: "dash/1",
      ip_address: "203.0.113.9",
    });
    // the mailed link signs the invitee into the inviting tenant
    const [mail] = await smtp.waitForMessages(1);
    const body = mail!.raw.replace(/=\r?\n/g, "").replace(/=3D/g, "=");
    const token = decodeURIComponent(/magic-link\/verify\?token=([A-Za-z0-9_%-]+)/.exec(body)![1]!);
    const verify = await call("GET", `/auth/magic-link/verify?token=${token}`);
    expect(verify.status).toBe(302);
    const cookie = verify.headers.getSetCookie().find((c) => c.startsWith(`${SESSION_COOKIE}=`))!.split(";")[0]!;
    const me = await call("GET", "/v1/me", { headers: { cookie } });
    expect(me.body.data).toMatchObject({ email, role: "admin", tenant_id: owner.user.tenant_id });
  });

  test("a member cannot invite -> 403 insufficient_permissions; nothing written", async () => {
    const owner = await ownerSession();
    const member = await memberSession(owner.user.tenant_id, "member");
    const res = await call("POST", "/v1/team/members", {
      headers: member.headers,
      body: { email: `nope-${run}@team-${run}.com`, role: "member" },
    });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe("insufficient_permissions");
    expect((await auditRows(owner.user.tenant_id, "team_member.invited")).length).toBe(0);
  });

  test("an admin may invite members and admins but not owners", async () => {
    const owner = await ownerSession();
    const admin = await memberSession(owner.user.tenant_id, "admin");
    const ok = await call("POST", "/v1/team/members", { headers: admin.headers, body: { email: `m-${run}-${seq}@x-${run}.com`, role: "member" } });
    expect(ok.status).toBe(201);
    const no = await call("POST", "/v1/team/members", { headers: admin.headers, body: { email: `o-${run}-${seq}@x-${run}.com`, role: "owner" } });
    expect(no.status).toBe(403);
  });

  test("validation: bad email or role -> 422; blocked domain -> 422 email_domain_blocked; existing address -> 409 email_taken", async () => {
    const owner = await ownerSession();
    const badEmail = await call("POST", "/v1/team/members", { headers: owner.headers, body: { email: "nope", role: "member" } });
    expect(badEmail.status).toBe(422);
    expect(badEmail.body.error.details.email).toBeDefined();
    const badRole = await call("POST", "/v1/team/members", { headers: owner.headers, body: { email: `r-${run}@x.com`, role: "god" } });
    expect(badRole.status).toBe(422);
    expect(badRole.body.error.code).toBe("validation_failed");
    const blocked = await call("POST", "/v1/team/members", { headers: owner.headers, body: { email: `b-${run}@mailinator.com`, role: "member" } });
    expect(blocked.status).toBe(422);
    expect(blocked.body.error.code).toBe("email_domain_blocked");
    const taken = await call("POST", "/v1/team/members", { headers: owner.headers, body: { email: owner.user.email, role: "member" } });
    expect(taken.status).toBe(409);
    expect(taken.body.error.code).toBe("email_taken");
  });

  test("DESIGN 5: a cookie POST without Origin == APP_URL -> 403 origin_not_allowed", async () => {
    const owner = await ownerSession();
    const res = await call("POST", "/v1/team/members", {
      headers: { cookie: owner.headers.cookie, origin: "https://attacker.example" },
      body: { email: `csrf-${run}@x-${run}.com`, role: "admin" },
    });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe("origin_not_allowed");
    const noOrigin = await call("POST", "/v1/team/members", {
      headers: { cookie: owner.headers.cookie },
      body: { email: `csrf2-${run}@x-${run}.com`, role: "admin" },
    });
    expect(noOrigin.status).toBe(403);
    expect((await auditRows(owner.user.tenant_id, "team_member.invited")).length).toBe(0);
  });
});

describe("PUT /v1/team/members/:id (role change)", () => {
  test("owner changes a role: 200 and audit team_member.role_changed {old_role, new_role}", async () => {
    const owner = await ownerSession();
    const m = await memberSession(owner.user.tenant_id, "member");
    const res = await call("PUT", `/v1/team/members/${m.user.id}`, { headers: owner.headers, body: { role: "admin" } });
    expect(res.status).toBe(200);
    expect(res.body.data.role).toBe("admin");
    const [audit] = await auditRows(owner.user.tenant_id, "team_member.role_changed");
    expect(audit).toMatchObject({
      actor_type: "user",
      actor_id: owner.user.id,
      resource_id: m.user.id,
      metadata: { old_role: "member", new_role: "admin" },
    });
    const me = await call("GET", "/v1/me", { headers: m.headers });
    expect(me.body.data.role).toBe("admin");
  });

  test("the last owner cannot be demoted -> 409 last_owner; with two owners it works", async () => {
    const owner = await ownerSession();
    const res = await call("PUT", `/v1/team/members/${owner.user.id}`, { headers: owner.headers, body: { role: "admin" } });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe("last_owner");
    const second = await memberSession(owner.user.tenant_id, "owner");
    const ok = await call("PUT", `/v1/team/members/${owner.user.id}`, { headers: second.headers, body: { role: "admin" } });
    expect(ok.status).toBe(200);
  });

  test("two owners demoting each other at once: exactly one succeeds", async () => {
    const a = await ownerSession();
    const b = await memberSession(a.user.tenant_id, "owner");
    const [ra, rb] = await Promise.all([
      call("PUT", `/v1/team/members/${b.user.id}`, { headers: a.headers, body: { role: "member" } }),
      call("PUT", `/v1/team/members/${a.user.id}`, { headers: b.headers, body: { role: "member" } }),
    ]);
    // the loser either waited for the winner's lock (409 last_owner) or was already demoted when its
    // request was authenticated (403: a member may not change roles); both refuse, one succeeds
    const statuses = [ra.status, rb.status].sort();
    expect(statuses[0]).toBe(200);
    expect([403, 409]).toContain(statuses[1]!);
    const owners = await sql`select 1 from users where tenant_id = ${a.user.tenant_id} and role = 'owner'`;
    expect(owners.length).toBe(1);
  });

  test("members cannot change roles (403); admins cannot touch owners (403); unknown id and other tenant's member -> 404", async () => {
    const owner = await ownerSession();
    const member = await memberSession(owner.user.tenant_id, "member");
    const admin = await memberSession(owner.user.tenant_id, "admin");
    expect((await call("PUT", `/v1/team/members/${admin.user.id}`, { headers: member.headers, body: { role: "member" } })).status).toBe(403);
    expect((await call("PUT", `/v1/team/members/${owner.user.id}`, { headers: admin.headers, body: { role: "member" } })).status).toBe(403);
    expect((await call("PUT", `/v1/team/members/${member.user.id}`, { headers: admin.headers, body: { role: "owner" } })).status).toBe(403);
    const other = await ownerSession();
    const foreign = await call("PUT", `/v1/team/members/${other.user.id}`, { headers: owner.headers, body: { role: "member" } });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe("team_member_not_found");
    expect((await call("PUT", `/v1/team/members/not-a-uuid`, { headers: owner.headers, body: { role: "member" } })).status).toBe(404);
    expect((await call("PUT", `/v1/team/members/${member.user.id}`, { headers: owner.headers, body: { role: "boss" } })).status).toBe(422);
  });
});

describe("DELETE /v1/team/members/:id", () => {
  test("owner removes a member: 204, their sessions end, audit team_member.removed {email, role}", async () => {
    const owner = await ownerSession();
    const m = await memberSession(owner.user.tenant_id, "admin");
    const res = await call("DELETE", `/v1/team/members/${m.user.id}`, { headers: owner.headers });
    expect(res.status).toBe(204);
    expect((await call("GET", "/v1/me", { headers: m.headers })).status).toBe(401);
    const [audit] = await auditRows(owner.user.tenant_id, "team_member.removed");
    expect(audit).toMatchObject({
      actor_type: "user",
      actor_id: owner.user.id,
      resource_type: "team_member",
      resource_id: m.user.id,
      metadata: { email: m.user.email, role: "admin" },
    });
    expect((await call("DELETE", `/v1/team/members/${m.user.id}`, { headers: owner.headers })).status).toBe(404);
  });

  test("cannot remove the last owner -> 409 last_owner", async () => {
    const owner = await ownerSession();
    const res = await call("DELETE", `/v1/team/members/${owner.user.id}`, { headers: owner.headers });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe("last_owner");
    expect((await auditRows(owner.user.tenant_id, "team_member.removed")).length).toBe(0);
  });

  test("members cannot remove anyone (403); admins cannot remove owners (403)", async () => {
    const owner = await ownerSession();
    const member = await memberSession(owner.user.tenant_id, "member");
    const admin = await memberSession(owner.user.tenant_id, "admin");
    expect((await call("DELETE", `/v1/team/members/${admin.user.id}`, { headers: member.headers })).status).toBe(403);
    expect((await call("DELETE", `/v1/team/members/${owner.user.id}`, { headers: admin.headers })).status).toBe(403);
    expect((await call("DELETE", `/v1/team/members/${member.user.id}`, { headers: admin.headers })).status).toBe(204);
  });
});
