// The one error mapper: every failure leaves as {"error": {"code", "message", "details"?}} with the
// request id header and the status of its code (one table); oversized bodies are refused here up front.
import { Elysia } from "elysia";
import { fieldErrors, AppError, type ErrorDetails } from "../../basics/errors";
import { logger } from "../../basics/log";
import { beginRequest, requestFacts } from "../request-context";
import { drain, DRAIN_MAX_BYTES, MAX_BODY_BYTES, NUL_MESSAGE, nulInUrl, UNSTORABLE_TEXT } from "./body-parser";

/**
 * The HTTP status of every error code (DESIGN.md 4 and the codes routes add). Application errors
 * (basics/errors.ts) carry only a code; this table is the one place a code becomes a status.
 * Codes not listed fall back to SUFFIX_STATUS, then to 400 (test/unit/error-status.test.ts
 * checks that every code the code base raises is listed here).
 */
export const ERROR_STATUS: Readonly<Record<string, number>> = {
  // 400: the request itself is unusable
  invalid_json: 400,
  invalid_parameters: 400,
  invalid_token: 400,
  token_expired: 400,
  invalid_state: 400,
  oauth_denied: 400,
  oauth_exchange_failed: 400,
  email_not_verified: 400,
  callback_expired: 400,
  // 401: who is calling is unknown
  invalid_api_key: 401,
  invalid_admin_token: 401,
  invalid_session: 401,
  invalid_signature: 401,
  invalid_metrics_token: 401,
  // 402: the tenant's plan does not cover it (docs/billing.md)
  quota_exceeded: 402,
  plan_limit_reached: 402,
  // 403: known, but not allowed
  insufficient_permissions: 403,
  origin_not_allowed: 403,
  session_required: 403,
  invalid_verify_token: 403,
  // 404 (and every *_not_found, see SUFFIX_STATUS)
  not_found: 404,
  provider_not_configured: 404,
  // 409: the current state forbids it
  conflict: 409,
  run_not_cancellable: 409,
  broadcast_not_cancellable: 409,
  subscriber_erased: 409,
  email_taken: 409,
  last_owner: 409,
  webhook_inactive: 409,
  delivery_not_retryable: 409,
  subscription_not_cancellable: 409,
  // 413, 422, 429
  payload_too_large: 413,
  unsupported_media_type: 415,
  validation_failed: 422,
  idempotency_key_reused: 422,
  email_domain_blocked: 422,
  template_render_failed: 422,
  template_not_active: 422,
  plan_not_billable: 422,
  channel_not_configured: 422,
  webhook_limit_reached: 422,
  rate_limited: 429,
  // 5xx
  internal_error: 500,
  gateway_error: 502,
  service_unavailable: 503,
  gateway_not_configured: 503,
  dns_unavailable: 503,
};

/** Families of codes: `template_not_found` 404, `idempotency_key_in_use` 409, `domain_already_blocked` 409. */
export const SUFFIX_STATUS: readonly (readonly [RegExp, number])[] = [
  [/_not_found$/, 404],
  [/_in_use$/, 409],
  [/_already_[a-z]+$/, 409],
];

export function statusFor(code: string): number {
  const exact = ERROR_STATUS[code];
  if (exact !== undefined) return exact;
  for (const [re, status] of SUFFIX_STATUS) if (re.test(code)) return status;
  return 400;
}

export function errorBody(code: string, message: string, details?: ErrorDetails) {
  return { error: details ? { code, message, details } : { code, message } };
}

/** Sets the status of `code` and returns the standard body. */
function reply(set: { status?: unknown }, code: string, message: string, details?: ErrorDetails) {
  set.status = statusFor(code);
  return errorBody(code, message, details);
}

/** JSON pointer "/subscribers/3/email" -> "subscribers[3].email" */
export function fieldPath(pointer: string | undefined): string {
  if (!pointer || pointer === "/" || pointer === "root") return "body";
  const parts = pointer.replace(/^\//, "").split("/").map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));
  let out = "";
  for (const p of parts) out += /^\d+$/.test(p) ? `[${p}]` : out ? `.${p}` : p;
  return out;
}

/** TypeBox says "Expected union value"; name what the union accepts instead. */
function unionMessage(schema: any): string | null {
  const options: any[] = Array.isArray(schema?.anyOf) ? schema.anyOf : [];
  if (options.length === 0) return null;
  if (options.every((o) => o && "const" in o)) return `must be one of ${options.map((o) => String(o.const)).join(", ")}`;
  const num = options.find((o) => o?.type === "integer" || o?.type === "number");
  if (!num) return null;
  const kind = num.type === "integer" ? "an integer" : "a number";
  const lo = num.minimum, hi = num.maximum;
  if (lo !== undefined && hi !== undefined) return `must be ${kind} from ${lo} to ${hi}`;
  if (lo !== undefined) return `must be ${kind} >= ${lo}`;
  if (hi !== undefined) return `must be ${kind} <= ${hi}`;
  return `must be ${kind}`;
}

function humanMessage(e: any): string {
  const msg: string = e?.message ?? "is invalid";
  if (/required property/i.test(msg)) return "is required";
  if (/^Expected union value$/i.test(msg)) return unionMessage(e?.schema) ?? "is not an accepted value";
  // an object that must set something (minProperties 1, e.g. a partial update): name what it may set
  const fields = e?.schema?.properties && typeof e.schema.properties === "object" ? Object.keys(e.schema.properties) : [];
  if (/^Expected object to have at least 1 propert/i.test(msg) && fields.length) return `must set at least one of ${fields.join(", ")}`;
  return msg.replace(/^Expected /, "must be ").replace(/^Unexpected property$/, "is not allowed");
}

export function validationDetails(error: any): ErrorDetails {
  const details = fieldErrors();
  let all: any[] = [];
  try {
    all = error.all ?? [];
  } catch {
    all = [];
  }
  for (const e of all) {
    const key = fieldPath(e.path);
    // key comes from the client's JSON ("__proto__", "constructor"): the map has no prototype
    const list = (details[key] ??= []);
    const m = humanMessage(e);
    if (!list.includes(m)) list.push(m);
  }
  // a missing field also fails its type check ("must be string"): "is required" says it all
  for (const key of Object.keys(details)) if (details[key]!.includes("is required")) details[key] = ["is required"];
  if (Object.keys(details).length === 0) details.body = ["is invalid"];
  return details;
}

/** Turns any error into the standard body; see errorsPlugin. */
function mapError({ code, error, set, request }: { code: unknown; error: unknown; set: any; request: Request }) {
  const f = requestFacts(request);
  set.headers["x-request-id"] = f.id;
  if (code === "PARSE" && (error as any).cause instanceof AppError) error = (error as any).cause;
  if (error instanceof AppError) {
    if (error.headers) Object.assign(set.headers, error.headers);
    return reply(set, error.code, error.message, error.details);
  }
  switch (code) {
    case "VALIDATION": {
      const on = (error as any).type;
      // "property": a body value Elysia coerced (e.g. the string "-1" for an integer) that then
      // failed the field's bounds; still the client's input.
      if (on === "body" || on === "query" || on === "params" || on === "headers" || on === "property") {
        return reply(set, "validation_failed", "Validation failed", validationDetails(error));
      }
      break; // a response that fails its own schema is our bug: 500 below
    }
    case "PARSE":
      return reply(set, "invalid_json", "Request body is not valid JSON");
    case "NOT_FOUND":
      return reply(set, "not_found", `No route for ${request.method} ${new URL(request.url).pathname}`);
    case "INVALID_COOKIE_SIGNATURE":
      return reply(set, "invalid_session", "Session cookie is invalid");
  }
  if (UNSTORABLE_TEXT.has((error as any)?.code) && (error as any)?.name === "PostgresError") {
    return reply(set, "validation_failed", "Validation failed", { body: [NUL_MESSAGE] });
  }
  // a framework error that carries 413 itself (a body over the server's own limit)
  const status = (error as any)?.status;
  if (typeof status === "number" && status === 413) {
    return reply(set, "payload_too_large", `Request body exceeds ${MAX_BODY_BYTES} bytes`);
  }
  logger.error({ request_id: f.id, err: error, code, path: new URL(request.url).pathname }, "unhandled error");
  set.status = statusFor("internal_error");
  return { error: { code: "internal_error", message: `Internal error; quote request id ${f.id}`, request_id: f.id } };
}

export const errorsPlugin = new Elysia({ name: "plugins.errors" })
  .onRequest(async ({ request, server, set }) => {
    const f = beginRequest(request, server);
    set.headers["x-request-id"] = f.id;
    const len = Number(request.headers.get("content-length") ?? 0);
    if (len > MAX_BODY_BYTES) {
      // a client still writing reads the answer instead of a reset; one announcing more than the
      // drain's bound is answered at once
      if (len <= DRAIN_MAX_BYTES && request.body) await drain(request.body.getReader(), 0);
      return reply(set, "payload_too_large", `Request body exceeds ${MAX_BODY_BYTES} bytes`);
    }
    const nulField = nulInUrl(request.url);
    if (nulField) return reply(set, "validation_failed", "Validation failed", { [nulField]: [NUL_MESSAGE] });
  })
  .onError({ as: "global" }, (ctx) => {
    try {
      return mapError(ctx as any);
    } catch (mapperFailure) {
      // the mapper itself must never let a framework page (with source) reach a client
      const id = requestFacts(ctx.request).id;
      logger.error({ request_id: id, err: mapperFailure }, "error mapper failed");
      ctx.set.status = statusFor("internal_error");
      return { error: { code: "internal_error", message: `Internal error; quote request id ${id}`, request_id: id } };
    }
  });
