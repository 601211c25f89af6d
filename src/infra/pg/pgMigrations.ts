/**
 * The PostgreSQL schema: the same numbered migrations as SQLite's (src/infra/db/migrations/), each
 * written for PostgreSQL (pgSchema.ts), each in its own transaction with its version recorded in `meta`.
 * A schema that is up to date is seen in one read, without any lock. Otherwise one owner migrates
 * under a session advisory lock while owners that start with it wait their turn by trying the lock
 * again with a pause (no statement waits on it, so none runs into the statement timeout), then find
 * the schema up to date (issue 29: owners that start together all open).
 */
import { migrations } from '../db/migrations/index';
import { sleepSync, startupPauseMs } from './connect';
import { pgSchema } from './pgSchema';
import { PgError, type SyncPgClient } from './syncClient';

/** The advisory lock key of Foreman's migrations ("FORM" in ASCII). */
export const migrationLock = 0x464f524d;

function schemaVersion(client: SyncPgClient): number {
  const table = client.query<{ found: string | null }>(`SELECT to_regclass('meta')::text AS found`).rows[0]?.found;
  if (!table) return 0;
  return Number(client.query<{ value: string }>(`SELECT value FROM meta WHERE key = 'schema_version'`).rows[0]?.value ?? 0);
}

function refuseNewer(current: number, latest: number): void {
  if (current > latest) {
    throw new Error(`the database has schema version ${current}, but this Foreman only knows versions up to ${latest}; update Foreman`);
  }
}

/** Takes the migration lock, trying again with a pause until `deadline` (epoch ms). */
function takeLock(client: SyncPgClient, deadline: number): void {
  for (let attempt = 0; ; attempt++) {
    const taken = client.query<{ taken: boolean }>('SELECT pg_try_advisory_lock($1) AS taken', [migrationLock]).rows[0]?.taken;
    if (taken) return;
    const pause = startupPauseMs(attempt);
    if (Date.now() + pause > deadline) {
      throw new PgError(`${client.server}: another owner is still migrating the schema; try again when it is done.`, 'timeout', true);
    }
    sleepSync(pause);
  }
}

export interface MigrateOptions {
  /** Until when (epoch ms) to wait for another owner's migration. Default: 60 s from now. */
  readonly deadline?: number;
}

/** Applies what is missing; returns the versions applied. Refuses a schema newer than this Foreman knows. */
export function applyPgMigrations(client: SyncPgClient, options: MigrateOptions = {}): number[] {
  const latest = migrations.at(-1)?.version ?? 0;
  const found = schemaVersion(client);
  refuseNewer(found, latest);
  if (found === latest) return [];
  const applied: number[] = [];
  takeLock(client, options.deadline ?? Date.now() + 60_000);
  try {
    for (const migration of migrations) {
      client.query('BEGIN');
      try {
        const current = schemaVersion(client);
        refuseNewer(current, latest);
        if (migration.version <= current) {
          client.query('COMMIT');
          continue;
        }
        const ddl = pgSchema.get(migration.version);
        if (ddl === undefined) {
          throw new Error(`bug: SQLite migration ${migration.version} has no PostgreSQL counterpart; add it to src/infra/pg/pgSchema.ts`);
        }
        client.query(ddl);
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
  } finally {
    try {
      client.query('SELECT pg_advisory_unlock($1)', [migrationLock]);
    } catch {
      // The connection is gone: the server let go of its session lock with it.
    }
  }
  return applied;
}
