// nms.auditLogs (admin token): a tenant's entries filtered by action, resource type and id,
// actor type and id, start and end date; one entry by id (GET /api/internal/audit-logs[/:id]).
import { path, type RequestOptions, type Transport } from "../transport.js";
import type { AuditLogEntry, AuditLogList, AuditLogListParams } from "../types.js";

export class AuditLogs {
  constructor(private readonly transport: Transport) {}

  /** Newest first; `limit` default 50, max 200. Dates may be Date objects (sent as ISO 8601). */
  list(params: AuditLogListParams, opts?: RequestOptions): Promise<AuditLogList> {
    return this.transport.request({ method: "GET", path: "/api/internal/audit-logs", query: params, admin: true }, opts);
  }

  retrieve(id: string, opts?: RequestOptions): Promise<AuditLogEntry> {
    return this.transport.data({ method: "GET", path: path`/api/internal/audit-logs/${id}`, admin: true }, opts);
  }
}
