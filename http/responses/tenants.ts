// API response shape of a tenant created by an operator (POST /api/internal/tenants, and the same
// data printed by scripts/create-tenant.ts --json).
import type { BootstrappedTenant } from "../../domain/tenants/bootstrap";
import type { OffboardingRow } from "../../store/offboardings";
import { iso } from "../../store/time";

/** The response's data; the raw key and the sign-in link are in this answer only. */
export function tenantCreated({ tenant, apiKey, owner }: BootstrappedTenant) {
  return {
    id: tenant.id,
    name: tenant.name,
    created_at: iso(tenant.created_at)!,
    api_key: {
      id: apiKey.row.id,
      key_type: apiKey.row.key_type,
      environment: apiKey.row.environment,
      prefix: apiKey.row.prefix,
      raw_key: apiKey.raw,
    },
    owner: owner
      ? {
          id: owner.user.id,
          email: owner.user.email,
          role: "owner" as const,
          sign_in_url: owner.signInUrl,
          sign_in_expires_at: owner.signInExpiresAt.toISOString(),
        }
      : null,
  };
}

/** A tenant offboarding's progress (DELETE /api/internal/tenants/:id, GET .../offboarding). */
export function offboardingShape(r: OffboardingRow, tablesTotal: number) {
  return {
    tenant_id: r.tenant_id,
    tenant_name: r.tenant_name,
    status: r.status,
    current_table: r.status === "completed" ? null : r.current_table,
    tables_done: r.tables_done,
    tables_total: Math.max(tablesTotal, r.tables_done.length),
    rows_deleted: r.rows_deleted,
    requested_at: iso(r.requested_at)!,
    updated_at: iso(r.updated_at)!,
    completed_at: iso(r.completed_at),
  };
}
