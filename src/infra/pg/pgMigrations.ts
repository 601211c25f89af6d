/**
 * The PostgreSQL schema: the same numbered migrations as SQLite's (src/infra/db/migrations/), their
 * DDL translated (dialect.ts), each in its own transaction with its version recorded in `meta`, all
 * under a transaction-scoped advisory lock, so that owners that start at once migrate once.
 */
import { migrations } from '../db/migrations/index';
import { toPostgresDdl } from './dialect';
import type { SyncPgClient } from './syncClient';

/** The advisory lock key of Foreman's migrations ("FORM" in ASCII). */
const migrationLock = 0x464f524d;

function schemaVersion(client: SyncPgClient): number {
  const table = client.query<{ found: string | null }>(`SELECT to_regclass('meta')::text AS found`).rows[0]?.found;
  if (!table) return 0;
  return Number(client.query<{ value: string }>(`SELECT value FROM meta WHERE key = 'schema_version'`).rows[0]?.value ?? 0);
}

/** Applies what is missing; returns the versions applied. Refuses a schema newer than this Foreman knows. */
export function applyPgMigrations(client: SyncPgClient): number[] {
  const applied: number[] = [];
  const latest = migrations.at(-1)?.version ?? 0;
  for (const migration of migrations) {
    client.query('BEGIN');
    try {
      client.query('SELECT pg_advisory_xact_lock($1)', [migrationLock]);
      const current = schemaVersion(client);
      if (current > latest) {
        throw new Error(`the database has schema version ${current}, but this Foreman only knows versions up to ${latest}; update Foreman`);
      }
      if (migration.version <= current) {
        client.query('COMMIT');
        continue;
      }
      client.query(toPostgresDdl(migration.sql));
      client.query(`INSERT INTO meta (key, value) VALUES ('schema_version', $1) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, [
        String(migration.version),
      ]);
      client.query('COMMIT');
      applied.push(migration.version);
    } catch (error) {
      try {
        client.query('ROLLBACK');
      } catch {
        // The connection is gone, and the transaction with it.
      }
      throw new Error(`PostgreSQL migration ${migration.version} failed: ${error instanceof Error ? error.message : String(error)}`, {
        cause: error,
      });
    }
  }
  return applied;
}
