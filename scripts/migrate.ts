// Command-line entry: creates the database if missing and applies pending migrations.
// Usage: bun scripts/migrate.ts   (reads DATABASE_URL)
import { ensureDatabase, migrate } from "../store/migrate";

const url = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/nms";
if (await ensureDatabase(url)) console.log(`created database ${new URL(url).pathname.slice(1)}`);
const applied = await migrate(url);
console.log(applied.length ? `applied ${applied.length} migration(s)` : "database is up to date");
process.exit(0);
