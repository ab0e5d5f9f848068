// Dashboard sign-in by magic link against real PostgreSQL, Redis and a local SMTP server:
// sign-up and login, single use and expiry, cookie flags, /v1/me, logout, and the Origin rule.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { call, createTenant } from "../support/fixtures";
import type { FakeSmtp } from "../support/fake-smtp";
import { smtpUrlOf, startMailerSmtp, stopMailerSmtp } from "../support/system-mail";
import { useSmtpUrl } from "../../domain/system-mail/mailer";
import { sql } from "../../store/db";
import { config } from "../../config";
import { resolveSession, SESSION_COOKIE, sessionCookie } from "../../http/session";
import { ApiError } from "../support/app-error-status";
import { hashToken } from "../../store/sessions";

let smtp: FakeSmtp;
const run = crypto.randomUUID().slice(0, 8);
const APP_ORIGIN = new URL(config.appUrl).origin;

beforeAll(async () => {
  smtp = await startMailerSmtp();
});
afterAll(() => stopMailerSmtp(smtp));

/** The magic-link token of the newest mail to `to` (quoted-printable unfolded). */
async function tokenFromMail(to: string): Promise<string> {
  const deadline = Date.now() + 5000;
  while (Date.now() < deadline) {
    const msg = [...smtp.messages].reverse().find((m) => m.rcptTo.includes(to));
    if (msg) {
      const body = msg.raw.replace(/=\r?\n/g, "").replace(/=3D/g, "=");
      const m = /magic-link\/verify\?token=([A-Za-z0-9_%-]+)/.exec(body);
      if (m) return decodeURIComponent(m[1]!);
    }
    await Bun.sleep(20);
  }
  throw new Error(`no magic link mailed to ${to}`);
}

function setCookies(res: { headers: Headers }): string[] {
  return res.headers.getSetCookie();
}

function sessionCookieOf(res: { headers: Headers }): string | null {
  const c = setCookies(res).find((h) => h.startsWith(`${SESSION_COOKIE}=`));
  if (!c) return null;
  return decodeURIComponent(c.split(";")[0]!.slice(SESSION_COOKIE.length + 1));
}

async function requestLink(email: string) {
  smtp.reset();
  const res = await call("POST", "/auth/magic-link", { body: { email } });
  expect(res.status).toBe(202);
  return tokenFromMail(email.toLowerCase());
}

async function signIn(email: string): Promise<string> {
  const token = await requestLink(email);
  const res = await call("GET", `/auth/magic-link/verify?token=${encodeURIComponent(token)}`);
  expect(res.status).toBe(302);
  return sessionCookieOf(res)!;
}

const cookie = (v: string) => ({ cookie: `${SESSION_COOKIE}=${encodeURIComponent(v)}` });

describe("POST /auth/magic-link (SPEC Public routes: body {email}; sends a login link)", () => {
  test("a new address gets 202 {data:{sent:true}} and a mailed link; no tenant exists until the link is used", async () => {
    const email = `new-${run}@example-signup-${run}.com`;
    const res = await call("POST", "/auth/magic-link", { body: { email } });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ data: { sent: true } });
    const token = await tokenFromMail(email);
    expect(token.length).toBeGreaterThanOrEqual(40);
    const users = await sql`select * from users where email = ${email}`;
    expect(users.length).toBe(0);
    // stored hashed, never raw
    const [row] = await sql`select token_hash, purpose, expires_at, created_at from magic_link_tokens where email = ${email}`;
    expect(row!.token_hash).toBe(hashToken(token));
    expect(row!.purpose).toBe("signup");
    expect(row!.expires_at.getTime() - row!.created_at.getTime()).toBe(15 * 60 * 1000);
  });

  test("an existing and an unknown address get the same answer (the response does not reveal accounts)", async () => {
    const known = `known-${run}@acme-${run}.io`;
    await signIn(known);
    const a = await call("POST", "/auth/magic-link", { body: { email: known } });
    const b = await call("POST", "/auth/magic-link", { body: { email: `nobody-${run}@acme-${run}.io` } });
    expect(a.status).toBe(b.status);
    expect(a.text).toBe(b.text);
  });

  test("invalid email -> 422 validation_failed with details.email", async () => {
    for (const email of ["not-an-email", "a@", "@b.com", "a b@c.com", "x@localhost", ""]) {
      const res = await call("POST", "/auth/magic-link", { body: { email } });
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe("validation_failed");
      expect(res.body.error.details.email).toBeDefined();
    }
    const missing = await call("POST", "/auth/magic-link", { body: {} });
    expect(missing.status).toBe(422);
    expect(missing.body.error.code).toBe("validation_failed");
  });

  test("DESIGN 6: blocked disposable domains refuse magic-link sign-ups -> 422 email_domain_blocked (subdomains and case too)", async () => {
    for (const email of [`x-${run}@mailinator.com`, `x-${run}@MAILINATOR.COM`, `x-${run}@sub.mailinator.com`]) {
      const res = await call("POST", "/auth/magic-link", { body: { email } });
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe("email_domain_blocked");
    }
    const tokens = await sql`select 1 from magic_link_tokens where email like ${`x-${run}@%`}`;
    expect(tokens.length).toBe(0);
  });
});

describe("GET /auth/magic-link/verify (single use, 15 min expiry, session cookie, redirect to APP_URL)", () => {
  test("sign-up: creates a tenant named after the domain with the user as owner, sets nms_session and 302s to APP_URL", async () => {
    const email = `Founder-${run}@Widgets-${run}.com`;
    const token = await requestLink(email);
    const res = await call("GET", `/auth/magic-link/verify?token=${encodeURIComponent(token)}`);
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe(config.appUrl);
    const raw = setCookies(res).find((c) => c.startsWith(`${SESSION_COOKIE}=`))!;
    expect(raw).toBeDefined();
    // DESIGN 5: HttpOnly, SameSite=Lax; Secure outside development (tests run with NODE_ENV=test)
    expect(raw).toContain("HttpOnly");
    expect(raw).toContain("SameSite=Lax");
    expect(raw).toContain("Path=/");
    expect(raw).not.toContain("Secure");
    const [user] = await sql`select u.*, t.name as tenant_name from users u join tenants t on t.id = u.tenant_id
                             where u.email = ${email.toLowerCase()}`;
    expect(user!.role).toBe("owner");
    expect(user!.tenant_name).toBe(`widgets-${run}.com`);
    const [session] = await sql`select * from sessions where token_hash = ${hashToken(sessionCookieOf(res)!)}`;
    expect(session!.user_id).toBe(user!.id);
    expect(session!.expires_at.getTime() - Date.now()).toBeGreaterThan(29 * 24 * 3600 * 1000);
  });

  test("login: an existing user signs in to the same tenant (no second tenant)", async () => {
    const email = `repeat-${run}@repeat-${run}.com`;
    const c1 = await signIn(email);
    const c2 = await signIn(email);
    expect(c1).not.toBe(c2);
    const me1 = await call("GET", "/v1/me", { headers: cookie(c1) });
    const me2 = await call("GET", "/v1/me", { headers: cookie(c2) });
    expect(me1.body.data.tenant_id).toBe(me2.body.data.tenant_id);
    const users = await sql`select 1 from users where email = ${email}`;
    expect(users.length).toBe(1);
  });

  test("a link works once: the second use -> 400 invalid_token", async () => {
    const token = await requestLink(`once-${run}@once-${run}.com`);
    const first = await call("GET", `/auth/magic-link/verify?token=${encodeURIComponent(token)}`);
    expect(first.status).toBe(302);
    const second = await call("GET", `/auth/magic-link/verify?token=${encodeURIComponent(token)}`);
    expect(second.status).toBe(400);
    expect(second.body.error.code).toBe("invalid_token");
    expect(sessionCookieOf(second)).toBeNull();
  });

  test("two concurrent uses of one link create exactly one session", async () => {
    const token = await requestLink(`race-${run}@race-${run}.com`);
    const url = `/auth/magic-link/verify?token=${encodeURIComponent(token)}`;
    const results = await Promise.all([call("GET", url), call("GET", url), call("GET", url)]);
    expect(results.map((r) => r.status).sort()).toEqual([302, 400, 400]);
  });

  test("a link older than 15 minutes -> 400 token_expired", async () => {
    const email = `late-${run}@late-${run}.com`;
    const token = await requestLink(email);
    await sql`update magic_link_tokens set created_at = now() - interval '16 minutes', expires_at = now() - interval '1 minute'
              where token_hash = ${hashToken(token)}`;
    const res = await call("GET", `/auth/magic-link/verify?token=${encodeURIComponent(token)}`);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: "token_expired" });
    expect(typeof res.body.error.message).toBe("string");
    expect((await sql`select 1 from users where email = ${email}`).length).toBe(0);
  });

  test("unknown or missing token -> 400 invalid_token", async () => {
    const unknown = await call("GET", "/auth/magic-link/verify?token=nope");
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.code).toBe("invalid_token");
    const missing = await call("GET", "/auth/magic-link/verify");
    expect(missing.status).toBe(400);
    expect(missing.body.error.code).toBe("invalid_token");
  });

  test("a browser (Accept: text/html) with a used or expired link is sent to the dashboard's sign-in page saying why", async () => {
    const html = { accept: "text/html,application/xhtml+xml,*/*;q=0.8" };
    const email = `browser-${run}@browser-${run}.com`;
    const token = await requestLink(email);
    const first = await call("GET", `/auth/magic-link/verify?token=${encodeURIComponent(token)}`, { headers: html });
    expect([first.status, first.headers.get("location")]).toEqual([302, config.appUrl]);
    const used = await call("GET", `/auth/magic-link/verify?token=${encodeURIComponent(token)}`, { headers: html });
    expect(used.status).toBe(302);
    const to = new URL(used.headers.get("location")!);
    expect([to.origin, to.searchParams.get("sign_in_error")]).toEqual([APP_ORIGIN, "invalid_token"]);
    expect(used.headers.getSetCookie()).toEqual([]); // no session for a refused link

    const old = await requestLink(email);
    await sql`update magic_link_tokens set expires_at = now() - interval '1 minute' where token_hash = ${hashToken(old)}`;
    const expired = await call("GET", `/auth/magic-link/verify?token=${encodeURIComponent(old)}`, { headers: html });
    expect(new URL(expired.headers.get("location")!).searchParams.get("sign_in_error")).toBe("token_expired");
  });
});

describe("GET /auth/session (the dashboard asks who is signed in without a 401)", () => {
  test("the user for a valid cookie, null without one or for an unknown cookie", async () => {
    const email = `session-${run}@session-${run}.com`;
    const c = await signIn(email);
    const signedIn = await call("GET", "/auth/session", { headers: cookie(c) });
    expect(signedIn.status).toBe(200);
    const me = await call("GET", "/v1/me", { headers: cookie(c) });
    expect(signedIn.body).toEqual(me.body);
    for (const headers of [{}, cookie("not-a-session")]) {
      const none = await call("GET", "/auth/session", { headers });
      expect([none.status, none.body]).toEqual([200, { data: null }]);
    }
  });
});

describe("GET /v1/me (DESIGN 5: id, email, name, tenant_id, role)", () => {
  test("returns the dashboard user", async () => {
    const email = `me-${run}@me-${run}.com`;
    const c = await signIn(email);
    const res = await call("GET", "/v1/me", { headers: cookie(c) });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data).sort()).toEqual(["email", "id", "name", "role", "tenant_id", "tenant_name"]);
    expect(res.body.data).toMatchObject({ email, role: "owner", name: null, tenant_name: `me-${run}.com` });
  });

  test("without a session -> 401 invalid_session; with an unknown cookie -> 401", async () => {
    const none = await call("GET", "/v1/me");
    expect(none.status).toBe(401);
    expect(none.body.error.code).toBe("invalid_session");
    const bad = await call("GET", "/v1/me", { headers: cookie("forged") });
    expect(bad.status).toBe(401);
  });

  test("with a valid API key instead of a session -> 403 session_required with a clear message", async () => {
    const { secretKey } = await createTenant();
    const res = await call("GET", "/v1/me", { key: secretKey });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe("session_required");
    expect(res.body.error.message).toMatch(/API keys/);
  });

  test("an unknown, garbage or revoked API key -> 401 invalid_api_key, as on every route", async () => {
    const t = await createTenant();
    const revoked = await call("POST", "/v1/api-keys", { key: t.secretKey, body: {} });
    expect((await call("DELETE", `/v1/api-keys/${revoked.body.data.id}`, { key: t.secretKey })).status).toBe(204);
    for (const key of ["nk_live_" + "a".repeat(40), "garbage", revoked.body.data.raw_key]) {
      for (const path of ["/v1/me", "/v1/team/members"]) {
        const res = await call("GET", path, { key });
        expect([path, res.status, res.body.error.code]).toEqual([path, 401, "invalid_api_key"]);
      }
    }
  });

  test("an expired session -> 401", async () => {
    const c = await signIn(`expired-${run}@exp-${run}.com`);
    await sql`update sessions set expires_at = now() - interval '1 second' where token_hash = ${hashToken(c)}`;
    const res = await call("GET", "/v1/me", { headers: cookie(c) });
    expect(res.status).toBe(401);
  });
});

describe("DELETE /auth/logout and the Origin rule (DESIGN 5: cookie requests that change state carry Origin == APP_URL)", () => {
  test("logout with Origin == APP_URL: 204, cookie cleared, the session no longer works", async () => {
    const c = await signIn(`bye-${run}@bye-${run}.com`);
    const res = await call("DELETE", "/auth/logout", { headers: { ...cookie(c), origin: APP_ORIGIN } });
    expect(res.status).toBe(204);
    const cleared = setCookies(res).find((h) => h.startsWith(`${SESSION_COOKIE}=`))!;
    expect(cleared).toContain("Max-Age=0");
    expect(cleared).toContain("HttpOnly");
    expect((await call("GET", "/v1/me", { headers: cookie(c) })).status).toBe(401);
    expect((await sql`select 1 from sessions where token_hash = ${hashToken(c)}`).length).toBe(0);
  });

  test("logout with a session but a foreign or missing Origin -> 403 origin_not_allowed, session kept", async () => {
    const c = await signIn(`csrf-${run}@csrf-${run}.com`);
    const foreign = await call("DELETE", "/auth/logout", { headers: { ...cookie(c), origin: "https://evil.example" } });
    expect(foreign.status).toBe(403);
    expect(foreign.body.error.code).toBe("origin_not_allowed");
    const missing = await call("DELETE", "/auth/logout", { headers: cookie(c) });
    expect(missing.status).toBe(403);
    expect((await call("GET", "/v1/me", { headers: cookie(c) })).status).toBe(200);
  });

  test("logout without a session still answers 204 and clears the cookie", async () => {
    const res = await call("DELETE", "/auth/logout");
    expect(res.status).toBe(204);
    expect(setCookies(res).some((h) => h.startsWith(`${SESSION_COOKIE}=;`))).toBe(true);
  });

  test("GET with a cookie needs no Origin; POST/PUT/PATCH/DELETE without the app's Origin are refused by resolveSession", async () => {
    const c = await signIn(`origin-${run}@origin-${run}.com`);
    const mk = (method: string, headers: Record<string, string> = {}) =>
      new Request("http://localhost/v1/anything", { method, headers: { ...cookie(c), ...headers } });
    expect(await resolveSession(mk("GET"))).not.toBeNull();
    for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
      const err = await resolveSession(mk(method, { origin: "https://evil.example" })).catch((e) => e);
      expect(err).toBeInstanceOf(ApiError);
      expect(err.status).toBe(403);
      expect(err.code).toBe("origin_not_allowed");
      const ok = await resolveSession(mk(method, { origin: APP_ORIGIN }));
      expect(ok?.actorType).toBe("user");
    }
  });
});

describe("resolveSession (the session half of the auth plugin)", () => {
  test("no cookie -> null; a session -> user context with read and write, production by default", async () => {
    expect(await resolveSession(new Request("http://localhost/v1/x"))).toBeNull();
    const email = `ctx-${run}@ctx-${run}.com`;
    const c = await signIn(email);
    const [user] = await sql`select id, tenant_id from users where email = ${email}`;
    const ctx = await resolveSession(
      new Request("http://localhost/v1/x", { headers: { ...cookie(c), "user-agent": "agent/1" } }),
    );
    expect(ctx).toMatchObject({
      tenantId: user!.tenant_id,
      actorType: "user",
      actorId: user!.id,
      environment: "production",
      permissions: ["read", "write"],
      userAgent: "agent/1",
    });
  });

  test("DESIGN 4: X-Environment picks sandbox; anything else -> 422", async () => {
    const c = await signIn(`env-${run}@env-${run}.com`);
    const sandbox = await resolveSession(
      new Request("http://localhost/v1/x", { headers: { ...cookie(c), "x-environment": "sandbox" } }),
    );
    expect(sandbox?.environment).toBe("sandbox");
    const err = await resolveSession(
      new Request("http://localhost/v1/x", { headers: { ...cookie(c), "x-environment": "staging" } }),
    ).catch((e) => e);
    expect(err.status).toBe(422);
    const viaHttp = await call("GET", "/v1/me", { headers: { ...cookie(c), "x-environment": "staging" } });
    expect(viaHttp.status).toBe(422);
    expect(viaHttp.body.error.code).toBe("validation_failed");
  });
});

describe("cookie flags and the system mailer", () => {
  test("DESIGN 5: Secure is added outside development and test", () => {
    const saved = config.nodeEnv;
    try {
      (config as any).nodeEnv = "production";
      const c = sessionCookie("tok", new Date(Date.now() + 60_000));
      expect(c).toContain("Secure");
      expect(c).toContain("HttpOnly");
      expect(c).toContain("SameSite=Lax");
      (config as any).nodeEnv = "development";
      expect(sessionCookie("tok", new Date(Date.now() + 60_000))).not.toContain("Secure");
    } finally {
      (config as any).nodeEnv = saved;
    }
  });

  test("an SMTP refusal still answers 202 (the response never depends on delivery)", async () => {
    smtp.reset();
    smtp.script({ kind: "reject" });
    const res = await call("POST", "/auth/magic-link", { body: { email: `bounce-${run}@bounce-${run}.com` } });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ data: { sent: true } });
  });

  test("without SMTP_URL the link is logged instead of sent, and the route still answers 202", async () => {
    useSmtpUrl(undefined);
    try {
      smtp.reset();
      const res = await call("POST", "/auth/magic-link", { body: { email: `nosmtp-${run}@nosmtp-${run}.com` } });
      expect(res.status).toBe(202);
      await Bun.sleep(50);
      expect(smtp.messages.length).toBe(0);
    } finally {
      useSmtpUrl(smtpUrlOf(smtp));
    }
  });
});
