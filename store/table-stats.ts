// Table upkeep when PostgreSQL's autovacuum is off: which of our tables changed enough since their last
// ANALYZE or VACUUM (autovacuum's own rules), and analyzing or vacuuming them as autovacuum would.
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

export interface VacuumTable {
  table: string;
  dead: number;
  inserted: number;
  rows: number;
}

/**
 * Tables (partitions included) past autovacuum's vacuum rules: dead rows over 50 plus `scale` of the table
 * (autovacuum_vacuum_scale_factor, 0.2), or rows inserted since the last vacuum over 1,000 plus `scale`
 * (autovacuum_vacuum_insert_*: it marks pages all-visible, so index-only scans skip the heap), most dead first.
 * Unvacuumed, an index keeps an entry for every row version ever written: the reconciler's scan of the
 * pending index read every notification delivered since (200,000 dead entries: 5,400 buffers a scan).
 */
export async function tablesToVacuum(opts: { scale?: number; limit?: number } = {}): Promise<VacuumTable[]> {
  const scale = opts.scale ?? 0.2;
  return sql<VacuumTable[]>`
    select quote_ident(s.schemaname) || '.' || quote_ident(s.relname) as table,
           s.n_dead_tup::float8 as dead, s.n_ins_since_vacuum::float8 as inserted, greatest(c.reltuples, 0)::float8 as rows
    from pg_stat_user_tables s join pg_class c on c.oid = s.relid
    where s.schemaname = current_schema() and c.relkind = 'r'
      and (s.n_dead_tup > 50 + ${scale} * greatest(c.reltuples, 0)
           or s.n_ins_since_vacuum > 1000 + ${scale} * greatest(c.reltuples, 0))
    order by s.n_dead_tup desc, s.n_ins_since_vacuum desc
    limit ${opts.limit ?? 20}`;
}

/**
 * VACUUM (ANALYZE) of one table on a connection of its own, paced as autovacuum paces itself
 * (vacuum_cost_delay 2 ms), giving up after `lockTimeoutMs` when another vacuum or DDL holds the table.
 */
export async function vacuumTable(table: string, opts: { costDelayMs?: number; lockTimeoutMs?: number } = {}): Promise<void> {
  const c = await sql.reserve();
  try {
    await c`select set_config('vacuum_cost_delay', ${String(opts.costDelayMs ?? 2)}, false), set_config('lock_timeout', ${String(opts.lockTimeoutMs ?? 1000)}, false)`;
    await c.unsafe(`vacuum (analyze) ${table}`);
  } finally {
    await c`reset vacuum_cost_delay`.catch(() => {});
    await c`reset lock_timeout`.catch(() => {});
    c.release();
  }
}
