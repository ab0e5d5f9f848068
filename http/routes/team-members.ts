// Team members of the signed-in user's tenant (dashboard sessions only): list, invite, change
// role, remove. Owners and admins manage, members read; only owners touch the owner role.
import { Elysia } from "elysia";
import { sql, type Tx } from "../../store/db";
import { writeAudit } from "../../store/audit";
import { isUuid } from "../../store/ids";
import { createMagicLink } from "../../store/sessions";
import { iso } from "../../store/time";
import {
  countOwnersForUpdate,
  deleteUser,
  findUserByEmail,
  findUserForUpdate,
  insertUser,
  listUsers,
  setRole,
  type Role,
  type UserRow,
} from "../../store/users";
import { conflict, forbidden, notFound } from "../../basics/errors";
import type { AuthContext } from "../plugins/auth";
import { acceptableEmail } from "../session";
import { accessPlugin, signedInUser, type Access } from "../plugins/access";
import { sendLoginLink } from "../../domain/system-mail/sign-in-link";
import { assertWithinPlan } from "../../domain/billing/limits";
import { InviteMemberBody, MemberParams, TeamMemberList, TeamMemberResponse, UpdateMemberBody } from "../../schemas/team";
import { BODY_ERRORS, errors, NoContent } from "../route-docs";

const TAG = { tags: ["team"] };
/** Owners and admins manage the team; members only read it. */
const MANAGERS: Access = { rule: "session-manager", refusal: "Only owners and admins manage team members" };

function member(u: UserRow) {
  return {
    id: u.id,
    email: u.email,
    name: u.name,
    role: u.role,
    created_at: iso(u.created_at)!,
    last_login_at: iso(u.last_login_at),
  };
}

function requireOwnerFor(actorRole: Role, touchesOwner: boolean): void {
  if (touchesOwner && actorRole !== "owner") {
    throw forbidden("insufficient_permissions", "Only an owner can grant, change or remove the owner role");
  }
}

function audit(tx: Tx, auth: AuthContext, action: string, target: UserRow, metadata: Record<string, unknown>) {
  return writeAudit(tx, {
    tenantId: auth.tenantId,
    actorType: "user",
    actorId: auth.actorId,
    action,
    resourceType: "team_member",
    resourceId: target.id,
    metadata,
    ip: auth.ip,
    userAgent: auth.userAgent,
  });
}

async function lockedMember(tx: Tx, tenantId: string, id: string): Promise<UserRow> {
  const target = isUuid(id) ? await findUserForUpdate(tx, tenantId, id) : undefined;
  if (!target) throw notFound("team_member_not_found", "Team member not found");
  return target;
}

export const teamMemberRoutes = new Elysia({ name: "routes.team-members" })
  .use(accessPlugin)
  .get(
    "/v1/team/members",
    async ({ auth }) => ({ data: (await listUsers(auth.tenantId)).map(member) }),
    { access: "session", response: { 200: TeamMemberList, ...errors(401, 403) }, detail: { ...TAG, summary: "List team members", description: "Every dashboard user of the tenant with their role (owner, admin, member)." } },
  )
  .post(
    "/v1/team/members",
    async ({ auth, body, set }) => {
      const user = signedInUser(auth);
      requireOwnerFor(user.role, body.role === "owner");
      const email = await acceptableEmail(body.email);
      const { invited, token } = await sql.begin(async (tx) => {
        // one dashboard identity per address (see docs/sessions.md)
        if (await findUserByEmail(email, tx)) throw conflict("email_taken", "This email already belongs to a dashboard user");
        let invited: UserRow;
        try {
          invited = await insertUser(tx, { tenantId: auth.tenantId, email, role: body.role });
        } catch (err: any) {
          if (err?.code === "23505") throw conflict("email_taken", "This email already belongs to a dashboard user");
          throw err;
        }
        await assertWithinPlan(tx, auth, "team_members");
        const token = await createMagicLink(tx, { email, userId: invited.id, purpose: "invite" });
        await audit(tx, auth, "team_member.invited", invited, { email, role: body.role });
        return { invited, token };
      });
      await sendLoginLink(email, token, user.email);
      set.status = 201;
      return { data: member(invited) };
    },
    {
      access: MANAGERS,
      body: InviteMemberBody,
      response: { 201: TeamMemberResponse, ...errors(401, 403, BODY_ERRORS, 409) },
      detail: { ...TAG, summary: "Invite a team member by email", description: "Creates the user with the given role and mails them a sign-in link. Only owners and admins may invite." },
    },
  )
  .put(
    "/v1/team/members/:id",
    async ({ auth, params, body }) => {
      const user = signedInUser(auth);
      const updated = await sql.begin(async (tx) => {
        // owners are locked first, in id order, so concurrent demotions cannot deadlock or both pass
        const owners = await countOwnersForUpdate(tx, auth.tenantId);
        const target = await lockedMember(tx, auth.tenantId, params.id);
        requireOwnerFor(user.role, target.role === "owner" || body.role === "owner");
        if (target.role === body.role) return target;
        if (target.role === "owner" && owners <= 1) {
          throw conflict("last_owner", "The tenant's last owner cannot be demoted");
        }
        const row = await setRole(tx, auth.tenantId, target.id, body.role);
        await audit(tx, auth, "team_member.role_changed", row, { old_role: target.role, new_role: body.role });
        return row;
      });
      return { data: member(updated) };
    },
    {
      access: MANAGERS,
      params: MemberParams,
      body: UpdateMemberBody,
      response: { 200: TeamMemberResponse, ...errors(401, 403, BODY_ERRORS, 404, 409) },
      detail: { ...TAG, summary: "Change a team member's role", description: "Only owners and admins may change roles; the last owner cannot be demoted (409 last_owner)." },
    },
  )
  .delete(
    "/v1/team/members/:id",
    async ({ auth, params, set }) => {
      const user = signedInUser(auth);
      await sql.begin(async (tx) => {
        const owners = await countOwnersForUpdate(tx, auth.tenantId);
        const target = await lockedMember(tx, auth.tenantId, params.id);
        requireOwnerFor(user.role, target.role === "owner");
        if (target.role === "owner" && owners <= 1) {
          throw conflict("last_owner", "The tenant's last owner cannot be removed");
        }
        await deleteUser(tx, auth.tenantId, target.id);
        await audit(tx, auth, "team_member.removed", target, { email: target.email, role: target.role });
      });
      set.status = 204;
    },
    {
      access: MANAGERS,
      params: MemberParams,
      response: { 204: NoContent, ...errors(401, 403, 404, 409) },
      detail: { ...TAG, summary: "Remove a team member (their sessions end)", description: "The user's sessions end at once. The last owner cannot be removed (409 last_owner)." },
    },
  );
