// The PostgreSQL connection pools (postgres.js: the one every repository module shares, and a small one on
// generic plans for the feed's reads) and the pipelined transaction of batched writers. PostgreSQL is the source of truth.
import { AsyncLocalStorage } from "node:async_hooks";
import postgres from "postgres";
import { config } from "../config";

/** Names this process's pool in pg_stat_activity, so the metrics can count its connections by state (store/metrics.ts). */
export const poolApplicationName = `nms-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;

/**
 * The options every pool of the service shares (this file's two, the replica's two in store/replica.ts):
 * `application_name` names the pool in pg_stat_activity, `extra` adds session settings.
 */
export function poolOptions(max: number, applicationName: string, extra: Record<string, string> = {}) {
  return {
    max,
    // jit off: a batched statement whose estimate passes jit_above_cost (the sender's suppression
    // check over 300 notifications) spent ~480 of its 600 ms compiling, and with partitioned history a
    // short statement's estimated cost (summed over every partition) passes it too (a webhook context
    // read compiled for 15 s on a loaded machine); no statement of this service is long enough to gain
    connection: { application_name: applicationName, jit: "off", ...extra },
    onnotice: () => {},
    // timestamps come back as Date; we format them in the serializers
    transform: { undefined: null },
  };
}

/** The size of a generic-plan pool beside a pool of DATABASE_POOL_SIZE connections. */
export const genericPoolSize = Math.max(2, Math.ceil(config.databasePoolSize / 4));
/** The session setting of the generic-plan pools. */
export const forceGenericPlans = { plan_cache_mode: "force_generic_plan" };

export const sql = postgres(config.databaseUrl, poolOptions(config.databasePoolSize, poolApplicationName));

/**
 * A second, smaller pool whose connections plan each prepared statement once and reuse that plan
 * (`plan_cache_mode = force_generic_plan`), for the activity feed's reads. Their day bounds are literals
 * (store/history-keys.ts keyRange), so a generic plan holds the same 3 partitions as a custom one; but
 * PostgreSQL's own choice flips with the statistics: on a 50-million-row history it planned every call
 * afresh (0.6-1 ms for those 3 partitions, against 0.2-0.3 ms to execute; docs/operations.md, "Generic
 * plans for the feed"). Connects on first use.
 */
export const genericPlans = postgres(config.databaseUrl, poolOptions(genericPoolSize, `${poolApplicationName}-generic`, forceGenericPlans));

/** The statement text ($n placeholders) and parameters of the last query built by `statementCapture` (one explain at a time). */
let captured: { string: string; parameters: unknown[] } | null = null;
let statementCapture: Sql | null = null;

/**
 * The generic plan genericPlans runs for a query (EXPLAIN as JSON): the statement postgres.js would send,
 * PREPAREd on a connection of that pool and EXPLAINed with its parameters (for tests and docs; EXPLAIN
 * of the query itself plans it with the parameters' values, as a custom plan).
 */
export async function explainGenericPlan(query: postgres.PendingQuery<any>): Promise<unknown> {
  statementCapture ??= postgres(config.databaseUrl, {
    max: 1,
    onnotice: () => {},
    transform: { undefined: null },
    debug: (_conn: number, string: string, parameters: unknown[]) => {
      captured = { string, parameters };
    },
  });
  captured = null;
  await statementCapture`${query}`.describe();
  const stmt = captured as { string: string; parameters: unknown[] } | null;
  if (!stmt) throw new Error("explainGenericPlan: the statement was not built");
  const c = await genericPlans.reserve();
  try {
    await c.unsafe(`prepare nms_explain_generic as ${stmt.string}`);
    try {
      // the values as untyped literals (EXECUTE's arguments take the prepared statement's types; a bound $n could not)
      const text = (v: unknown): string =>
        v instanceof Date ? v.toISOString() : Array.isArray(v) ? `{${v.map((x) => `"${text(x).replace(/["\\]/g, "\\$&")}"`).join(",")}}` : String(v);
      const literal = (v: unknown) => (v === null || v === undefined ? "null" : `'${text(v).replace(/'/g, "''")}'`);
      const args = stmt.parameters.map(literal).join(", ");
      const [row] = await c.unsafe(`explain (format json) execute nms_explain_generic${args ? `(${args})` : ""}`);
      return row!["QUERY PLAN"];
    } finally {
      await c.unsafe("deallocate nms_explain_generic");
    }
  } finally {
    c.release();
  }
}

export type Sql = typeof sql;
/** The pair every tenant-data query filters by: another tenant's or environment's row is a 404. */
export interface Scope {
  tenantId: string;
  environment: string;
}
/**
 * What a repository function runs its statements on: the pool, a transaction (sql.begin's
 * callback argument) or a reserved connection. The type parameter matches the pool's ({}, no
 * custom types), so each of them fits without a cast.
 */
export type Tx = postgres.ISql<{}>;

/**
 * A transaction on one reserved connection whose statements are pipelined: BEGIN goes out with
 * fn's first statements and COMMIT with its tail (statements fn started and did not await), so a
 * batch costs two round trips, not four. A failed statement aborts the transaction; the COMMIT
 * sent behind it then rolls back, and the first failure in sending order is thrown (the cause,
 * not a later "transaction is aborted").
 */
export async function inPipelinedTx<T>(fn: (tx: Tx) => Promise<{ value: T; tail: Promise<unknown>[] }>): Promise<T> {
  const c = await sql.reserve();
  try {
    const begin = c`begin`.execute();
    begin.catch(() => {}); // awaited below
    try {
      const out = await fn(c);
      const commit = c`commit`.execute();
      const settled = await Promise.allSettled([begin, ...out.tail, commit]);
      const failed = settled.find((r) => r.status === "rejected") as PromiseRejectedResult | undefined;
      if (failed) throw failed.reason;
      return out.value;
    } catch (err) {
      await c`rollback`.catch(() => {});
      throw err;
    }
  } finally {
    c.release();
  }
}

export async function pingPostgres(timeoutMs = 1000): Promise<boolean> {
  try {
    await Promise.race([
      sql`select 1`,
      new Promise((_, reject) => setTimeout(() => reject(new Error("timeout")), timeoutMs)),
    ]);
    return true;
  } catch {
    return false;
  }
}

const readConnection = new AsyncLocalStorage<{ tx: Tx; generic: Tx }>();

/**
 * The connection of a read that may go to the replica (list, detail and analytics reads): the one
 * withReader chose for this call (store/replica.ts onReplica), the primary pool elsewhere.
 */
export function reader(): Tx {
  return readConnection.getStore()?.tx ?? sql;
}

/** reader() for a statement that should run on a generic plan: the generic-plan pool of the server withReader chose, else genericPlans. */
export function genericPlanReader(): Tx {
  return readConnection.getStore()?.generic ?? genericPlans;
}

/** Runs fn with reader() answering `tx` and genericPlanReader() `generic` (store/replica.ts decides when those are the replica's). */
export function withReader<T>(tx: Tx, generic: Tx, fn: () => Promise<T>): Promise<T> {
  return readConnection.run({ tx, generic }, fn);
}
