// TypeBox schemas of the team member routes (/v1/team/members).
import { t } from "elysia";

export const RoleSchema = t.Union([t.Literal("owner"), t.Literal("admin"), t.Literal("member")], {
  description: "owner, admin or member",
});

export const InviteMemberBody = t.Object(
  { email: t.String({ maxLength: 320 }), role: RoleSchema },
  { examples: [{ email: "bruno@acme.example", role: "member" }] },
);

export const UpdateMemberBody = t.Object({ role: RoleSchema }, { examples: [{ role: "admin" }] });

export const MemberParams = t.Object({ id: t.String() });

/** A dashboard user of the tenant as the team routes return it. */
export const TeamMember = t.Object({
  id: t.String(),
  email: t.String(),
  name: t.Union([t.String(), t.Null()]),
  role: RoleSchema,
  created_at: t.String(),
  last_login_at: t.Union([t.String(), t.Null()]),
});

const MEMBER_EXAMPLE = {
  id: "0198c3a1-8888-7999-8aaa-bbbbccccdddd",
  email: "bruno@acme.example",
  name: null,
  role: "member",
  created_at: "2025-08-01T12:00:00.000Z",
  last_login_at: null,
};

export const TeamMemberResponse = t.Object({ data: TeamMember }, { examples: [{ data: MEMBER_EXAMPLE }] });
export const TeamMemberList = t.Object(
  { data: t.Array(TeamMember) },
  {
    examples: [
      {
        data: [
          { ...MEMBER_EXAMPLE, id: "0198c3a1-2222-7333-8444-555566667777", email: "ana@acme.example", name: "Ana Souza", role: "owner", last_login_at: "2025-08-02T08:30:00.000Z" },
          MEMBER_EXAMPLE,
        ],
      },
    ],
  },
);
