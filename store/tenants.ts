// Tenant repository: creating a tenant together with its first production secret key.
import { randomBytes } from "node:crypto";
import { sql, type Tx } from "./db";
import { newId } from "./ids";
import { insertApiKey, type ApiKeyRow } from "./api-keys";

export interface TenantRow {
  id: string;
  name: string;
  inbox_secret: string;
  developer_mode: boolean;
  created_at: Date;
}

export async function createTenant(
  name: string,
  tx: Tx = sql,
): Promise<{ tenant: TenantRow; apiKey: { row: ApiKeyRow; raw: string } }> {
  const run = async (t: Tx) => {
    const [tenant] = await t<TenantRow[]>`
      insert into tenants (id, name, inbox_secret) values (${newId()}, ${name}, ${randomBytes(32).toString("hex")})
      returning *`;
    const apiKey = await insertApiKey(t, {
      tenantId: tenant!.id,
      environment: "production",
      keyType: "secret",
      name: "Default secret key",
      label: "default",
    });
    return { tenant: tenant!, apiKey };
  };
  return tx === sql ? sql.begin(run) : run(tx);
}

export async function findTenant(id: string, tx: Tx = sql): Promise<TenantRow | undefined> {
  const [row] = await tx<TenantRow[]>`select * from tenants where id = ${id}`;
  return row;
}
