// Command-line tenant bootstrap, the same as POST /api/internal/tenants:
//   npm run create-tenant -- Acme --owner ana@example.com [--json]
// prints the tenant, its production secret key (once) and the owner's one-time dashboard sign-in link.
import { parseArgs } from "node:util";
import { bootstrapTenant } from "../domain/tenants/bootstrap";
import { tenantCreated } from "../http/responses/tenants";
import { AppError } from "../basics/errors";
import { sql } from "../store/db";

const USAGE = 'usage: npm run create-tenant -- "<tenant name>" [--owner <email>] [--json]';

let args: ReturnType<typeof parse>;
function parse() {
  return parseArgs({ allowPositionals: true, options: { owner: { type: "string" }, json: { type: "boolean" }, help: { type: "boolean", short: "h" } } });
}
try {
  args = parse();
} catch (err) {
  console.error(`${(err as Error).message}\n${USAGE}`);
  process.exit(2);
}
const name = args.positionals.join(" ").trim();
if (args.values.help || !name) {
  console.error(USAGE);
  process.exit(args.values.help ? 0 : 2);
}

try {
  const data = tenantCreated(await bootstrapTenant({ name, ownerEmail: args.values.owner ?? null }));
  if (args.values.json) {
    console.log(JSON.stringify(data, null, 2));
  } else {
    console.log(`tenant:   ${data.name} (${data.id})`);
    console.log(`api key:  ${data.api_key.raw_key}   (production secret key; shown only now)`);
    if (data.owner) {
      console.log(`owner:    ${data.owner.email}`);
      console.log(`sign in:  ${data.owner.sign_in_url}`);
      console.log(`          opens the dashboard as ${data.owner.email}, in ${data.name}; works once, until ${data.owner.sign_in_expires_at}.`);
      console.log(`          Later, sign in with ${data.owner.email} on the dashboard's sign-in page.`);
    }
  }
  await sql.end({ timeout: 5 });
  process.exit(0);
} catch (err) {
  if (!(err instanceof AppError)) throw err;
  const fields = Object.entries(err.details ?? {}).map(([k, v]) => `\n  ${k}: ${v.join("; ")}`).join("");
  console.error(`create-tenant: ${err.code}: ${err.message}${fields}`);
  process.exit(1);
}
