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
  actor_name: t.Optional(Nullable(t.String({ description: "The actor in words, looked up when read: a user's email, an API key's prefix and label; null for system" }))),
  resource_name: t.Optional(
    Nullable(t.String({ description: "The resource in words where known: an API key's prefix, a team member's email, a domain, a webhook's URL" })),
  ),
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

const AUDIT_EXAMPLE = {
  id: "0198c3c0-1234-7abc-8def-0123456789ab",
  tenant_id: "0198c3a0-1111-7222-8333-444455556666",
  actor_id: "0198c3a0-7777-7888-9999-aaaabbbbcccc",
  actor_type: "api_key",
  action: "template.created",
  resource_type: "template",
  resource_id: "0198c3c1-aaaa-7bbb-8ccc-ddddeeeeffff",
  metadata: { environment: "production", slug: "welcome", channel: "email", status: "draft" },
  ip_address: "203.0.113.7",
  user_agent: "curl/8.5.0",
  inserted_at: "2025-08-01T12:00:00.123456Z",
  actor_name: "nk_live_Ab12 (default)",
  resource_name: null,
};

export const AuditLogList = t.Object(
  { audit_logs: t.Array(AuditLogEntry), count: t.Integer() },
  { examples: [{ audit_logs: [AUDIT_EXAMPLE], count: 1 }] },
);
export const AuditLogResponse = t.Object({ data: AuditLogEntry }, { examples: [{ data: AUDIT_EXAMPLE }] });
