// The PostgreSQL connection pool (postgres.js) shared by every repository module.
// PostgreSQL is the source of truth; Redis only carries work.
import postgres from "postgres";
import { config } from "../config";

/** Names this process's pool in pg_stat_activity, so the metrics can count its connections by state (store/metrics.ts). */
export const poolApplicationName = `nms-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;

export const sql = postgres(config.databaseUrl, {
  max: config.databasePoolSize,
  connection: { application_name: poolApplicationName },
  onnotice: () => {},
  // timestamps come back as Date; we format them in the serializers
  transform: { undefined: null },
});

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
