import type { HistoryDb } from "./connectHistory.js";
import { migrations as allMigrations, type Migration } from "./migrations.js";
import { historyTables } from "./schema.js";

export interface MigrationReport {
  applied: number[];
  /** The schema's version afterwards. */
  version: number;
}

/**
 * Brings the history schema up to date: applies each step not yet applied, each in its own
 * transaction with its record in `history.schema_migrations`, under an advisory lock so that
 * two migrators (a Job retried while the first still runs) apply each step once. Runs as the
 * schema's owner (`history_owner`), never as a service's role.
 */
export async function migrateHistory(
  db: HistoryDb,
  migrations: readonly Migration[] = allMigrations,
): Promise<MigrationReport> {
  const applied: number[] = [];
  await db.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(hashtext('history.migrations'))`;
    await tx.unsafe(`create table if not exists ${historyTables.migrations} (
      version integer primary key, name text not null, applied_at timestamptz not null default now())`);
  });
  for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
    await db.begin(async (tx) => {
      await tx`select pg_advisory_xact_lock(hashtext('history.migrations'))`;
      const [done] = await tx.unsafe(`select 1 from ${historyTables.migrations} where version = $1`, [
        migration.version,
      ]);
      if (done !== undefined) return;
      await tx.unsafe(migration.sql);
      await tx.unsafe(`insert into ${historyTables.migrations} (version, name) values ($1, $2)`, [
        migration.version,
        migration.name,
      ]);
      applied.push(migration.version);
    });
  }
  const [row] = await db.unsafe(`select coalesce(max(version), 0)::int as version from ${historyTables.migrations}`);
  return { applied, version: Number(row?.version ?? 0) };
}

/** The newest step this code knows; a reader or writer started against an older schema refuses to run. */
export const HISTORY_SCHEMA_VERSION = Math.max(...allMigrations.map((migration) => migration.version));

/** The schema's applied version, 0 when it was never migrated. */
export async function historySchemaVersion(db: HistoryDb): Promise<number> {
  const [exists] = await db`select to_regclass(${historyTables.migrations}) is not null as present`;
  if (exists?.present !== true) return 0;
  const [row] = await db.unsafe(`select coalesce(max(version), 0)::int as version from ${historyTables.migrations}`);
  return Number(row?.version ?? 0);
}
