// Dashboard sessions at the HTTP edge: the nms_session cookie (read, set, clear), resolving it
// into an AuthContext, and the DESIGN.md 5 rule that cookie requests changing state carry Origin == APP_URL.
import { config } from "../config";
import { findActiveSession, type ActiveSession } from "../store/sessions";
import { AppError, unauthorized, validationFailed } from "../basics/errors";
import { liveKey } from "../store/api-keys";
import { bearerToken, type AuthContext } from "./auth-context";
import { requestFacts } from "./request-context";

export const SESSION_COOKIE = "nms_session";
const STATE_CHANGING = new Set(["POST", "PUT", "PATCH", "DELETE"]);


export function readCookie(request: Request, name: string): string | null {
  const header = request.headers.get("cookie");
  if (!header) return null;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) {
      const value = part.slice(eq + 1).trim();
      try {
        return decodeURIComponent(value);
      } catch {
        return value;
      }
    }
  }
  return null;
}

export function cookieHeader(
  name: string,
  value: string,
  opts: { maxAgeSeconds?: number; expires?: Date; path?: string } = {},
): string {
  const parts = [`${name}=${encodeURIComponent(value)}`, `Path=${opts.path ?? "/"}`, "HttpOnly", "SameSite=Lax"];
  if (opts.maxAgeSeconds !== undefined) parts.push(`Max-Age=${opts.maxAgeSeconds}`);
  if (opts.expires) parts.push(`Expires=${opts.expires.toUTCString()}`);
  if (config.secureCookies) parts.push("Secure");
  return parts.join("; ");
}

export function sessionCookie(token: string, expiresAt: Date): string {
  return cookieHeader(SESSION_COOKIE, token, {
    maxAgeSeconds: Math.max(0, Math.floor((expiresAt.getTime() - Date.now()) / 1000)),
    expires: expiresAt,
  });
}

export function clearedCookie(name: string, path = "/"): string {
  return cookieHeader(name, "", { maxAgeSeconds: 0, expires: new Date(0), path });
}

function appOrigin(): string {
  return new URL(config.appUrl).origin;
}

/** Throws 403 origin_not_allowed unless a state-changing cookie request comes from APP_URL. */
export function assertSessionOrigin(request: Request): void {
  if (!STATE_CHANGING.has(request.method.toUpperCase())) return;
  const origin = request.headers.get("origin");
  if (origin !== appOrigin()) {
    throw new AppError("origin_not_allowed",
      "Requests that change state with a session cookie must carry an Origin header equal to the dashboard's URL",
    );
  }
}

/** The environment a dashboard session works in: header X-Environment, production by default. */
export function sessionEnvironment(request: Request): "production" | "sandbox" {
  const raw = request.headers.get("x-environment");
  if (raw === null || raw.trim() === "") return "production";
  const v = raw.trim().toLowerCase();
  if (v === "production" || v === "sandbox") return v;
  throw validationFailed({ "X-Environment": ["must be production or sandbox"] });
}

/** The session row behind the request's cookie, or null (no cookie, unknown or expired). */
export async function findRequestSession(request: Request): Promise<ActiveSession | null> {
  const token = readCookie(request, SESSION_COOKIE);
  if (!token || token.length > 200) return null;
  return (await findActiveSession(token)) ?? null;
}

/**
 * The dashboard user's auth context for a request carrying a valid nms_session cookie, or null.
 * Sessions may use every endpoint (SPEC Authentication 4), so permissions are read and write for
 * every role; team management applies its own role rules.
 */
export async function resolveSession(request: Request): Promise<AuthContext | null> {
  const session = await findRequestSession(request);
  if (!session) return null;
  assertSessionOrigin(request);
  const environment = sessionEnvironment(request);
  return {
    tenantId: session.tenant_id,
    environment,
    actorType: "user",
    actorId: session.user_id,
    permissions: ["read", "write"],
    ip: requestFacts(request).ip,
    userAgent: request.headers.get("user-agent"),
    // the user's role, for rules that tell owners from other users (owner-write)
    session,
  };
}

/**
 * The session and session-manager rules of dashboard-only routes (/v1/me, /v1/team/*): the
 * caller with the session's user attached (`auth.session`). No session -> 401 invalid_session; a
 * Bearer value instead of a session -> 401 invalid_api_key when it is no key that authenticates
 * (unknown, garbage, revoked: the same answer as on any route), 403 session_required when it is a valid API key.
 */
export async function authenticateSession(request: Request): Promise<AuthContext & { session: ActiveSession }> {
  const session = await findRequestSession(request);
  if (!session) {
    const raw = bearerToken(request);
    if (raw) {
      if (!(await liveKey(raw)).key) throw unauthorized();
      throw new AppError("session_required", "This route is for the signed-in dashboard user; API keys cannot use it");
    }
    throw new AppError("invalid_session", "Sign in to the dashboard: a valid session cookie is required");
  }
  assertSessionOrigin(request);
  return {
    tenantId: session.tenant_id,
    environment: sessionEnvironment(request),
    actorType: "user",
    actorId: session.user_id,
    permissions: ["read", "write"],
    ip: requestFacts(request).ip,
    userAgent: request.headers.get("user-agent"),
    session,
  };
}

export { acceptableEmail } from "../domain/tenants/dashboard-email";
