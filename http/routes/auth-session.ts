// Dashboard sign-in: magic link, Google/GitHub OAuth (state + PKCE), logout, and GET /v1/me.
// Every successful sign-in ends the same way: a stored session, the nms_session cookie, a 302 to APP_URL.
import { Elysia } from "elysia";
import { CodeChallengeMethod, generateCodeVerifier, generateState, OAuth2Client } from "arctic";
import { config, type OAuthProviderName, type OAuthProviderSettings } from "../../config";
import { sendLoginLink } from "../../domain/system-mail/sign-in-link";
import { sql, type Tx } from "../../store/db";
import { redis } from "../../store/redis";
import { redisKeys } from "../../store/redis-keys";
import { consumeMagicLink, createMagicLink, createSession, deleteSession } from "../../store/sessions";
import { findTenant } from "../../store/tenants";
import { findOrSignUp, findUser, findUserByEmail, touchLogin, type UserRow } from "../../store/users";
import { AppError, notFound } from "../../basics/errors";
import { logger } from "../../basics/log";
import { requestFacts } from "../request-context";
import {
  acceptableEmail,
  assertSessionOrigin,
  clearedCookie,
  cookieHeader,
  findRequestSession,
  readCookie,
  SESSION_COOKIE,
  sessionCookie,
} from "../session";
import { CallbackQuery, MagicLinkBody, MagicLinkSent, MeResponse, OAuthProviderList, ProviderParams, SessionResponse, VerifyQuery } from "../../schemas/session";
import { BODY_ERRORS, errors, NoContent, Redirect } from "../route-docs";
import { accessPlugin } from "../plugins/access";

const SIGNED_IN = Redirect("Signed in: sets the nms_session cookie and redirects (Location) to the dashboard, APP_URL");

const OAUTH_STATE_COOKIE = "nms_oauth_state";
const OAUTH_STATE_TTL_SECONDS = 600;

// ---------------------------------------------------------------------------------------------
// Shared ending of every sign-in.

async function signInResponse(
  request: Request,
  signIn: (tx: Tx) => Promise<UserRow>,
  extraCookies: string[] = [],
): Promise<Response> {
  const facts = requestFacts(request);
  const session = await sql.begin(async (tx) => {
    const user = await signIn(tx);
    return createSession(tx, {
      userId: user.id,
      tenantId: user.tenant_id,
      ip: facts.ip,
      userAgent: request.headers.get("user-agent"),
    });
  });
  const headers = new Headers({ location: config.appUrl, "cache-control": "no-store", "x-request-id": facts.id });
  headers.append("set-cookie", sessionCookie(session.token, session.expiresAt));
  for (const c of extraCookies) headers.append("set-cookie", c);
  return new Response(null, { status: 302, headers });
}

// ---------------------------------------------------------------------------------------------
// Magic-link verification

const LINK_ERRORS = new Set(["invalid_token", "token_expired"]);

/** A browser following a link (it asks for HTML), as opposed to an API client or a test. */
function wantsPage(request: Request): boolean {
  return (request.headers.get("accept") ?? "").includes("text/html");
}

function toSignInPage(code: string): Response {
  const url = new URL(config.appUrl);
  url.searchParams.set("sign_in_error", code);
  return new Response(null, { status: 302, headers: { location: url.toString(), "cache-control": "no-store" } });
}

async function verifyMagicLink(raw: string | undefined, request: Request): Promise<Response> {
  if (!raw || raw.length > 200) throw new AppError("invalid_token", "The sign-in link is invalid");
  return signInResponse(request, async (tx) => {
    const result = await consumeMagicLink(tx, raw);
    if (result.status === "expired") throw new AppError("token_expired", "The sign-in link has expired; request a new one");
    if (result.status !== "ok") throw new AppError("invalid_token", "The sign-in link is invalid or was already used");
    const link = result.link;
    let user: UserRow | undefined;
    if (link.user_id) {
      user = await findUserByEmail(link.email, tx);
      if (!user || user.id !== link.user_id) throw new AppError("invalid_token", "The sign-in link is no longer valid");
    } else {
      user = (await findOrSignUp(tx, link.email)).user;
    }
    await touchLogin(tx, user.id);
    return user;
  });
}

async function meOf(row: UserRow) {
  const tenant = await findTenant(row.tenant_id);
  return { id: row.id, email: row.email, name: row.name, tenant_id: row.tenant_id, tenant_name: tenant?.name ?? "", role: row.role };
}

// ---------------------------------------------------------------------------------------------
// OAuth providers: credentials and endpoints come from config (GOOGLE_* / GITHUB_*), so tests can
// point them at a local server.

interface ProviderConfig extends OAuthProviderSettings {
  name: OAuthProviderName;
  scopes: string[];
}

const SCOPES: Record<OAuthProviderName, string[]> = {
  google: ["openid", "email", "profile"],
  github: ["read:user", "user:email"],
};
const OAUTH_PROVIDERS = Object.keys(SCOPES) as OAuthProviderName[];

function providerConfig(name: string): ProviderConfig {
  if (name !== "google" && name !== "github") throw notFound("provider_not_found", "OAuth provider must be google or github");
  const settings = config.oauthProvider(name);
  if (!settings) throw new AppError("provider_not_configured", `Sign-in with ${name} is not configured on this server`);
  return { name, ...settings, scopes: SCOPES[name] };
}

function oauthClient(p: ProviderConfig): OAuth2Client {
  const redirectUri = `${config.publicUrl.replace(/\/$/, "")}/auth/${p.name}/callback`;
  return new OAuth2Client(p.clientId, p.clientSecret, redirectUri);
}

async function fetchJson(url: string, accessToken: string): Promise<any> {
  const res = await fetch(url, {
    headers: { authorization: `Bearer ${accessToken}`, accept: "application/json", "user-agent": "nms-dashboard" },
    signal: AbortSignal.timeout(10_000),
  });
  if (!res.ok) throw new Error(`${url} answered ${res.status}`);
  return res.json();
}

/** The provider's verified email address and display name for an access token. */
async function providerIdentity(p: ProviderConfig, accessToken: string): Promise<{ email: string | null; name: string | null }> {
  const info = await fetchJson(p.userinfoUrl, accessToken);
  const name = typeof info?.name === "string" && info.name ? info.name : (info?.login ?? null);
  if (p.name === "google") {
    // an unverified Google address could belong to someone else
    if (info?.email_verified === false) return { email: null, name };
    return { email: typeof info?.email === "string" ? info.email : null, name };
  }
  if (typeof info?.email === "string" && info.email) return { email: info.email, name };
  // GitHub hides private addresses from /user; /user/emails lists them with verification
  const emails = await fetchJson(p.emailsUrl!, accessToken);
  const best = Array.isArray(emails) ? (emails.find((e) => e?.primary && e?.verified) ?? emails.find((e) => e?.verified)) : null;
  return { email: typeof best?.email === "string" ? best.email : null, name };
}

// ---------------------------------------------------------------------------------------------

export const authSessionRoutes = new Elysia({ name: "routes.auth-session" })
  .use(accessPlugin)
  .get(
    "/auth/providers",
    () => ({
      // the flow must start on PUBLIC_URL's host: the state cookie it sets is read by the callback there
      data: OAUTH_PROVIDERS.filter((name) => config.oauthProvider(name) !== null).map((name) => ({
        name,
        start_url: `${config.publicUrl.replace(/\/$/, "")}/auth/${name}`,
      })),
    }),
    {
      access: "public",
      // 422: a NUL in the query string is refused before any route (http/plugins/errors.ts)
      response: { 200: OAuthProviderList, ...errors(422) },
      detail: { summary: "OAuth providers configured on this server (a sign-in page shows a button for each)", description: "Google and GitHub appear only when their client id and secret are configured.", tags: ["session"] },
    },
  )
  .post(
    "/auth/magic-link",
    async ({ body, request, set }) => {
      // blocked domains are refused for everyone, so the answer never tells whether an account exists
      const email = await acceptableEmail(body.email);
      const token = await sql.begin(async (tx) => {
        const user = await findUserByEmail(email, tx);
        return createMagicLink(tx, {
          email,
          userId: user?.id ?? null,
          purpose: user ? "login" : "signup",
        });
      });
      const sent = await sendLoginLink(email, token);
      if (!sent) logger.warn({ request_id: requestFacts(request).id }, "magic link not delivered");
      set.status = 202;
      return { data: { sent: true } };
    },
    {
      access: "public",
      body: MagicLinkBody,
      response: { 202: MagicLinkSent, ...errors(BODY_ERRORS) },
      detail: {
        summary: "Send a sign-in (or sign-up) link",
        description: "202 whether or not an account exists; a blocked (disposable) domain is 422 email_domain_blocked.",
        tags: ["session"],
      },
    },
  )
  .get(
    "/auth/magic-link/verify",
    async ({ query, request }) => {
      try {
        return await verifyMagicLink(query.token, request);
      } catch (err) {
        // a person who clicked the link sees the dashboard's sign-in page saying why, not a JSON body
        if (err instanceof AppError && LINK_ERRORS.has(err.code) && wantsPage(request)) return toSignInPage(err.code);
        throw err;
      }
    },
    {
      access: "public",
      query: VerifyQuery,
      response: {
        302: Redirect(
          "Signed in: sets the nms_session cookie and redirects to APP_URL. A browser (Accept: text/html) whose link is invalid or expired is redirected to APP_URL?sign_in_error=<code> instead of the 400",
        ),
        ...errors(400, 422),
      },
      detail: {
        summary: "Verify a sign-in link; sets the session cookie and redirects to APP_URL", description: "A link works once and for 15 minutes; an expired or used link is 400 invalid_token. On success the nms_session cookie is set and the browser is redirected (302) to the dashboard.",
        tags: ["session"],
      },
    },
  )
  .get(
    "/auth/session",
    async ({ request }) => {
      const session = await findRequestSession(request);
      const row = session ? await findUser(session.tenant_id, session.user_id) : undefined;
      return { data: row ? await meOf(row) : null };
    },
    {
      access: "public",
      response: { 200: SessionResponse, ...errors(422) },
      detail: { summary: "The signed-in dashboard user, or null: a page asks without causing a 401", description: "Answers 200 with the user, or with null when there is no valid session, so a page can decide to show the sign-in form.", tags: ["session"] },
    },
  )
  .get(
    "/auth/:provider",
    async ({ params }) => {
      const p = providerConfig(params.provider);
      const state = generateState();
      const verifier = generateCodeVerifier();
      await redis.set(
        redisKeys.oauthState(state),
        JSON.stringify({ provider: p.name, verifier }),
        "EX",
        OAUTH_STATE_TTL_SECONDS,
      );
      const url = oauthClient(p).createAuthorizationURLWithPKCE(p.authUrl, state, CodeChallengeMethod.S256, verifier, p.scopes);
      const headers = new Headers({ location: url.toString(), "cache-control": "no-store" });
      // the cookie binds the flow to this browser, so a callback URL planted by someone else fails
      headers.append("set-cookie", cookieHeader(OAUTH_STATE_COOKIE, state, { maxAgeSeconds: OAUTH_STATE_TTL_SECONDS, path: "/auth" }));
      return new Response(null, { status: 302, headers });
    },
    {
      access: "public",
      params: ProviderParams,
      response: { 302: Redirect("To the provider's consent page (Location), with a state cookie"), ...errors(404) },
      detail: { summary: "Start OAuth sign-in (google or github)", description: "Redirects (302) to the provider's consent page with a state cookie; the provider sends the browser back to the callback.", tags: ["session"] },
    },
  )
  .get(
    "/auth/:provider/callback",
    async ({ params, query, request }) => {
      const p = providerConfig(params.provider);
      const cookieState = readCookie(request, OAUTH_STATE_COOKIE);
      const state = query.state;
      if (!state || !cookieState || state !== cookieState || state.length > 200) {
        throw new AppError("invalid_state", "OAuth state is missing or does not match this browser's sign-in");
      }
      const stored = await redis.getdel(redisKeys.oauthState(state));
      const flow = stored ? (JSON.parse(stored) as { provider: string; verifier: string }) : null;
      if (!flow || flow.provider !== p.name) {
        throw new AppError("invalid_state", "OAuth state is unknown, expired or already used");
      }
      if (query.error) throw new AppError("oauth_denied", `The provider refused the sign-in: ${query.error}`);
      if (!query.code) throw new AppError("invalid_parameters", "The callback carries no authorization code");

      let identity: { email: string | null; name: string | null };
      try {
        const tokens = await oauthClient(p).validateAuthorizationCode(p.tokenUrl, query.code, flow.verifier);
        identity = await providerIdentity(p, tokens.accessToken());
      } catch (err) {
        logger.warn({ provider: p.name, err: (err as Error).message }, "oauth code exchange failed");
        throw new AppError("oauth_exchange_failed", "The authorization code could not be exchanged with the provider");
      }
      if (!identity.email) throw new AppError("email_not_verified", `The ${p.name} account has no verified email address`);
      const email = await acceptableEmail(identity.email);
      return signInResponse(
        request,
        async (tx) => {
          const { user } = await findOrSignUp(tx, email, identity.name);
          await touchLogin(tx, user.id, identity.name);
          return user;
        },
        [clearedCookie(OAUTH_STATE_COOKIE, "/auth")],
      );
    },
    {
      access: "public",
      params: ProviderParams,
      query: CallbackQuery,
      response: { 302: SIGNED_IN, ...errors(400, 404, 422) },
      detail: { summary: "OAuth callback", description: "Checks the state, exchanges the code and signs the user in (or up, for a verified email not yet known), then redirects (302) to the dashboard.", tags: ["session"] },
    },
  )
  .delete(
    "/auth/logout",
    async ({ request }) => {
      const session = await findRequestSession(request);
      if (session) {
        assertSessionOrigin(request);
        await deleteSession(readCookie(request, SESSION_COOKIE)!);
      }
      // answered the same with or without a session: the browser ends up signed out either way
      const headers = new Headers({ "set-cookie": clearedCookie(SESSION_COOKIE), "x-request-id": requestFacts(request).id });
      return new Response(null, { status: 204, headers });
    },
    {
      access: "public",
      response: { 204: NoContent, ...errors(403) },
      detail: {
        summary: "End the dashboard session",
        description: "Clears the nms_session cookie; 204 with or without a session. With one, Origin must be APP_URL (403 origin_not_allowed).",
        tags: ["session"],
      },
    },
  )
  .get(
    "/v1/me",
    async ({ auth }) => {
      const row = await findUser(auth.tenantId, auth.actorId);
      if (!row) throw new AppError("invalid_session", "The session's user no longer exists");
      return { data: await meOf(row) };
    },
    {
      access: "session",
      response: { 200: MeResponse, ...errors(401, 403) },
      detail: { summary: "The signed-in dashboard user", description: "The user's id, email, role and tenant. API keys are refused: this is the dashboard's own route.", tags: ["session"] },
    },
  );
