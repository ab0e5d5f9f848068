// nms.teamMembers: the dashboard users of the signed-in user's tenant: list, invite (sends a
// sign-in link), change role, remove; session-cookie mode only (/v1/team/members).
import { path, type RequestOptions, type Transport } from "../transport.js";
import type { TeamMember, TeamMemberInviteParams, TeamMemberUpdateParams } from "../types.js";

export class TeamMembers {
  constructor(private readonly transport: Transport) {}

  list(opts?: RequestOptions): Promise<TeamMember[]> {
    return this.transport.data({ method: "GET", path: "/v1/team/members" }, opts);
  }

  /** Not retried on ambiguous failures: a repeat answers 409 email_taken. */
  invite(params: TeamMemberInviteParams, opts?: RequestOptions): Promise<TeamMember> {
    return this.transport.data({ method: "POST", path: "/v1/team/members", body: params }, opts);
  }

  update(id: string, params: TeamMemberUpdateParams, opts?: RequestOptions): Promise<TeamMember> {
    return this.transport.data({ method: "PUT", path: path`/v1/team/members/${id}`, body: params }, opts);
  }

  del(id: string, opts?: RequestOptions): Promise<void> {
    return this.transport.request({ method: "DELETE", path: path`/v1/team/members/${id}` }, opts);
  }
}
