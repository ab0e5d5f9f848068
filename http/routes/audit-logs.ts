// GET /api/internal/audit-logs and /api/internal/audit-logs/:id (admin token): every SPEC filter
// plus resource_id, actor_id, start_date, end_date; GET /v1/team/audit-logs: the same for a session's own tenant.
import { Elysia, t } from "elysia";
import { AuditLogList, AuditLogQuery, AuditLogResponse, TeamAuditLogQuery } from "../../schemas/audit-logs";
import { findAuditLog, listAuditLogs, type AuditFilter } from "../../store/audit-logs";
import { isUuid } from "../../store/ids";
import { fieldErrors, notFound, validationFailed, type ErrorDetails } from "../../basics/errors";
import { parseLimit } from "../pagination";
import { accessPlugin } from "../plugins/access";
import { errors } from "../route-docs";

const ACTOR_TYPES = ["user", "api_key", "system"];
// ISO 8601 date or date-time (offset or Z optional, fractions allowed)
const ISO_RE = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;

function isoDate(details: ErrorDetails, field: string, raw: string | undefined): string | undefined {
  if (raw === undefined || raw === "") return undefined;
  const d = new Date(raw);
  if (!ISO_RE.test(raw) || Number.isNaN(d.getTime())) {
    (details[field] ??= []).push("must be an ISO 8601 date or date-time");
    return undefined;
  }
  return raw;
}

/**
 * The filters of both audit routes, checked together so every bad value is one 422 naming its
 * field. `tenantId` is the query's (admin) or the session's (team route).
 */
function auditFilter(query: Omit<typeof AuditLogQuery.static, "tenant_id">, tenantId: string | undefined, details: ErrorDetails): AuditFilter {
  if (query.actor_type !== undefined && !ACTOR_TYPES.includes(query.actor_type)) {
    details.actor_type = [`must be one of ${ACTOR_TYPES.join(", ")}`];
  }
  const startDate = isoDate(details, "start_date", query.start_date);
  const endDate = isoDate(details, "end_date", query.end_date);
  let limit = 50;
  try {
    limit = parseLimit(query.limit, 50, 200);
  } catch (e: any) {
    Object.assign(details, e.details);
  }
  if (Object.keys(details).length) throw validationFailed(details);
  return {
    tenantId: tenantId!,
    action: query.action,
    resourceType: query.resource_type,
    resourceId: query.resource_id,
    actorType: query.actor_type,
    actorId: query.actor_id,
    startDate,
    endDate,
    limit,
  };
}

export const auditLogRoutes = new Elysia({ name: "routes.audit-logs" })
  .use(accessPlugin)
  .get("/api/internal/audit-logs", async ({ query }) => {
    const details = fieldErrors();
    const tenantId = query.tenant_id?.trim();
    if (!tenantId) details.tenant_id = ["is required"];
    else if (!isUuid(tenantId)) details.tenant_id = ["must be a UUID"];
    const rows = await listAuditLogs(auditFilter(query, tenantId, details));
    return { audit_logs: rows, count: rows.length };
  }, {
    access: "admin",
    query: AuditLogQuery,
    response: { 200: AuditLogList, ...errors(401, 422) },
    detail: { summary: "Audit log entries of a tenant (admin)", description: "Filter by action, resource, actor and date range (ISO 8601); newest first.", tags: ["admin"] },
  })
  .get("/api/internal/audit-logs/:id", async ({ params }) => {
    const row = isUuid(params.id) ? await findAuditLog(params.id) : undefined;
    if (!row) throw notFound("not_found", "Audit log entry not found");
    return { data: row };
  }, {
    access: "admin",
    params: t.Object({ id: t.String() }),
    response: { 200: AuditLogResponse, ...errors(401, 404) },
    detail: { summary: "One audit log entry (admin)", description: "An entry with its metadata, actor, IP address and user agent. Entries are never changed or deleted.", tags: ["admin"] },
  });

/**
 * The dashboard's view of the audit log: a signed-in owner or admin reads their own tenant's
 * entries (every environment: the log is per tenant), with the admin route's filters and answer.
 * Members are refused, as they are for team management.
 */
export const teamAuditLogRoutes = new Elysia({ name: "routes.team-audit-logs" })
  .use(accessPlugin)
  .get("/v1/team/audit-logs", async ({ query, auth }) => {
    const rows = await listAuditLogs(auditFilter(query, auth.tenantId, {}));
    return { audit_logs: rows, count: rows.length };
  }, {
    access: { rule: "session-manager", refusal: "Only owners and admins read the audit log" },
    query: TeamAuditLogQuery,
    response: { 200: AuditLogList, ...errors(401, 403, 422) },
    detail: {
      summary: "Audit log entries of the signed-in user's tenant (owners and admins; dashboard session)", description: "Who did what in the tenant (keys created and revoked, members invited, settings changed), newest first.",
      tags: ["team"],
    },
  });
