// Tenant offboarding repository (table tenant_offboardings): the progress row, the tables that hold
// a tenant's records (found in the catalogue, children before parents) and one bounded DELETE of them.
import { sql, type Tx } from "./db";
import { keyRange, v7Time } from "./history-keys";

export interface OffboardingRow {
  tenant_id: string;
  tenant_name: string;
  status: "running" | "completed";
  current_table: string | null;
  tables_done: string[];
  rows_deleted: number;
  requested_at: Date;
  updated_at: Date;
  completed_at: Date | null;
}

/** Never emptied by an offboarding: the audit log (kept, SPEC) and the offboarding's own record. */
const KEPT = new Set(["audit_logs", "tenant_offboardings", "tenants", "schema_migrations"]);
/** Emptied first, so the tenant's keys and sessions stop working before anything else goes. */
const FIRST = ["api_keys", "sessions", "allowed_origins"];
/** Rows that leave with their notification in the same statement (no index of theirs leads with tenant_id). */
const LEAVE_WITH_NOTIFICATIONS = ["notification_attempts", "notification_engagements"];

const row = (r: any): OffboardingRow => ({ ...r, rows_deleted: Number(r.rows_deleted) });

export async function findOffboarding(tenantId: string, tx: Tx = sql, lock = false): Promise<OffboardingRow | undefined> {
  const rows = await tx`select * from tenant_offboardings where tenant_id = ${tenantId} ${lock ? tx`for update skip locked` : tx``}`;
  return rows[0] ? row(rows[0]) : undefined;
}

/** Starts an offboarding; undefined when one exists already. */
export async function insertOffboarding(tx: Tx, tenantId: string, tenantName: string): Promise<OffboardingRow | undefined> {
  const rows = await tx`
    insert into tenant_offboardings (tenant_id, tenant_name, status) values (${tenantId}, ${tenantName}, 'running')
    on conflict (tenant_id) do nothing returning *`;
  return rows[0] ? row(rows[0]) : undefined;
}

export async function recordBatch(tx: Tx, tenantId: string, table: string, deleted: number, tableDone: boolean): Promise<void> {
  await tx`
    update tenant_offboardings set current_table = ${table}, rows_deleted = rows_deleted + ${deleted}, updated_at = now(),
      tables_done = case when ${tableDone} then array_append(tables_done, ${table}::text) else tables_done end
    where tenant_id = ${tenantId}`;
}

export async function markCompleted(tx: Tx, tenantId: string, deleted: number): Promise<void> {
  await tx`
    update tenant_offboardings set status = 'completed', current_table = null, rows_deleted = rows_deleted + ${deleted},
      updated_at = now(), completed_at = now()
    where tenant_id = ${tenantId}`;
}

/** Running offboardings whose progress has not moved since `before` (their process died). */
export async function staleOffboardings(before: Date, limit = 10): Promise<string[]> {
  const rows = await sql<{ tenant_id: string }[]>`
    select tenant_id from tenant_offboardings where status = 'running' and updated_at < ${before} order by updated_at limit ${limit}`;
  return rows.map((r) => r.tenant_id);
}

/**
 * The tables an offboarding empties, in order: every table with a tenant_id column (the audit log and
 * this table excepted; `all: false` also leaves out children that go by cascade, see below), each
 * before the tables it references (no foreign key ever blocks a delete), keys and sessions first.
 * Read from the catalogue, so a table added later is offboarded too.
 */
export async function tenantTables(tx: Tx = sql, opts: { all?: boolean } = {}): Promise<string[]> {
  const tables = (
    await tx<{ table_name: string }[]>`
      select c.table_name from information_schema.columns c
      join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name and t.table_type = 'BASE TABLE'
      join pg_class pc on pc.relname = c.table_name and pc.relnamespace = current_schema()::regnamespace
      where c.column_name = 'tenant_id' and c.table_schema = current_schema()
        and not pc.relispartition`
  )
    .map((r) => r.table_name)
    .filter((n) => !KEPT.has(n));
  const set = new Set(tables);
  const refs = await tx<{ child: string; parent: string; cascade: boolean }[]>`
    select cl.relname as child, pl.relname as parent, k.confdeltype = 'c' as cascade
    from pg_constraint k join pg_class cl on cl.oid = k.conrelid join pg_class pl on pl.oid = k.confrelid
    where k.contype = 'f' and cl.relnamespace = current_schema()::regnamespace`;
  if (!opts.all) {
    // A table without an index led by tenant_id whose rows hang off a parent of the set by ON DELETE
    // CASCADE (attempts and engagement records off notifications, preferences off subscribers) leaves
    // with its parent's batches, through its foreign key's index: batches of its own would scan it whole.
    const indexed = new Set(
      (
        await tx<{ rel: string }[]>`
          select c.relname as rel from pg_index i join pg_class c on c.oid = i.indrelid
          join pg_attribute a on a.attrelid = i.indrelid and a.attnum = i.indkey[0]
          where a.attname = 'tenant_id' and c.relnamespace = current_schema()::regnamespace`
      ).map((r) => r.rel),
    );
    // the history tables have no foreign keys between them (partitioned, migration 0860): attempts
    // and engagement records leave with their notifications' batches all the same (deleteTenantBatch)
    for (const child of LEAVE_WITH_NOTIFICATIONS) set.delete(child);
    for (const r of refs) {
      if (r.cascade && set.has(r.child) && set.has(r.parent) && r.child !== r.parent && !indexed.has(r.child) && !FIRST.includes(r.child)) {
        set.delete(r.child);
      }
    }
    tables.splice(0, tables.length, ...tables.filter((t) => set.has(t)));
  }
  // parent -> children that must be emptied before it
  const waitsFor = new Map<string, Set<string>>(tables.map((t) => [t, new Set<string>()]));
  for (const r of refs) if (set.has(r.child) && set.has(r.parent) && r.child !== r.parent) waitsFor.get(r.parent)!.add(r.child);
  const rank = (t: string) => (FIRST.includes(t) ? FIRST.indexOf(t) : FIRST.length);
  const order: string[] = [];
  const left = new Set(tables);
  while (left.size) {
    const ready = [...left].filter((t) => [...waitsFor.get(t)!].every((c) => !left.has(c)));
    // a cycle of foreign keys (none today): take the rest in name order, the cascades settle it
    const pick = (ready.length ? ready : [...left]).sort((a, b) => rank(a) - rank(b) || a.localeCompare(b))[0]!;
    order.push(pick);
    left.delete(pick);
  }
  return order;
}

/**
 * Deletes up to `limit` of the tenant's rows from `table` (its foreign keys cascade to children), a
 * partitioned table one partition at a time (a ctid names a row within one partition only).
 * A batch of notifications takes their attempts and engagement records along.
 */
export async function deleteTenantBatch(tx: Tx, table: string, tenantId: string, limit: number): Promise<number> {
  const leaves = await tx<{ name: string; bound: string | null }[]>`
    select c.relname as name, pg_get_expr(c.relpartbound, c.oid) as bound from pg_partition_tree(${table}::regclass) t join pg_class c on c.oid = t.relid
    where t.isleaf order by c.relname`;
  let total = 0;
  // pg_partition_tree() has no rows for a plain table
  for (const { name, bound } of leaves.length ? leaves : [{ name: table, bound: null }]) {
    const left = limit - total;
    if (left <= 0) break;
    const rows =
      table === "notifications"
        ? await tx`
            with del as (
              delete from ${tx(name)} where ctid = any (array(select ctid from ${tx(name)} where tenant_id = ${tenantId} limit ${left}))
              returning id
            ), attempts as (
              delete from notification_attempts where notification_id in (select id from del) ${leafKeys("notification_id", bound)}
              and notification_id >= (select id from del order by id limit 1) and notification_id <= (select id from del order by id desc limit 1)
            ), engagements as (
              delete from notification_engagements where notification_id in (select id from del) ${leafKeys("notification_id", bound)}
              and notification_id >= (select id from del order by id limit 1) and notification_id <= (select id from del order by id desc limit 1)
            )
            select 1 from del`
        : await tx`
            delete from ${tx(name)} where ctid = any (array(select ctid from ${tx(name)} where tenant_id = ${tenantId} limit ${left}))
            returning 1`;
    total += rows.length;
  }
  return total;
}

const DAY_FLOOR = "'([0-9a-f]{8}-[0-9a-f]{4}-0000-0000-000000000000)'";
const LEAF_BOUND_RE = new RegExp(`^FOR VALUES FROM \\((MINVALUE|${DAY_FLOOR})\\) TO \\((MAXVALUE|${DAY_FLOOR})\\)$`);

/**
 * A notifications partition's bounds (pg_get_expr of relpartbound) as literal bounds on the children's
 * key, so their deletes plan only the partitions of that day (the children share the days:
 * store/partitions.ts); nothing for the default partition or bounds that are not day floors (the
 * run-time bounds of the batch's ids still prune at execution).
 */
function leafKeys(column: string, bound: string | null) {
  const m = bound ? LEAF_BOUND_RE.exec(bound) : null;
  if (!m) return sql``;
  return keyRange(column, m[2] ? v7Time(m[2]) : null, m[4] ? v7Time(m[4]) : null);
}

/** Deletes the tenant row itself (the last step); true when it was there. */
export async function deleteTenantRow(tx: Tx, tenantId: string): Promise<boolean> {
  return (await tx`delete from tenants where id = ${tenantId} returning 1`).length > 0;
}
