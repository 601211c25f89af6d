/**
 * The merge lock of a crew over several machines (issue 14): a PostgreSQL session advisory lock,
 * held by a connection of its own for the length of one merge. Every owner on the same database
 * asks for the same key, so merges run one at a time across machines, in the order the server
 * grants them. Should the connection drop while a merge holds the lock, the server releases it at
 * once; the lease is aborted, and the merge stops before pushing (mergeQueue.ts checks it last).
 */
import type { Client } from 'pg';
import { newPgClient } from './connect';
import type { PgTls } from './tls';
import { type MergeLease, type MergeLock, MergeLockError } from '../git/mergeLock';

/** `pg_advisory_lock(int4, int4)`: Foreman's namespace ('Frmn') and the merge queue within it. */
export const mergeLockKey = { namespace: 0x46726d6e, id: 1 } as const;

export interface PgMergeLockOptions {
  /** The crew's database, `postgres://…`; TLS options in it pass through to `pg`. */
  readonly url: string;
  /** Longest wait for another machine's merge to finish; default 10 minutes (a merge verifies). */
  readonly timeoutMs?: number;
  readonly connectTimeoutMs?: number;
  /** TLS from `.foreman/store.json`, as the store's own connection uses it. */
  readonly ssl?: PgTls;
  /** The lock's key, for tests or for two crews sharing a database; default `mergeLockKey`. */
  readonly key?: { readonly namespace: number; readonly id: number };
}

/** SQLSTATE of a lock wait that ran past `lock_timeout`. */
const lockNotAvailable = '55P03';

export class PgMergeLock implements MergeLock {
  private readonly key: { readonly namespace: number; readonly id: number };

  constructor(private readonly options: PgMergeLockOptions) {
    this.key = options.key ?? mergeLockKey;
  }

  async run<T>(fn: (lease: MergeLease) => Promise<T>): Promise<T> {
    const lost = new AbortController();
    const client = newPgClient(this.options.url, {
      connectTimeoutMs: this.options.connectTimeoutMs ?? 10_000,
      ...(this.options.ssl !== undefined ? { ssl: this.options.ssl } : {}),
    });
    // A dropped connection is reported here (never as an unhandled 'error'), and it is the lock gone.
    client.on('error', (error) => lost.abort(error));
    client.on('end', () => lost.abort(new Error('the connection holding the merge lock closed')));
    try {
      await client.connect();
    } catch (error) {
      await client.end().catch(() => undefined);
      throw new MergeLockError('mergeLockUnavailable', `Could not reach PostgreSQL for the merge lock: ${reason(error)}`, { cause: error });
    }
    try {
      await this.acquire(client);
      const lease: MergeLease = { signal: lost.signal, stillHeld: () => this.stillHeld(client, lost.signal) };
      try {
        return await fn(lease);
      } finally {
        if (!lost.signal.aborted) {
          await client.query('SELECT pg_advisory_unlock($1, $2)', [this.key.namespace, this.key.id]).catch(() => undefined);
        }
      }
    } finally {
      // Ending the session releases the lock too, whatever happened above.
      await client.end().catch(() => undefined);
    }
  }

  private async acquire(client: Client): Promise<void> {
    const timeoutMs = Math.max(1, Math.round(this.options.timeoutMs ?? 600_000));
    try {
      // SET takes no parameters; the value is a whole number made here.
      await client.query(`SET lock_timeout = ${timeoutMs}`);
      await client.query('SELECT pg_advisory_lock($1, $2)', [this.key.namespace, this.key.id]);
    } catch (error) {
      if ((error as { code?: string }).code === lockNotAvailable) {
        throw new MergeLockError(
          'mergeLockTimeout',
          `Another machine has been merging for longer than ${Math.round(timeoutMs / 1000)} s; try the merge again later.`,
          { cause: error },
        );
      }
      throw new MergeLockError('mergeLockUnavailable', `Could not take the merge lock: ${reason(error)}`, { cause: error });
    }
  }

  /** Whether this session still holds the lock, asked of the server itself. */
  private async stillHeld(client: Client, signal: AbortSignal): Promise<boolean> {
    if (signal.aborted) return false;
    try {
      const held = await client.query<{ held: boolean }>(
        `SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()
           AND classid = $1::int4::oid AND objid = $2::int4::oid AND objsubid = 2 AND granted) AS held`,
        [this.key.namespace, this.key.id],
      );
      return held.rows[0]?.held === true && !signal.aborted;
    } catch {
      return false;
    }
  }
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
