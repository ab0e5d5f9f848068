// CORS for the browser-facing inbox routes (/v1/subscribers/:id/notifications|preferences...):
// preflight answers, and the headers the subscriber access rules add to real requests.
import { Elysia } from "elysia";
import { errorBody, statusFor } from "./errors";

export const INBOX_PATH_RE = /^\/v1\/subscribers\/[^/]+\/(?:notifications|preferences)(?:\/.*)?$/;

// Last-Event-ID: the inbox embed resumes its event stream with it (fetch, as EventSource cannot send the key)
export const ALLOW_HEADERS = "Authorization, Content-Type, X-Subscriber-Id, X-Subscriber-Hash, Idempotency-Key, X-Request-Id, Last-Event-ID";
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
 * answered for any origin, and the real request is checked against its own tenant by
 * subscriber-read / subscriber-write rule (http/plugins/access.ts), whose 403 origin_not_allowed the page can then read (it carries
 * Access-Control-Allow-Origin) and show. A refused preflight would leave the page nothing but a
 * network error. Credentials (cookies) are never allowed cross-origin, so no session is exposed.
 */
export const corsPlugin = new Elysia({ name: "plugins.cors" }).onRequest(({ request, set }) => {
  if (request.method !== "OPTIONS") return;
  const path = new URL(request.url).pathname;
  if (!INBOX_PATH_RE.test(path)) return;
  const origin = request.headers.get("origin");
  const headers: Record<string, string> = { vary: "Origin" };
  if (!origin) {
    return new Response(JSON.stringify(errorBody("origin_not_allowed", "A preflight request needs an Origin header")), {
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
