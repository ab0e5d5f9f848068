// Preference category repository (migration 0781): CRUD by key (or id) within a tenant's environment, and
// the list the preference center and the send-time rule read.
import { sql, type Scope, type Tx } from "./db";
import { newId } from "./ids";

export interface PreferenceCategoryFields {
  key: string;
  name: string;
  description: string | null;
  default_enabled_channels: string[];
  required: boolean;
}

export interface PreferenceCategoryRow extends PreferenceCategoryFields {
  id: string;
  tenant_id: string;
  environment: string;
  created_at: Date;
  updated_at: Date;
}

/** Raised when the scope already has a category with this key. */
export class CategoryKeyTakenError extends Error {}

export async function insertCategory(tx: Tx, scope: Scope, f: PreferenceCategoryFields): Promise<PreferenceCategoryRow> {
  try {
    const [row] = await tx`
      insert into preference_categories (id, tenant_id, environment, key, name, description, default_enabled_channels, required)
      values (${newId()}, ${scope.tenantId}, ${scope.environment}, ${f.key}, ${f.name}, ${f.description},
              ${f.default_enabled_channels}, ${f.required})
      returning *`;
    return row as unknown as PreferenceCategoryRow;
  } catch (err) {
    if ((err as { code?: string }).code === "23505") throw new CategoryKeyTakenError(f.key);
    throw err;
  }
}

/** The category a route's path names: its key, or its id (the key wins if both could match). */
export async function findCategory(tx: Tx, scope: Scope, keyOrId: string, forUpdate = false): Promise<PreferenceCategoryRow | null> {
  const rows = await tx`select * from preference_categories
    where tenant_id = ${scope.tenantId} and environment = ${scope.environment} and (key = ${keyOrId} or id::text = ${keyOrId})
    order by (key = ${keyOrId}) desc limit 1
    ${forUpdate ? tx`for update` : tx``}`;
  return (rows[0] as unknown as PreferenceCategoryRow) ?? null;
}

/** Every category of the scope, by key (a tenant has a handful). */
export async function listCategories(scope: Scope, tx: Tx = sql): Promise<PreferenceCategoryRow[]> {
  const rows = await tx`select * from preference_categories
    where tenant_id = ${scope.tenantId} and environment = ${scope.environment} order by key limit 1000`;
  return rows as unknown as PreferenceCategoryRow[];
}

export async function updateCategory(tx: Tx, scope: Scope, key: string, f: PreferenceCategoryFields): Promise<PreferenceCategoryRow> {
  const [row] = await tx`
    update preference_categories set name = ${f.name}, description = ${f.description},
      default_enabled_channels = ${f.default_enabled_channels}, required = ${f.required}, updated_at = now()
    where tenant_id = ${scope.tenantId} and environment = ${scope.environment} and key = ${key}
    returning *`;
  return row as unknown as PreferenceCategoryRow;
}

export async function deleteCategory(tx: Tx, scope: Scope, key: string): Promise<PreferenceCategoryRow | null> {
  const rows = await tx`delete from preference_categories
    where tenant_id = ${scope.tenantId} and environment = ${scope.environment} and key = ${key} returning *`;
  return (rows[0] as unknown as PreferenceCategoryRow) ?? null;
}
