// Generated from schemas/team.ts by scripts/generate-client-types.ts: do not edit. The types
// Static<typeof Schema> gives for each TypeBox schema the server validates with, so @nms/client needs neither.

export type InviteMemberBody = {
  email: string;
  /** owner, admin or member */
  role: "owner" | "admin" | "member";
};

export type MemberParams = {
  id: string;
};

/** owner, admin or member */
export type RoleSchema = "owner" | "admin" | "member";

export type TeamMember = {
  id: string;
  email: string;
  name: string | null;
  /** owner, admin or member */
  role: "owner" | "admin" | "member";
  created_at: string;
  last_login_at: string | null;
};

export type TeamMemberList = {
  data: {
    id: string;
    email: string;
    name: string | null;
    /** owner, admin or member */
    role: "owner" | "admin" | "member";
    created_at: string;
    last_login_at: string | null;
  }[];
};

export type TeamMemberResponse = {
  data: {
    id: string;
    email: string;
    name: string | null;
    /** owner, admin or member */
    role: "owner" | "admin" | "member";
    created_at: string;
    last_login_at: string | null;
  };
};

export type UpdateMemberBody = {
  /** owner, admin or member */
  role: "owner" | "admin" | "member";
};
