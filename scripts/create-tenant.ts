// Command-line tenant bootstrap, the same as POST /api/internal/tenants:
//   bun scripts/create-tenant.ts "Acme"   -> prints the tenant and its production secret key once
import { createTenant } from "../store/tenants";

const name = process.argv[2];
if (!name) {
  console.error('usage: bun scripts/create-tenant.ts "<tenant name>"');
  process.exit(2);
}
const { tenant, apiKey } = await createTenant(name);
console.log(JSON.stringify({ id: tenant.id, name: tenant.name, api_key: { id: apiKey.row.id, prefix: apiKey.row.prefix, raw_key: apiKey.raw } }, null, 2));
process.exit(0);
