// Writes audit log entries inside the caller's transaction, so an entry exists exactly
// when the change it records committed. Rows are immutable (enforced by a trigger).
import type { Tx } from "./db";
import { newId } from "./ids";

export type ActorType = "user" | "api_key" | "system";

export interface AuditEntry {
  tenantId: string;
  actorType: ActorType;
  actorId: string | null;
  action: string;
  resourceType: string;
  resourceId: string | null;
  metadata?: Record<string, unknown>;
  ip?: string | null;
  userAgent?: string | null;
}

export async function writeAudit(tx: Tx, e: AuditEntry): Promise<string> {
  const id = newId();
  const system = e.actorType === "system";
  await tx`
    insert into audit_logs (id, tenant_id, actor_id, actor_type, action, resource_type, resource_id, metadata, ip_address, user_agent)
    values (${id}, ${e.tenantId}, ${system ? null : e.actorId}, ${e.actorType}, ${e.action}, ${e.resourceType},
            ${e.resourceId}, ${tx.json((e.metadata ?? {}) as any)}, ${system ? null : (e.ip ?? null)}, ${system ? null : (e.userAgent ?? null)})`;
  return id;
}
