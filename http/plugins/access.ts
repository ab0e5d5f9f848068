// Who may call a route, declared on the route itself: `{ access: "secret-write" }` in its options.
// The `access` macro checks it before the body is validated (then the body's shape: body-shape.ts),
// and writes it into /openapi.json.
import { Elysia, type DocumentDecoration } from "elysia";
import { forbidden } from "../../basics/errors";
import type { AuthContext } from "../auth-context";
import { SECURITY } from "../route-docs";
import { authenticateSession } from "../session";
import { checkBodyShape, closeBody } from "./body-shape";
import { assertMetricsToken, authenticateAdmin, authenticateSecret, authenticateSubscriber, authOf, rememberAuth } from "./auth";

interface GuardInput {
  request: Request;
  set: { headers: Record<string, any> };
  params?: Record<string, string>;
}
type Guard = (c: GuardInput) => void | Promise<void>;

const MANAGERS = new Set(["owner", "admin"]);

/**
 * Every rule a route can declare: who passes (the sentence the API reference shows), the OpenAPI
 * security requirement, and the guard that runs before validation, so a caller who may not call
 * the route gets 401/403 and never the route's field details.
 */
export const ACCESS_RULES = {
  public: {
    who: "Anyone: no credentials.",
    security: SECURITY.none,
    guard: (): Guard => () => {},
  },
  "secret-read": {
    who: "A secret API key (read permission is enough) or a dashboard session. Publishable keys are refused.",
    security: SECURITY.key,
    guard: (): Guard => async ({ request, set }) => void (await authenticateSecret(request, set, false)),
  },
  "secret-write": {
    who: "A secret API key with write permission, or a dashboard session. Read-only and publishable keys are refused.",
    security: SECURITY.key,
    guard: (): Guard => async ({ request, set }) => void (await authenticateSecret(request, set, true)),
  },
  "subscriber-read": {
    who: "A secret API key, a dashboard session, or a publishable key naming this subscriber (X-Subscriber-Id with its X-Subscriber-Hash) from an allowed Origin.",
    security: SECURITY.key,
    guard: (): Guard => async ({ request, set, params }) => void (await authenticateSubscriber(request, set, params, false)),
  },
  "subscriber-write": {
    who: "As subscriber-read, with write permission: a secret or publishable key with write, or a dashboard session.",
    security: SECURITY.key,
    guard: (): Guard => async ({ request, set, params }) => void (await authenticateSubscriber(request, set, params, true)),
  },
  session: {
    who: "A signed-in dashboard user (the nms_session cookie); API keys are refused.",
    security: SECURITY.session,
    guard: (): Guard => async ({ request }) => void rememberAuth(request, await authenticateSession(request)),
  },
  "session-manager": {
    who: "A signed-in owner or admin of the tenant (the nms_session cookie); members and API keys are refused.",
    security: SECURITY.session,
    guard:
      (refusal = "Only the tenant's owners and admins may do this"): Guard =>
      async ({ request }) => {
        const auth = await authenticateSession(request);
        if (!MANAGERS.has(auth.session.role)) throw forbidden("insufficient_permissions", refusal);
        rememberAuth(request, auth);
      },
  },
  "owner-write": {
    who: "A production secret API key with write permission, or a signed-in owner of the tenant (the nms_session cookie). Admins, members, sandbox, read-only and publishable keys are refused.",
    security: SECURITY.key,
    guard:
      (refusal = "Only the tenant's owners may do this"): Guard =>
      async ({ request, set }) => {
        const auth = await authenticateSecret(request, set, true);
        if (auth.actorType === "user" && auth.session?.role !== "owner") throw forbidden("insufficient_permissions", refusal);
        // what this rule guards concerns the whole account (its billing), which a test key must not change
        if (auth.actorType === "api_key" && auth.environment !== "production") throw forbidden("insufficient_permissions", "A sandbox key cannot change the account; use a production key or an owner's session");
      },
  },
  admin: {
    who: "The service's ADMIN_TOKEN as a Bearer token.",
    security: SECURITY.admin,
    guard: (): Guard => ({ request }) => authenticateAdmin(request),
  },
  metrics: {
    who: "Anyone while METRICS_TOKEN is unset; with it set, that token as a Bearer token.",
    security: SECURITY.none,
    guard: (): Guard => ({ request }) => assertMetricsToken(request),
  },
} satisfies Record<string, { who: string; security: Record<string, string[]>[]; guard: (refusal?: string) => Guard }>;

export type AccessRule = keyof typeof ACCESS_RULES;

/**
 * Rules whose guard takes a request from the caller's rate budget (http/plugins/auth.ts: API keys,
 * and dashboard sessions on key routes): their answers carry X-RateLimit-*, and 429 past the budget.
 */
export const RATE_LIMITED_RULES: ReadonlySet<AccessRule> = new Set(["secret-read", "secret-write", "subscriber-read", "subscriber-write", "owner-write"]);
/** A rule, or a rule with the message of its 403 (session-manager routes say what members may not do). */
export type Access = AccessRule | { rule: AccessRule; refusal: string };

/** The guards the macro installed, each with its rule: the route walk checks a declared rule really runs. */
export const installedGuards = new WeakMap<Function, AccessRule>();

function ruleOf(access: Access): { rule: AccessRule; refusal?: string } {
  const given = typeof access === "string" ? { rule: access } : access;
  if (!given || !Object.hasOwn(ACCESS_RULES, given.rule)) {
    throw new Error(`access: ${JSON.stringify(access)} is no rule; use one of ${Object.keys(ACCESS_RULES).join(", ")}`);
  }
  return given;
}

/**
 * `.use(accessPlugin)` in a route plugin, then `{ access: "<rule>" }` on each route. Routes with
 * a key, subscriber or session rule read the caller as `auth` (with `auth.session` for the session
 * rules); public, admin and metrics routes have no caller identity (`auth` is undefined there).
 */
export const accessPlugin = new Elysia({ name: "plugins.access" }).macro({
  access(access: Access) {
    const { rule, refusal } = ruleOf(access);
    const guard = ACCESS_RULES[rule].guard(refusal);
    installedGuards.set(guard, rule);
    // copies: Elysia merges route details in place, and these arrays are shared by every route
    const security = ACCESS_RULES[rule].security.map((requirement) => ({ ...requirement }));
    const detail: DocumentDecoration & { "x-access": AccessRule } = { security, "x-access": rule };
    return {
      detail,
      transform: guard,
      resolve: ({ request }: { request: Request }) => ({ auth: authOf(request) as AuthContext }),
      // after the guard: a caller who may not call the route learns nothing of its fields
      bodyShape: true,
    };
  },
  /**
   * Set by `access` on every route: the route's own `body` schema, closed at the top unless it says
   * otherwise, is checked before Elysia's normalizer would drop undeclared fields (http/plugins/body-shape.ts).
   */
  bodyShape(_on: boolean) {
    const declared: { body?: Record<string, any> } = {};
    return {
      introspect: (hook: Record<string, unknown>) => {
        declared.body = hook.body && typeof hook.body === "object" ? closeBody(hook.body as Record<string, any>) : undefined;
      },
      transform: ({ body, request }: { body: unknown; request: Request }) =>
        checkBodyShape(declared.body, body, (request.headers.get("content-type") ?? "").includes("json")),
    };
  },
});

/** The dashboard user of a session-rule route (the rule guarantees one). */
export function signedInUser(auth: AuthContext) {
  if (!auth.session) throw new Error("signedInUser on a route whose access rule is not session or session-manager");
  return auth.session;
}
