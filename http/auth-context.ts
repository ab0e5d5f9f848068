// Who is calling (an API key or a dashboard session) once authentication resolved it, and the
// bearer token of a request: shared by the auth plugin and the session code without a cycle.
import type { Scope } from "../store/db";
import type { Environment } from "../store/api-keys";
import type { ActiveSession } from "../store/sessions";

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
  /** The dashboard user behind a session, on routes whose access rule is session or session-manager. */
  session?: ActiveSession;
}

/** The (tenant, environment) every store call of the request is scoped to. */
export const scopeOf = (auth: AuthContext): Scope => ({ tenantId: auth.tenantId, environment: auth.environment });

export function bearerToken(request: Request): string | null {
  const h = request.headers.get("authorization");
  if (!h) return null;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
  return m ? m[1]! : null;
}
