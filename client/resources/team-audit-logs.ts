// nms.teamAuditLogs: the signed-in owner's or admin's own tenant's audit log with the admin
// route's filters (GET /v1/team/audit-logs); session-cookie mode only.
import type { RequestOptions, Transport } from "../transport.js";
import type { AuditLogList, TeamAuditLogListParams } from "../types.js";

export class TeamAuditLogs {
  constructor(private readonly transport: Transport) {}

  /** Newest first; `limit` default 50, max 200. Members get 403 insufficient_permissions. */
  list(params: TeamAuditLogListParams = {}, opts?: RequestOptions): Promise<AuditLogList> {
    return this.transport.request({ method: "GET", path: "/v1/team/audit-logs", query: params }, opts);
  }
}
