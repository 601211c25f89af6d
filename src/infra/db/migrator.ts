/** Applies numbered migrations, one transaction each (STYLE rule 12). */
import type { Connection } from './connection';
import type { Migration } from './migrations/index';
import { StoreError } from './storeError';

/** The schema version recorded in `meta`, or 0 for a database without one (a new database). */
export function schemaVersionOf(connection: Connection): number {
  const table = connection.get(`SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'meta'`);
  if (!table) return 0;
  const row = connection.get<{ value: string }>(`SELECT value FROM meta WHERE key = 'schema_version'`);
  return row ? Number(row.value) : 0;
}

export function latestVersion(migrations: readonly Migration[]): number {
  return migrations.at(-1)?.version ?? 0;
}

export function assertKnownVersion(version: number, migrations: readonly Migration[], where: string): void {
  const latest = latestVersion(migrations);
  if (version > latest) {
    throw new StoreError(
      'newerSchema',
      `${where} has schema version ${version}, but this Foreman only knows versions up to ${latest}. ` +
        'Update Foreman to open it; nothing was changed.',
    );
  }
}

/**
 * Brings the database up to `target` (default: the newest version). Returns the versions applied,
 * so the caller knows to checkpoint: migrations are not journalled.
 */
export function applyMigrations(connection: Connection, migrations: readonly Migration[], target = latestVersion(migrations)): number[] {
  const applied: number[] = [];
  for (const migration of migrations) {
    if (migration.version > target || migration.version <= schemaVersionOf(connection)) continue;
    connection.exec('BEGIN');
    try {
      connection.exec(migration.sql);
      connection.run(
        `INSERT INTO meta (key, value) VALUES ('schema_version', ?)
        ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
        [String(migration.version)],
      );
      connection.exec('COMMIT');
    } catch (error) {
      connection.exec('ROLLBACK');
      throw new Error(`migration ${migration.version} failed: ${String(error)}`, { cause: error });
    }
    applied.push(migration.version);
  }
  return applied;
}
