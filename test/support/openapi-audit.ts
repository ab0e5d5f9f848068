// Checks an OpenAPI document operation by operation: request body schema and example, response
// schemas per status, the standard error body on every error status. Returns readable problems.
import { JSON_ONLY_PATH } from "../../http/plugins/body-parser";

/** Operations that take no request body although their method could carry one, and why. */
export const NO_REQUEST_BODY: Record<string, string> = {
  "POST /v1/subscribers/{id}/notifications/read-all": "marks every in-app item read; nothing to send",
  "POST /v1/subscribers/{id}/notifications/{notif_id}/read": "marks one item read; the path names it",
  "POST /v1/domains/{id}/verify": "looks up the domain's verification record; the path names it",
  "POST /v1/domains/{id}/health/check": "checks the domain's DNS now; the path names it",
  "POST /v1/webhooks/{id}/deliveries/{delivery_id}/retry": "sends that delivery's event again; the path names it",
  "POST /api/internal/dead-letters/{actor}/{id}/redrive": "puts that dead letter back on its partition; the path names it",
  "POST /v1/workflow-runs/{id}/cancel": "cancels that run; the path names it",
  "POST /v1/broadcasts/{id}/cancel": "stops that broadcast's fan-out; the path names it",
};

/** Error statuses that answer a body of their own instead of the standard error body, and why. */
export const OWN_ERROR_BODY: Record<string, string> = {
  "GET /health 503": "the health report with status degraded, read by uptime checks",
};

const BODY_METHODS = new Set(["post", "put", "patch"]);
const METHODS = ["get", "put", "post", "delete", "patch", "head", "options", "trace"];

const hasExample = (o: any) => !!o && (o.example !== undefined || (Array.isArray(o.examples) ? o.examples.length > 0 : !!o.examples && Object.keys(o.examples).length > 0));

/** The standard error body: {error: {code, message, details?}} (schemas/errors.ts). */
function isErrorBody(schema: any): boolean {
  const inner = schema?.properties?.error?.properties;
  return !!inner?.code && !!inner?.message;
}

export interface AuditOptions {
  /** "METHOD /path" of operations whose route declares a `body` schema (from the app's routes). */
  declaredBodies?: Set<string>;
  noRequestBody?: Record<string, string>;
}

/** Every problem of the document, one line each, naming the operation and what is missing. */
export function auditOpenApi(doc: any, opts: AuditOptions = {}): string[] {
  const noBody = opts.noRequestBody ?? NO_REQUEST_BODY;
  const problems: string[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const name = `${method.toUpperCase()} ${path}`;
      const say = (what: string) => problems.push(`${name}: ${what}`);

      // request body
      const rb = op.requestBody;
      const media = rb ? Object.entries<any>(rb.content ?? {}) : [];
      if (rb && media.length === 0) say("request body has no media type (content {}): the schema was dropped");
      for (const [type, m] of media) {
        if (!m?.schema || Object.keys(m.schema).length === 0) say(`request body ${type} has no schema`);
        else if (!hasExample(m) && !hasExample(m.schema)) say(`request body ${type} has no example: add examples: [...] to the body schema`);
      }
      if (!rb && opts.declaredBodies?.has(name)) say("the route declares a body but the document has no request body");
      if (!rb && BODY_METHODS.has(method) && !(name in noBody)) {
        say("no request body schema: declare `body` (with an example) in the route's options, or list the operation in NO_REQUEST_BODY (test/support/openapi-audit.ts) with why it takes none");
      }
      if (rb && name in noBody) say("has a request body but is listed in NO_REQUEST_BODY: remove it from the list");

      // responses
      const responses = Object.entries<any>(op.responses ?? {});
      if (responses.length === 0) {
        say("no responses declared: add `response: { <status>: Schema, ...errors(...) }` to the route's options");
        continue;
      }
      const statuses = new Set(responses.map(([s]) => s));
      const success = responses.filter(([s]) => /^[123]\d\d$/.test(s));
      if (success.length === 0) say("no success (1xx-3xx) response declared");
      for (const [status, r] of responses) {
        const content = Object.entries<any>(r?.content ?? {});
        for (const [type, m] of content) {
          if (!m?.schema || Object.keys(m.schema).length === 0) say(`response ${status} ${type} has no schema`);
        }
        if (Number(status) >= 400) {
          const json = r?.content?.["application/json"]?.schema;
          if (!json) say(`response ${status} has no application/json schema: use the standard error body (errors(${status}) from http/route-docs.ts)`);
          else if (!isErrorBody(json) && !(`${name} ${status}` in OWN_ERROR_BODY)) {
            say(`response ${status} is not the standard error body {error: {code, message, details?}}`);
          }
        }
      }
      if (![...statuses].some((s) => Number(s) >= 400)) say("no error response declared: add ...errors(...) (http/route-docs.ts) for the statuses it can answer");
      const security = op.security ?? doc.security ?? [];
      if (security.length > 0 && !statuses.has("401")) say("requires credentials but declares no 401");
      if (rb) {
        const needed = JSON_ONLY_PATH.test(path) ? ["400", "413", "415", "422"] : ["413", "422"];
        for (const s of needed) if (!statuses.has(s)) say(`takes a body but declares no ${s} (BODY_ERRORS in http/route-docs.ts)`);
      }
      if ((op.parameters ?? []).some((p: any) => p.in === "query") && !statuses.has("422")) say("takes query parameters but declares no 422");

      // an example of what it answers, when it answers content and takes no body
      if (!rb) {
        const shown = success.some(([, r]) => Object.values<any>(r?.content ?? {}).some((m) => hasExample(m) || hasExample(m?.schema)));
        const answersContent = success.some(([, r]) => Object.keys(r?.content ?? {}).length > 0);
        if (answersContent && !shown) say("no example: add examples: [...] to the success response schema");
      }
    }
  }
  return problems;
}
