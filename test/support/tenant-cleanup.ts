// Deletes test tenants completely: every row carrying their tenant_id (audit log included, as a
// full account deletion may) and the tenant rows, whose foreign keys cascade to the rest.
import { sql, type Tx } from "../../store/db";

export async function deleteTenants(ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await sql.begin(async (t) => {
    const tx: Tx = t;
    // the one switch the audit_logs immutability trigger honours (store/migrations/0001_foundation.sql)
    await tx`set local nms.account_deletion = 'on'`;
    const tables = await tx<{ table_name: string }[]>`
      select table_name from information_schema.columns
      where column_name = 'tenant_id' and table_schema = current_schema() and table_name <> 'tenants'`;
    await tx`delete from tenants where id in ${tx(ids)}`;
    for (const { table_name } of tables) await tx`delete from ${tx(table_name)} where tenant_id in ${tx(ids)}`;
  });
}
