// TypeBox schemas of the admin audit-log routes: the entry exactly as SPEC "Audit log entry" lists it.
import { t } from "elysia";

const Nullable = <T extends import("@sinclair/typebox").TSchema>(s: T) => t.Union([s, t.Null()]);

export const AuditLogEntry = t.Object({
  id: t.String(),
  tenant_id: t.String(),
  actor_id: Nullable(t.String()),
  actor_type: t.String(),
  action: t.String(),
  resource_type: t.String(),
  resource_id: Nullable(t.String()),
  metadata: t.Record(t.String(), t.Any()),
  ip_address: Nullable(t.String()),
  user_agent: Nullable(t.String()),
  inserted_at: t.String({ description: "ISO 8601 UTC with microseconds" }),
});

// Strings here and checked in the route, so every bad value is a 422 naming its field.
export const AuditLogQuery = t.Object({
  tenant_id: t.Optional(t.String()),
  action: t.Optional(t.String()),
  resource_type: t.Optional(t.String()),
  resource_id: t.Optional(t.String()),
  actor_type: t.Optional(t.String()),
  actor_id: t.Optional(t.String()),
  start_date: t.Optional(t.String()),
  end_date: t.Optional(t.String()),
  limit: t.Optional(t.String()),
});

/** GET /v1/team/audit-logs: the same filters; the tenant is the session's. */
export const TeamAuditLogQuery = t.Omit(AuditLogQuery, ["tenant_id"]);

export const AuditLogList = t.Object({ audit_logs: t.Array(AuditLogEntry), count: t.Integer() });
