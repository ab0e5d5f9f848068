// Generated from schemas/audit-logs.ts by scripts/generate-client-types.ts: do not edit. The types
// Static<typeof Schema> gives for each TypeBox schema the server validates with, so @nms/client needs neither.

export type AuditLogEntry = {
  id: string;
  tenant_id: string;
  actor_id: string | null;
  actor_type: string;
  action: string;
  resource_type: string;
  resource_id: string | null;
  metadata: { [key: string]: any };
  ip_address: string | null;
  user_agent: string | null;
  /** ISO 8601 UTC with microseconds */
  inserted_at: string;
  actor_name?: string | null;
  resource_name?: string | null;
};

export type AuditLogList = {
  audit_logs: {
    id: string;
    tenant_id: string;
    actor_id: string | null;
    actor_type: string;
    action: string;
    resource_type: string;
    resource_id: string | null;
    metadata: { [key: string]: any };
    ip_address: string | null;
    user_agent: string | null;
    /** ISO 8601 UTC with microseconds */
    inserted_at: string;
    actor_name?: string | null;
    resource_name?: string | null;
  }[];
  count: number;
};

export type AuditLogQuery = {
  tenant_id?: string;
  action?: string;
  resource_type?: string;
  resource_id?: string;
  actor_type?: string;
  actor_id?: string;
  start_date?: string;
  end_date?: string;
  limit?: string;
};

export type AuditLogResponse = {
  data: {
    id: string;
    tenant_id: string;
    actor_id: string | null;
    actor_type: string;
    action: string;
    resource_type: string;
    resource_id: string | null;
    metadata: { [key: string]: any };
    ip_address: string | null;
    user_agent: string | null;
    /** ISO 8601 UTC with microseconds */
    inserted_at: string;
    actor_name?: string | null;
    resource_name?: string | null;
  };
};

export type TeamAuditLogQuery = {
  action?: string;
  resource_type?: string;
  resource_id?: string;
  actor_type?: string;
  actor_id?: string;
  start_date?: string;
  end_date?: string;
  limit?: string;
};
