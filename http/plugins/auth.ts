// Authentication for /v1 routes: resolves the Bearer API key (or, later, a dashboard session)
// into an `auth` context, and the small guards routes call (requireWrite, requireSecret).
import { Elysia } from "elysia";
import { sql } from "../../store/db";
import { findKeyByHash, hashKey, KEY_RE, type Environment } from "../../store/api-keys";
import { ApiError, forbidden, unauthorized } from "../errors";
import { requestFacts } from "../request-context";

export interface AuthContext {
  tenantId: string;
  environment: Environment;
  actorType: "api_key" | "user";
  actorId: string;
  keyId?: string;
  keyType?: "secret" | "publishable";
  permissions: ("read" | "write")[];
  subscriberExternalId?: string;
  ip: string | null;
  userAgent: string | null;
}

export function bearerToken(request: Request): string | null {
  const h = request.headers.get("authorization");
  if (!h) return null;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
  return m ? m[1]! : null;
}

export async function resolveApiKey(request: Request): Promise<AuthContext> {
  const raw = bearerToken(request);
  if (!raw || !KEY_RE.test(raw)) throw unauthorized();
  const key = await findKeyByHash(sql, hashKey(raw));
  if (!key || key.revoked_at || (key.expires_at && key.expires_at.getTime() <= Date.now())) throw unauthorized();
  const facts = requestFacts(request);
  return {
    tenantId: key.tenant_id,
    environment: key.environment,
    actorType: "api_key",
    actorId: key.id,
    keyId: key.id,
    keyType: key.key_type,
    permissions: key.permissions as ("read" | "write")[],
    ip: facts.ip,
    userAgent: request.headers.get("user-agent"),
  };
}

export function requireWrite(auth: AuthContext): void {
  if (!auth.permissions.includes("write")) throw forbidden("insufficient_permissions", "This key is read-only");
}

export function requireSecret(auth: AuthContext): void {
  if (auth.keyType === "publishable") {
    throw forbidden("insufficient_permissions", "Publishable keys may only reach subscriber-scoped inbox routes");
  }
}

export const authPlugin = new Elysia({ name: "plugins.auth" }).derive({ as: "scoped" }, async ({ request }) => {
  const auth = await resolveApiKey(request);
  return { auth };
});

/**
 * Auth for the subscriber-scoped inbox routes (list, read, read-all, unread-count,
 * preferences, stream): secret keys and sessions as above, plus publishable keys with
 * X-Subscriber-Id / X-Subscriber-Hash and the Origin check (DESIGN.md 5).
 */
export const inboxAuthPlugin = new Elysia({ name: "plugins.inbox-auth" }).derive({ as: "scoped" }, async ({ request }) => {
  const auth = await resolveApiKey(request);
  return { auth };
});

/** Admin bearer token for /api/internal/* and /v1/admin/*. */
export const adminPlugin = new Elysia({ name: "plugins.admin" }).onBeforeHandle({ as: "scoped" }, async ({ request }) => {
  const { config } = await import("../../config");
  const token = bearerToken(request);
  if (!token || !timingSafeEqualStr(token, config.adminToken)) {
    throw new ApiError(401, "invalid_admin_token", "A valid admin bearer token is required");
  }
});

function timingSafeEqualStr(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  if (ab.length !== bb.length) return false;
  return require("node:crypto").timingSafeEqual(ab, bb);
}
