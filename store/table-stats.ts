// Planner statistics when PostgreSQL's autovacuum is off: which of our tables changed enough since
// their last ANALYZE (autovacuum's own rule) and analyzing them, so plans keep using the right indexes.
import { sql } from "./db";

export interface StaleTable {
  table: string;
  changed: number;
  rows: number;
}

/** Whether the server's autovacuum (and so its automatic ANALYZE) is on. */
export async function autovacuumOn(): Promise<boolean> {
  const [row] = await sql<{ on: string }[]>`select current_setting('autovacuum') as on`;
  return row?.on === "on";
}

/**
 * Tables of the current schema (partitions included, partitioned parents aside: they hold no rows)
 * changed since their last ANALYZE by more than autovacuum's threshold: 50 rows plus `scale` of the
 * table (autovacuum_analyze_scale_factor's default, 0.1), most changed first.
 */
export async function staleTables(opts: { scale?: number; limit?: number } = {}): Promise<StaleTable[]> {
  const scale = opts.scale ?? 0.1;
  return sql<StaleTable[]>`
    select quote_ident(s.schemaname) || '.' || quote_ident(s.relname) as table,
           s.n_mod_since_analyze::float8 as changed, greatest(c.reltuples, 0)::float8 as rows
    from pg_stat_user_tables s join pg_class c on c.oid = s.relid
    where s.schemaname = current_schema() and c.relkind = 'r'
      and s.n_mod_since_analyze > 50 + ${scale} * greatest(c.reltuples, 0)
    order by s.n_mod_since_analyze desc
    limit ${opts.limit ?? 20}`;
}

/** ANALYZE of one table (its name as staleTables gives it, already quoted). */
export async function analyzeTable(table: string): Promise<void> {
  await sql.unsafe(`analyze ${table}`);
}
