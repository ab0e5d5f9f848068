// Read side of the audit log (GET /api/internal/audit-logs): filtered listing and fetch by id,
// with inserted_at formatted by PostgreSQL so its microseconds survive (JS Dates keep only ms).
import { sql } from "./db";

export interface AuditFilter {
  tenantId: string;
  action?: string;
  resourceType?: string;
  resourceId?: string;
  actorType?: string;
  actorId?: string;
  startDate?: string;
  endDate?: string;
  limit: number;
}

export interface AuditLogEntry {
  id: string;
  tenant_id: string;
  actor_id: string | null;
  actor_type: string;
  action: string;
  resource_type: string;
  resource_id: string | null;
  metadata: Record<string, unknown>;
  ip_address: string | null;
  user_agent: string | null;
  inserted_at: string;
  /** who the actor is in words: a user's email, a key's prefix and label; null for system */
  actor_name: string | null;
  /** what the resource is in words where the log can tell: a key's prefix, a member's email, a domain, a webhook's URL */
  resource_name: string | null;
}

// Names are looked up when read (people and keys keep their ids in the log, which is immutable);
// a member removed since is named by the email the entry's metadata kept.
const keyName = (id: ReturnType<typeof sql>) =>
  sql`(select k.prefix || coalesce(' (' || coalesce(k.label, k.name) || ')', '') from api_keys k where k.tenant_id = audit_logs.tenant_id and k.id::text = ${id})`;
const userEmail = (id: ReturnType<typeof sql>) => sql`(select u.email from users u where u.tenant_id = audit_logs.tenant_id and u.id::text = ${id})`;
const columns = sql`
  id::text, tenant_id::text, actor_id, actor_type, action, resource_type, resource_id, metadata, ip_address, user_agent,
  to_char(inserted_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as inserted_at,
  case actor_type when 'user' then ${userEmail(sql`actor_id`)} when 'api_key' then ${keyName(sql`actor_id`)} end as actor_name,
  case resource_type
    when 'api_key' then ${keyName(sql`resource_id`)}
    when 'team_member' then coalesce(${userEmail(sql`resource_id`)}, metadata ->> 'email')
    when 'domain' then metadata ->> 'domain'
    when 'webhook' then metadata ->> 'url'
  end as resource_name`;

export async function listAuditLogs(f: AuditFilter): Promise<AuditLogEntry[]> {
  const conds = [sql`tenant_id = ${f.tenantId}`];
  if (f.action !== undefined) conds.push(sql`action = ${f.action}`);
  if (f.resourceType !== undefined) conds.push(sql`resource_type = ${f.resourceType}`);
  if (f.resourceId !== undefined) conds.push(sql`resource_id = ${f.resourceId}`);
  if (f.actorType !== undefined) conds.push(sql`actor_type = ${f.actorType}`);
  if (f.actorId !== undefined) conds.push(sql`actor_id = ${f.actorId}`);
  // ::text first: a parameter typed timestamptz goes through postgres.js's Date serializer, which
  // drops the microseconds, so an end_date copied from an entry's inserted_at left that entry out
  if (f.startDate !== undefined) conds.push(sql`inserted_at >= ${f.startDate}::text::timestamptz`);
  if (f.endDate !== undefined) conds.push(sql`inserted_at <= ${f.endDate}::text::timestamptz`);
  const where = conds.reduce((acc, c) => sql`${acc} and ${c}`);
  return sql<AuditLogEntry[]>`
    select ${columns} from audit_logs where ${where}
    order by audit_logs.inserted_at desc, audit_logs.id desc limit ${f.limit}`;
}

export async function findAuditLog(id: string): Promise<AuditLogEntry | undefined> {
  const [row] = await sql<AuditLogEntry[]>`select ${columns} from audit_logs where id = ${id}`;
  return row;
}
