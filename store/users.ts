// Dashboard users: one row per email address, belonging to one tenant with a role
// (owner, admin, member). Sign-up creates the tenant and its owner in one transaction.
import { sql, type Tx } from "./db";
import { newId } from "./ids";
import { createTenant } from "./tenants";

export type Role = "owner" | "admin" | "member";

export interface UserRow {
  id: string;
  tenant_id: string;
  email: string;
  name: string | null;
  role: Role;
  created_at: Date;
  updated_at: Date;
  last_login_at: Date | null;
}

export async function findUserByEmail(email: string, tx: Tx = sql): Promise<UserRow | undefined> {
  const [row] = await tx<UserRow[]>`select * from users where lower(email) = lower(${email})`;
  return row;
}

export async function findUser(tenantId: string, id: string, tx: Tx = sql): Promise<UserRow | undefined> {
  const [row] = await tx<UserRow[]>`select * from users where tenant_id = ${tenantId} and id = ${id}`;
  return row;
}

/** Locks the row so concurrent role changes and removals see each other (last-owner rule). */
export async function findUserForUpdate(tx: Tx, tenantId: string, id: string): Promise<UserRow | undefined> {
  const [row] = await tx<UserRow[]>`select * from users where tenant_id = ${tenantId} and id = ${id} for update`;
  return row;
}

export async function listUsers(tenantId: string): Promise<UserRow[]> {
  return sql<UserRow[]>`select * from users where tenant_id = ${tenantId} order by created_at, id`;
}

export async function insertUser(
  tx: Tx,
  u: { tenantId: string; email: string; name?: string | null; role: Role },
): Promise<UserRow> {
  const [row] = await tx<UserRow[]>`
    insert into users (id, tenant_id, email, name, role)
    values (${newId()}, ${u.tenantId}, ${u.email.toLowerCase()}, ${u.name ?? null}, ${u.role})
    returning *`;
  return row!;
}

/** Tenant name for a sign-up: the email's domain, or its local part for common mailbox providers. */
export function tenantNameFor(email: string): string {
  const [local, domain] = [email.slice(0, email.lastIndexOf("@")), email.slice(email.lastIndexOf("@") + 1).toLowerCase()];
  const personal = /^(gmail|googlemail|outlook|hotmail|live|yahoo|icloud|me|proton|protonmail|aol|gmx|yandex|mail)\./;
  return personal.test(domain) ? local : domain;
}

/**
 * The user for this address, creating a tenant with the user as owner when the address is new.
 * Concurrent sign-ups of one address end with one user (the unique index decides).
 */
export async function findOrSignUp(
  tx: Tx,
  email: string,
  name: string | null = null,
): Promise<{ user: UserRow; created: boolean }> {
  const existing = await findUserByEmail(email, tx);
  if (existing) return { user: existing, created: false };
  await tx`select pg_advisory_xact_lock(hashtext(${"signup:" + email.toLowerCase()}))`;
  const again = await findUserByEmail(email, tx);
  if (again) return { user: again, created: false };
  const { tenant } = await createTenant(tenantNameFor(email), tx);
  const user = await insertUser(tx, { tenantId: tenant.id, email, name, role: "owner" });
  return { user, created: true };
}

export async function touchLogin(tx: Tx, userId: string, name?: string | null): Promise<void> {
  await tx`update users set last_login_at = now(), name = coalesce(name, ${name ?? null}) where id = ${userId}`;
}

export async function setRole(tx: Tx, tenantId: string, id: string, role: Role): Promise<UserRow> {
  const [row] = await tx<UserRow[]>`
    update users set role = ${role}, updated_at = now() where tenant_id = ${tenantId} and id = ${id} returning *`;
  return row!;
}

export async function deleteUser(tx: Tx, tenantId: string, id: string): Promise<void> {
  await tx`delete from users where tenant_id = ${tenantId} and id = ${id}`;
}

/** Owners left in the tenant, counted under lock so two removals cannot both pass the check. */
export async function countOwnersForUpdate(tx: Tx, tenantId: string): Promise<number> {
  const rows = await tx`select id from users where tenant_id = ${tenantId} and role = 'owner' order by id for update`;
  return rows.length;
}
