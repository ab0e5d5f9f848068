// TypeBox schemas of the team member routes (/v1/team/members).
import { t } from "elysia";

export const RoleSchema = t.Union([t.Literal("owner"), t.Literal("admin"), t.Literal("member")], {
  description: "owner, admin or member",
});

export const InviteMemberBody = t.Object({
  email: t.String({ maxLength: 320 }),
  role: RoleSchema,
});

export const UpdateMemberBody = t.Object({ role: RoleSchema });

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
