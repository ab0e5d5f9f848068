// An operator creates a tenant (admin route, npm run create-tenant): the tenant, its first
// production secret key and, given an owner email, its owner with a one-time sign-in link.
import { writeAudit } from "../../store/audit";
import { sql } from "../../store/db";
import { MAGIC_LINK_TTL_MS, createMagicLink } from "../../store/sessions";
import { createTenant, type TenantRow } from "../../store/tenants";
import { findUserByEmail, insertUser, type UserRow } from "../../store/users";
import type { ApiKeyRow } from "../../store/api-keys";
import { conflict } from "../../basics/errors";
import { sendLoginLink, signInLinkUrl } from "../system-mail/sign-in-link";
import { acceptableEmail } from "./dashboard-email";

export interface BootstrappedTenant {
  tenant: TenantRow;
  apiKey: { row: ApiKeyRow; raw: string };
  owner: { user: UserRow; signInUrl: string; signInExpiresAt: Date } | null;
}

const emailTaken = () =>
  conflict("email_taken", "This email already belongs to a dashboard user of another tenant: choose another owner_email, or invite it from that tenant's team page");

/**
 * All or nothing: an owner address that already belongs to a dashboard user (one user per address)
 * is 409 email_taken and creates no tenant. The link is also mailed when `mail` (the admin route;
 * without SMTP_URL the mailer logs it).
 */
export async function bootstrapTenant(input: { name: string; ownerEmail?: string | null; mail?: boolean }): Promise<BootstrappedTenant> {
  const ownerEmail = input.ownerEmail == null ? null : await acceptableEmail(input.ownerEmail, "owner_email");
  const result = await sql.begin(async (tx) => {
    const { tenant, apiKey } = await createTenant(input.name.trim(), tx);
    if (!ownerEmail) return { tenant, apiKey, owner: null, token: null };
    if (await findUserByEmail(ownerEmail, tx)) throw emailTaken();
    let user: UserRow;
    try {
      user = await insertUser(tx, { tenantId: tenant.id, email: ownerEmail, role: "owner" });
    } catch (err: any) {
      if (err?.code === "23505") throw emailTaken(); // a concurrent sign-up of the same address won
      throw err;
    }
    const token = await createMagicLink(tx, { email: ownerEmail, userId: user.id, purpose: "invite" });
    await writeAudit(tx, {
      tenantId: tenant.id,
      actorType: "system",
      actorId: null,
      action: "team_member.invited",
      resourceType: "team_member",
      resourceId: user.id,
      metadata: { email: ownerEmail, role: "owner" },
    });
    return { tenant, apiKey, owner: user, token };
  });
  if (!result.owner || !result.token) return { tenant: result.tenant, apiKey: result.apiKey, owner: null };
  if (input.mail) await sendLoginLink(result.owner.email, result.token, "An operator", result.tenant.name);
  return {
    tenant: result.tenant,
    apiKey: result.apiKey,
    owner: { user: result.owner, signInUrl: signInLinkUrl(result.token), signInExpiresAt: new Date(Date.now() + MAGIC_LINK_TTL_MS) },
  };
}
