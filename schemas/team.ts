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
