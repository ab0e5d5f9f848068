// A partition maintenance pass in a process of its own (its DATABASE_URL may name another database
// than the test run's): argv[2] = JSON options of maintainPartitions; prints the result as JSON.
import { maintainPartitions } from "../../domain/lifecycle/partitions";
import { sql } from "../../store/db";

const o = JSON.parse(process.argv[2] ?? "{}");
const r = await maintainPartitions({ ...o, now: o.now ? new Date(o.now) : undefined });
console.log(`result ${JSON.stringify(r)}`);
await sql.end();
process.exit(0);
