// OAuth sign-in (Google, GitHub) against a local OAuth 2 server (oauth2-mock-server) with real
// PostgreSQL and Redis: state bound to the browser, PKCE S256, sign-up/login, and the failure answers.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { OAuth2Server } from "oauth2-mock-server";
import { call } from "../support/fixtures";
import { sql } from "../../store/db";
import { config } from "../../config";
import { SESSION_COOKIE } from "../../http/session";

const run = crypto.randomUUID().slice(0, 8);
let oauth: OAuth2Server;
let emailsApi: ReturnType<typeof Bun.serve>;
let userinfo: Record<string, unknown> = {};
let githubEmails: unknown = [];
const savedEnv: Record<string, string | undefined> = {};

const ENV_NAMES = ["CLIENT_ID", "CLIENT_SECRET", "AUTH_URL", "TOKEN_URL", "USERINFO_URL", "EMAILS_URL"];

beforeAll(async () => {
  oauth = new OAuth2Server();
  await oauth.issuer.keys.generate("RS256");
  await oauth.start(0, "127.0.0.1");
  oauth.service.on("beforeUserinfo", (res: { body: unknown; statusCode: number }) => {
    res.body = userinfo;
  });
  // GitHub lists private addresses at /user/emails, which the mock server does not have
  emailsApi = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: (req) =>
      req.headers.get("authorization")?.startsWith("Bearer ")
        ? Response.json(githubEmails)
        : new Response("unauthorized", { status: 401 }),
  });
  const issuer = oauth.issuer.url!.replace(/\/$/, "");
  for (const p of ["GOOGLE", "GITHUB"]) {
    for (const n of ENV_NAMES) savedEnv[`${p}_${n}`] = process.env[`${p}_${n}`];
    process.env[`${p}_CLIENT_ID`] = `${p.toLowerCase()}-client`;
    process.env[`${p}_CLIENT_SECRET`] = `${p.toLowerCase()}-secret`;
    process.env[`${p}_AUTH_URL`] = `${issuer}/authorize`;
    process.env[`${p}_TOKEN_URL`] = `${issuer}/token`;
    process.env[`${p}_USERINFO_URL`] = `${issuer}/userinfo`;
  }
  process.env.GITHUB_EMAILS_URL = `http://127.0.0.1:${emailsApi.port}/user/emails`;
});

afterAll(async () => {
  for (const [k, v] of Object.entries(savedEnv)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  emailsApi.stop(true);
  await oauth.stop();
});

function cookieValue(headers: Headers, name: string): string | null {
  const c = headers.getSetCookie().find((h) => h.startsWith(`${name}=`));
  return c ? decodeURIComponent(c.split(";")[0]!.slice(name.length + 1)) : null;
}

/** GET /auth/:provider, then the provider's authorize step; returns what the browser would bring back. */
async function startFlow(provider: string) {
  const begin = await call("GET", `/auth/${provider}`);
  expect(begin.status).toBe(302);
  const authorizeUrl = new URL(begin.headers.get("location")!);
  const stateCookie = cookieValue(begin.headers, "nms_oauth_state")!;
  const rawStateCookie = begin.headers.getSetCookie().find((h) => h.startsWith("nms_oauth_state="))!;
  const back = await fetch(authorizeUrl, { redirect: "manual" });
  expect(back.status).toBe(302);
  const callback = new URL(back.headers.get("location")!);
  return { begin, authorizeUrl, stateCookie, rawStateCookie, callback };
}

async function finish(provider: string, flow: Awaited<ReturnType<typeof startFlow>>, cookie = flow.stateCookie) {
  const q = flow.callback.searchParams;
  return call("GET", `/auth/${provider}/callback?code=${encodeURIComponent(q.get("code")!)}&state=${encodeURIComponent(q.get("state")!)}`, {
    headers: { cookie: `nms_oauth_state=${encodeURIComponent(cookie)}` },
  });
}

describe("GET /auth/:provider (SPEC Public routes: starts OAuth; provider is google or github)", () => {
  test("redirects to the configured authorize endpoint with state, PKCE S256 and the callback URL", async () => {
    const { authorizeUrl, stateCookie, rawStateCookie } = await startFlow("google");
    const q = authorizeUrl.searchParams;
    expect(authorizeUrl.pathname).toBe("/authorize");
    expect(q.get("client_id")).toBe("google-client");
    expect(q.get("response_type")).toBe("code");
    expect(q.get("code_challenge_method")).toBe("S256");
    expect(q.get("code_challenge")!.length).toBeGreaterThanOrEqual(43);
    expect(q.get("state")).toBe(stateCookie);
    expect(q.get("redirect_uri")).toBe(`${config.publicUrl}/auth/google/callback`);
    expect(q.get("scope")).toContain("email");
    expect(rawStateCookie).toContain("HttpOnly");
    expect(rawStateCookie).toContain("SameSite=Lax");
    expect(rawStateCookie).toContain("Path=/auth");
  });

  test("an unknown provider -> 404 on start and on callback", async () => {
    for (const path of ["/auth/facebook", "/auth/facebook/callback?code=x&state=y"]) {
      const res = await call("GET", path);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe("provider_not_found");
    }
  });

  test("a provider without client credentials -> 404 provider_not_configured", async () => {
    const id = process.env.GITHUB_CLIENT_ID;
    delete process.env.GITHUB_CLIENT_ID;
    try {
      const res = await call("GET", "/auth/github");
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe("provider_not_configured");
    } finally {
      process.env.GITHUB_CLIENT_ID = id;
    }
  });
});

describe("GET /auth/:provider/callback", () => {
  test("google: a new verified address signs up (tenant + owner), sets nms_session, 302 to APP_URL", async () => {
    const email = `ada-${run}@analytical-${run}.org`;
    userinfo = { sub: "g-1", email, email_verified: true, name: "Ada Lovelace" };
    const flow = await startFlow("google");
    const res = await finish("google", flow);
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe(config.appUrl);
    const session = cookieValue(res.headers, SESSION_COOKIE)!;
    const raw = res.headers.getSetCookie().find((h) => h.startsWith(`${SESSION_COOKIE}=`))!;
    expect(raw).toContain("HttpOnly");
    expect(raw).toContain("SameSite=Lax");
    // the one-time state cookie is cleared
    expect(res.headers.getSetCookie().some((h) => h.startsWith("nms_oauth_state=;") && h.includes("Max-Age=0"))).toBe(true);
    const me = await call("GET", "/v1/me", { headers: { cookie: `${SESSION_COOKIE}=${session}` } });
    expect(me.status).toBe(200);
    expect(me.body.data).toMatchObject({ email, name: "Ada Lovelace", role: "owner" });
    const [tenant] = await sql`select name from tenants where id = ${me.body.data.tenant_id}`;
    expect(tenant!.name).toBe(`analytical-${run}.org`);
  });

  test("google: the same address again logs in to the same user", async () => {
    const email = `again-${run}@again-${run}.org`;
    userinfo = { sub: "g-2", email, email_verified: true, name: "Again" };
    const first = await finish("google", await startFlow("google"));
    const second = await finish("google", await startFlow("google"));
    expect(first.status).toBe(302);
    expect(second.status).toBe(302);
    expect((await sql`select 1 from users where email = ${email}`).length).toBe(1);
    expect((await sql`select 1 from sessions s join users u on u.id = s.user_id where u.email = ${email}`).length).toBe(2);
  });

  test("github: a private address is read from the emails endpoint (primary and verified)", async () => {
    const email = `octo-${run}@octo-${run}.dev`;
    userinfo = { id: 1, login: "octocat", email: null, name: null };
    githubEmails = [
      { email: `unverified-${run}@octo-${run}.dev`, primary: false, verified: false },
      { email, primary: true, verified: true },
    ];
    const res = await finish("github", await startFlow("github"));
    expect(res.status).toBe(302);
    const me = await call("GET", "/v1/me", {
      headers: { cookie: `${SESSION_COOKIE}=${cookieValue(res.headers, SESSION_COOKIE)}` },
    });
    expect(me.body.data).toMatchObject({ email, name: "octocat" });
  });

  test("a state that does not match the browser's cookie -> 400 invalid_state, no session", async () => {
    userinfo = { sub: "g-3", email: `s-${run}@state-${run}.org`, email_verified: true };
    const flow = await startFlow("google");
    const res = await finish("google", flow, "someone-elses-state");
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("invalid_state");
    expect(cookieValue(res.headers, SESSION_COOKIE)).toBeNull();
  });

  test("no state cookie, no state, or a state used once already -> 400 invalid_state", async () => {
    userinfo = { sub: "g-4", email: `r-${run}@replay-${run}.org`, email_verified: true };
    const flow = await startFlow("google");
    const q = flow.callback.searchParams;
    const noCookie = await call("GET", `/auth/google/callback?code=${q.get("code")}&state=${q.get("state")}`);
    expect(noCookie.status).toBe(400);
    expect(noCookie.body.error.code).toBe("invalid_state");
    const noState = await call("GET", `/auth/google/callback?code=${q.get("code")}`, {
      headers: { cookie: `nms_oauth_state=${flow.stateCookie}` },
    });
    expect(noState.status).toBe(400);
    expect((await finish("google", flow)).status).toBe(302);
    const replay = await finish("google", flow);
    expect(replay.status).toBe(400);
    expect(replay.body.error.code).toBe("invalid_state");
  });

  test("a state started for github is refused on the google callback", async () => {
    const flow = await startFlow("github");
    const res = await finish("google", flow);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("invalid_state");
  });

  test("a code the provider does not accept (PKCE mismatch / unknown code) -> 400 oauth_exchange_failed", async () => {
    const flow = await startFlow("google");
    const res = await call("GET", `/auth/google/callback?code=forged-code&state=${flow.stateCookie}`, {
      headers: { cookie: `nms_oauth_state=${flow.stateCookie}` },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("oauth_exchange_failed");
  });

  test("the provider reports an error (user denied) -> 400 oauth_denied", async () => {
    const flow = await startFlow("google");
    const res = await call("GET", `/auth/google/callback?error=access_denied&state=${flow.stateCookie}`, {
      headers: { cookie: `nms_oauth_state=${flow.stateCookie}` },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("oauth_denied");
  });

  test("google: an unverified address -> 400 email_not_verified, nothing created", async () => {
    const email = `unv-${run}@unverified-${run}.org`;
    userinfo = { sub: "g-5", email, email_verified: false };
    const res = await finish("google", await startFlow("google"));
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("email_not_verified");
    expect((await sql`select 1 from users where email = ${email}`).length).toBe(0);
  });

  test("DESIGN 6: a blocked disposable domain from the provider -> 422 email_domain_blocked", async () => {
    userinfo = { sub: "g-6", email: `temp-${run}@Mailinator.com`, email_verified: true };
    const res = await finish("google", await startFlow("google"));
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe("email_domain_blocked");
  });
});
