// What route options declare for the OpenAPI document besides their own schemas: the standard error
// body under each error status a route can answer (with an example code), and who may call it.
import { t } from "elysia";
import { CloneType, type TSchema } from "@sinclair/typebox";
import { ErrorBody } from "../schemas/errors";
import { WebhookEvent } from "../schemas/webhook-events";

/** One line per status: what it means here and an example body with a typical code. */
const ERROR_DOCS = {
  400: ["The request is unusable: invalid_json (not JSON, not UTF-8) and the like", "invalid_json", "Request body is not valid JSON"],
  401: ["Who is calling is unknown: invalid_api_key, invalid_session, invalid_admin_token", "invalid_api_key", "Missing, malformed, invalid or revoked API key"],
  402: ["The tenant's plan does not cover it: quota_exceeded (notifications of the period used up), plan_limit_reached (a resource limit)", "quota_exceeded", "The free plan's 1000 production notifications of this period are used up (until 2026-04-01T00:00:00.000Z); upgrade the plan or wait for the next period"],
  403: ["Known but not allowed: insufficient_permissions, origin_not_allowed, session_required", "insufficient_permissions", "This key is read-only"],
  404: ["Nothing with this id here: not_found or <resource>_not_found (another tenant's ids too)", "not_found", "Resource not found"],
  409: ["The current state forbids it: conflict, <x>_already_<y>, idempotency_key_in_use", "conflict", "A template with this slug already exists"],
  413: ["Body over 1 MiB (payload_too_large)", "payload_too_large", "Request body exceeds 1048576 bytes"],
  415: ["Body sent without Content-Type: application/json (unsupported_media_type)", "unsupported_media_type", 'Request bodies are JSON: send Content-Type: application/json (got "text/plain")'],
  422: ["Input refused: validation_failed with details per field, or a rule such as channel_not_configured", "validation_failed", "Validation failed"],
  429: ["Rate limit reached (rate_limited); wait Retry-After seconds", "rate_limited", "Rate limit of 1000 requests per minute exceeded; retry in 12 s"],
  502: ["The payment gateway failed or refused (gateway_error); nothing changed here", "gateway_error", "Stripe answered 402: Your card was declined."],
  503: ["A dependency is down (service_unavailable)", "service_unavailable", "Service unavailable"],
} as const;

export type ErrorStatus = keyof typeof ERROR_DOCS;

const errorSchemas = Object.fromEntries(
  Object.entries(ERROR_DOCS).map(([status, [description, code, message]]) => {
    const example = { error: status === "422" ? { code, message, details: { email: ["must be a valid email address"] } } : { code, message } };
    return [status, CloneType(ErrorBody, { description, examples: [example] })];
  }),
) as Record<ErrorStatus, typeof ErrorBody>;

/** `{401: ErrorBody, 404: ErrorBody, ...}` for a route's `response` option. */
export function errors(...statuses: (ErrorStatus | readonly ErrorStatus[])[]): Record<number, TSchema> {
  const out: Record<number, TSchema> = {};
  for (const s of statuses.flat()) out[s] = errorSchemas[s];
  return out;
}

/** 204 and the like: a status with no body. */
export const NoContent = t.Void({ description: "No content" });

/** A 302 whose Location header says where to go next. */
export const Redirect = (description: string) => t.Void({ description });

/** What every route taking a JSON body can answer: not JSON, too large, not JSON at all, refused. */
export const BODY_ERRORS = [400, 413, 415, 422] as const;
/** What every API key (or session) route can answer before it runs. */
export const KEY_ERRORS = [401, 403, 429] as const;

/**
 * The OpenAPI security requirement of each kind of access rule (http/plugins/access.ts writes it on
 * every route). The document's default is an API key or a dashboard session; the admin routes take
 * ADMIN_TOKEN, the dashboard-only ones the session cookie.
 */
type SecurityRequirement = Record<string, string[]>;
export const SECURITY: Record<"key" | "admin" | "session" | "none", SecurityRequirement[]> = {
  key: [{ apiKey: [] }, { session: [] }],
  admin: [{ adminToken: [] }],
  session: [{ session: [] }],
  none: [],
};

export const SECURITY_SCHEMES = {
  apiKey: {
    type: "http",
    scheme: "bearer",
    description: "An API key: nk_live_/nk_test_ (secret) or pk_live_/pk_test_ (publishable, inbox routes only)",
  },
  adminToken: { type: "http", scheme: "bearer", description: "The service's ADMIN_TOKEN (admin routes only)" },
  session: { type: "apiKey", in: "cookie", name: "nms_session", description: "The dashboard session cookie set by /auth/*" },
};

/**
 * The document's `webhooks`: what the service POSTs to a subscribed URL (OpenAPI 3.1 describes
 * outgoing calls there, not under `paths`).
 */
export const OUTBOUND_WEBHOOKS = {
  event: {
    post: {
      summary: "An event, POSTed to each webhook subscribed to its type",
      description:
        "The same event may arrive twice (dedupe on id) and in any order (order by created_at). Verify X-Service-Signature before trusting the body.",
      parameters: [
        {
          name: "X-Service-Signature",
          in: "header",
          required: true,
          description: "sha256= and the lowercase hex HMAC-SHA256 of the raw body, keyed by the webhook's signing secret; compare in constant time",
          schema: { type: "string", examples: ["sha256=5d0b3c1f0e9a7a6c4b2d8e1f3a5c7e9b1d3f5a7c9e1b3d5f7a9c1e3b5d7f9a1c"] },
        },
        { name: "webhook-id", in: "header", required: true, description: "The event id (Standard Webhooks): the same on a duplicate", schema: { type: "string" } },
        { name: "webhook-timestamp", in: "header", required: true, description: "Send time in seconds (Standard Webhooks): refuse old ones", schema: { type: "string" } },
        {
          name: "webhook-signature",
          in: "header",
          required: true,
          description: "v1,<base64 HMAC-SHA256 of id.timestamp.body> (Standard Webhooks), for libraries that verify that form",
          schema: { type: "string" },
        },
      ],
      requestBody: {
        required: true,
        content: {
          "application/json": {
            schema: WebhookEvent,
            example: {
              id: "0198c3d5-1111-7222-8333-444455556666",
              type: "notification.delivered",
              created_at: "2025-08-01T12:00:02.000Z",
              data: { notification: { id: "0198c3b3-0a1b-7c2d-9e3f-4a5b6c7d8e9f", status: "delivered", channel: "email", to: "ana@example.com" } },
            },
          },
        },
      },
      responses: { "2XX": { description: "Received; any other answer is retried" } },
    },
  },
};

/**
 * The reference's sections, in the order /docs shows them: the resources an integration uses first,
 * then the dashboard's, the URLs third parties call, and the service's internal routes last. Every
 * operation has exactly one of these tags (test/http/api-reference.test.ts names any that does not).
 */
export const API_TAGS = [
  { name: "notifications", description: "Send one notification to one recipient on one channel, and search what was sent (the activity feed)." },
  { name: "workflows", description: "Multi-step workflows (send, delay, fallback), versioned; triggering one starts a run for a recipient." },
  { name: "templates", description: "Liquid templates per channel, with preview and validation before they go live." },
  { name: "subscribers", description: "The people you notify: their addresses, custom properties and preferences." },
  { name: "topics", description: "Named groups of subscribers; a workflow triggered to a topic starts a broadcast to its members." },
  { name: "broadcasts", description: "The fan-out of one trigger to every member of a topic: its progress, and cancelling it." },
  { name: "preferences", description: "Preference categories, and the hosted preference center where subscribers change their own." },
  { name: "inbox", description: "A subscriber's in-app inbox; the inbox widget calls these with a publishable key." },
  { name: "channels", description: "Which provider delivers each channel, with its credentials and settings." },
  { name: "domains", description: "Sending domains: the DNS records to publish, verification and SPF/DKIM/DMARC health." },
  { name: "webhooks", description: "Signed HTTP callbacks to your endpoints for notification and workflow events." },
  { name: "suppressions", description: "Addresses that bounced, complained or unsubscribed: nothing is sent to them." },
  { name: "analytics", description: "Delivery counters per period, channel, template and time bucket." },
  { name: "api-keys", description: "Secret and publishable API keys: create, rotate, revoke." },
  { name: "inbox-embed", description: "Where the inbox widget may run: allowed origins and developer mode." },
  { name: "settings", description: "The tenant's delivery policy (time zone, quiet hours, frequency caps) and how long its history is kept." },
  { name: "billing", description: "The tenant's plan, subscription and usage." },
  { name: "session", description: "Dashboard sign-in: magic links, OAuth and the session cookie." },
  { name: "team", description: "The dashboard users of a tenant, their roles and the team's audit log." },
  { name: "recipient-links", description: "Pages and redirects recipients reach from a message: unsubscribe, open and click tracking." },
  { name: "provider-callbacks", description: "Delivery reports and payment events that providers POST to the service, verified by their signatures." },
  { name: "service", description: "Health, and the dashboard and inbox widget files this service serves." },
  { name: "admin", description: "Internal: for the service's operators, with ADMIN_TOKEN (tenants, plans, blocked domains, audit log, dead letters)." },
  { name: "operations", description: "Internal: Prometheus metrics of the process." },
] as const;

export type ApiTag = (typeof API_TAGS)[number]["name"];

/** Tags of the internal routes, shown after every other section. */
export const INTERNAL_TAGS: readonly ApiTag[] = ["admin", "operations"];

/**
 * A route's `detail`: its section, a one-line summary and a description that says what it does
 * and what to know before calling it (limits, side effects, what a failure means). Access, the
 * Idempotency-Key header and the rate-limit headers are added to the document from the route's
 * rule and path; they need no words here.
 *
 *   detail: routeDoc("templates", "Create a template", "A draft unless status is active; ...")
 */
export function routeDoc(tag: ApiTag, summary: string, description: string, more: Record<string, unknown> = {}) {
  return { tags: [tag], summary, description, ...more };
}
