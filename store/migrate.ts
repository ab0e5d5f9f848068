// Forward-only migration runner: applies store/migrations/NNNN_name.sql in name order,
// each in its own transaction, recording applied names in schema_migrations.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import postgres from "postgres";

const MIGRATIONS_DIR = join(import.meta.dir, "migrations");

export function migrationFiles(): string[] {
  return readdirSync(MIGRATIONS_DIR).filter((f) => /^\d{4}_[\w-]+\.sql$/.test(f)).sort();
}

/** Creates the database named in the URL when it is missing (connecting to `postgres`). */
export async function ensureDatabase(databaseUrl: string): Promise<boolean> {
  const url = new URL(databaseUrl);
  const dbName = decodeURIComponent(url.pathname.slice(1));
  const adminUrl = new URL(databaseUrl);
  adminUrl.pathname = "/postgres";
  const admin = postgres(adminUrl.toString(), { max: 1, onnotice: () => {} });
  try {
    const rows = await admin`select 1 from pg_database where datname = ${dbName}`;
    if (rows.length > 0) return false;
    await admin.unsafe(`create database "${dbName.replace(/"/g, '""')}"`);
    return true;
  } catch (err: any) {
    if (err?.code === "42P04") return false; // created concurrently
    throw err;
  } finally {
    await admin.end();
  }
}

/** `until`: apply only the files whose names sort before it (tests that build an older schema). */
export async function migrate(databaseUrl: string, log: (msg: string) => void = console.log, opts: { until?: string } = {}): Promise<string[]> {
  const db = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  const applied: string[] = [];
  try {
    // one migrator at a time, even when several processes start together
    await db`select pg_advisory_lock(827364501)`;
    await db`create table if not exists schema_migrations (name text primary key, applied_at timestamptz not null default now())`;
    const done = new Set((await db`select name from schema_migrations`).map((r) => r.name as string));
    for (const file of migrationFiles()) {
      if (done.has(file)) continue;
      if (opts.until !== undefined && file >= opts.until) break;
      const text = readFileSync(join(MIGRATIONS_DIR, file), "utf8");
      await db.begin(async (tx) => {
        await tx.unsafe(text);
        await tx`insert into schema_migrations (name) values (${file})`;
      });
      applied.push(file);
      log(`migrated ${file}`);
    }
    await db`select pg_advisory_unlock(827364501)`;
  } finally {
    await db.end();
  }
  return applied;
}
