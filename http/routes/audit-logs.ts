// GET /api/internal/audit-logs and /api/internal/audit-logs/:id (admin token): every SPEC filter
// plus resource_id, actor_id, start_date, end_date; entries with microsecond inserted_at.
import { Elysia, t } from "elysia";
import { AuditLogList, AuditLogQuery, AuditLogResponse } from "../../schemas/audit-logs";
import { findAuditLog, listAuditLogs } from "../../store/audit-logs";
import { isUuid } from "../../store/ids";
import { notFound, validationFailed, type ErrorDetails } from "../../basics/errors";
import { parseLimit } from "../pagination";
import { adminPlugin } from "../plugins/auth";
import { errors, SECURITY } from "../route-docs";

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

export const auditLogRoutes = new Elysia({ name: "routes.audit-logs" })
  .use(adminPlugin)
  .get("/api/internal/audit-logs", async ({ query }) => {
    const details: ErrorDetails = {};
    const tenantId = query.tenant_id?.trim();
    if (!tenantId) details.tenant_id = ["is required"];
    else if (!isUuid(tenantId)) details.tenant_id = ["must be a UUID"];
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
    const rows = await listAuditLogs({
      tenantId: tenantId!,
      action: query.action,
      resourceType: query.resource_type,
      resourceId: query.resource_id,
      actorType: query.actor_type,
      actorId: query.actor_id,
      startDate,
      endDate,
      limit,
    });
    return { audit_logs: rows, count: rows.length };
  }, {
    query: AuditLogQuery,
    response: { 200: AuditLogList, ...errors(401, 422) },
    detail: { summary: "Audit log entries of a tenant (admin)", tags: ["admin"], security: SECURITY.admin },
  })
  .get("/api/internal/audit-logs/:id", async ({ params }) => {
    const row = isUuid(params.id) ? await findAuditLog(params.id) : undefined;
    if (!row) throw notFound("not_found", "Audit log entry not found");
    return { data: row };
  }, {
    params: t.Object({ id: t.String() }),
    response: { 200: AuditLogResponse, ...errors(401, 404) },
    detail: { summary: "One audit log entry (admin)", tags: ["admin"], security: SECURITY.admin },
  });
