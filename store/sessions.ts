// Dashboard sessions and magic-link tokens: both are random secrets handed to the browser and
// stored here only as SHA-256 hashes, so a database leak yields no usable session or link.
import { createHash, randomBytes } from "node:crypto";
import { sql, type Tx } from "./db";
import { newId } from "./ids";

export const SESSION_TTL_MS = 30 * 24 * 3600 * 1000;
export const MAGIC_LINK_TTL_MS = 15 * 60 * 1000;

export function newToken(): string {
  return randomBytes(32).toString("base64url");
}

export function hashToken(raw: string): string {
  return createHash("sha256").update(raw).digest("hex");
}

export interface ActiveSession {
  id: string;
  user_id: string;
  tenant_id: string;
  expires_at: Date;
  email: string;
  name: string | null;
  role: "owner" | "admin" | "member";
}

export async function createSession(
  tx: Tx,
  s: { userId: string; tenantId: string; ip: string | null; userAgent: string | null },
): Promise<{ id: string; token: string; expiresAt: Date }> {
  const token = newToken();
  const id = newId();
  const expiresAt = new Date(Date.now() + SESSION_TTL_MS);
  await tx`
    insert into sessions (id, token_hash, user_id, tenant_id, expires_at, ip_address, user_agent)
    values (${id}, ${hashToken(token)}, ${s.userId}, ${s.tenantId}, ${expiresAt}, ${s.ip}, ${s.userAgent})`;
  return { id, token, expiresAt };
}

/** The unexpired session for a raw cookie value, with its user; undefined otherwise. */
export async function findActiveSession(rawToken: string): Promise<ActiveSession | undefined> {
  const [row] = await sql<ActiveSession[]>`
    select s.id, s.user_id, s.tenant_id, s.expires_at, u.email, u.name, u.role
    from sessions s join users u on u.id = s.user_id and u.tenant_id = s.tenant_id
    where s.token_hash = ${hashToken(rawToken)} and s.expires_at > now()`;
  return row;
}

export async function deleteSession(rawToken: string): Promise<boolean> {
  const rows = await sql`delete from sessions where token_hash = ${hashToken(rawToken)} returning id`;
  return rows.length > 0;
}

export interface MagicLinkRow {
  id: string;
  email: string;
  user_id: string | null;
  purpose: "login" | "signup" | "invite";
  created_at: Date;
  expires_at: Date;
  used_at: Date | null;
  expired: boolean;
}

export async function createMagicLink(
  tx: Tx,
  m: { email: string; userId: string | null; purpose: MagicLinkRow["purpose"] },
): Promise<string> {
  const token = newToken();
  await tx`
    insert into magic_link_tokens (id, token_hash, email, user_id, purpose, created_at, expires_at)
    values (${newId()}, ${hashToken(token)}, ${m.email}, ${m.userId}, ${m.purpose},
            now(), now() + ${MAGIC_LINK_TTL_MS} * interval '1 millisecond')`;
  return token;
}

/**
 * Marks the token used and returns it, in the caller's transaction. The row lock makes two
 * concurrent verifications of one link end with exactly one session.
 */
export async function consumeMagicLink(
  tx: Tx,
  rawToken: string,
): Promise<{ status: "ok"; link: MagicLinkRow } | { status: "unknown" | "used" | "expired" }> {
  const [link] = await tx<MagicLinkRow[]>`
    select id, email, user_id, purpose, created_at, expires_at, used_at, expires_at <= now() as expired
    from magic_link_tokens where token_hash = ${hashToken(rawToken)} for update`;
  if (!link) return { status: "unknown" };
  if (link.used_at) return { status: "used" };
  if (link.expired) return { status: "expired" };
  await tx`update magic_link_tokens set used_at = now() where id = ${link.id}`;
  return { status: "ok", link };
}
