// CORS for the browser-facing inbox routes (/v1/subscribers/:id/notifications|preferences...):
// preflight answers for allowed origins, and the headers inboxAuthPlugin adds to real requests.
import { Elysia } from "elysia";
import { originAllowedAnywhere } from "../../store/allowed-origins";
import { errorBody, statusFor } from "./errors";

export const INBOX_PATH_RE = /^\/v1\/subscribers\/[^/]+\/(?:notifications|preferences)(?:\/.*)?$/;

export const ALLOW_HEADERS = "Authorization, Content-Type, X-Subscriber-Id, X-Subscriber-Hash, Idempotency-Key, X-Request-Id";
export const ALLOW_METHODS = "GET, POST, PUT, PATCH, DELETE, OPTIONS";
export const EXPOSE_HEADERS = "X-Request-Id, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, Idempotent-Replayed";

/** http(s)://localhost or 127.0.0.1 on any port: what developer mode lets through (SPEC Authentication 3b). */
export function isLocalDevOrigin(origin: string): boolean {
  try {
    const u = new URL(origin);
    return (u.protocol === "http:" || u.protocol === "https:") && (u.hostname === "localhost" || u.hostname === "127.0.0.1");
  } catch {
    return false;
  }
}

export function setCorsHeaders(set: { headers: Record<string, any> }, origin: string): void {
  set.headers["access-control-allow-origin"] = origin;
  set.headers["access-control-expose-headers"] = EXPOSE_HEADERS;
  set.headers["vary"] = "Origin";
}

/**
 * A preflight carries neither the key nor the subscriber headers, so the tenant is unknown: it is
 * answered for any origin some tenant allows (or localhost, which developer mode may allow). The
 * real request is then checked against its own tenant by inboxAuthPlugin.
 */
export const corsPlugin = new Elysia({ name: "plugins.cors" }).onRequest(async ({ request, set }) => {
  if (request.method !== "OPTIONS") return;
  const path = new URL(request.url).pathname;
  if (!INBOX_PATH_RE.test(path)) return;
  const origin = request.headers.get("origin");
  const headers: Record<string, string> = { vary: "Origin" };
  if (!origin || !(isLocalDevOrigin(origin) || (await originAllowedAnywhere(origin)))) {
    return new Response(JSON.stringify(errorBody("origin_not_allowed", "This Origin is not an allowed origin")), {
      status: statusFor("origin_not_allowed"),
      headers: { ...headers, "content-type": "application/json", "x-request-id": String(set.headers["x-request-id"] ?? "") },
    });
  }
  return new Response(null, {
    status: 204,
    headers: {
      ...headers,
      "access-control-allow-origin": origin,
      "access-control-allow-methods": ALLOW_METHODS,
      "access-control-allow-headers": ALLOW_HEADERS,
      "access-control-max-age": "600",
      "x-request-id": String(set.headers["x-request-id"] ?? ""),
    },
  });
});
