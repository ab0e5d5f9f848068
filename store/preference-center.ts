// The hosted preference center's branding per tenant and environment (migration 0782): the color
// its page uses beside the tenant's name.
import { sql, type Scope, type Tx } from "./db";

export const DEFAULT_BRAND_COLOR = "#2563eb";

export async function brandColorOf(scope: Scope, tx: Tx = sql): Promise<string> {
  const [row] = await tx<{ brand_color: string }[]>`select brand_color from preference_center_settings
    where tenant_id = ${scope.tenantId} and environment = ${scope.environment}`;
  return row?.brand_color ?? DEFAULT_BRAND_COLOR;
}

export async function setBrandColor(tx: Tx, scope: Scope, color: string): Promise<void> {
  await tx`insert into preference_center_settings (tenant_id, environment, brand_color)
    values (${scope.tenantId}, ${scope.environment}, ${color})
    on conflict (tenant_id, environment) do update set brand_color = excluded.brand_color, updated_at = now()`;
}
