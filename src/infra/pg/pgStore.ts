/**
 * The store port on PostgreSQL (issue 14): the same `Store`, `Reader` and `Tx` the engine uses on
 * sql.js, run on a server that several owners share. Statements go through the synchronous client
 * (syncClient.ts) and the dialect translation (dialect.ts); a write is one server transaction,
 * committed before `write` returns (the server's WAL makes it durable: there is no journal or
 * checkpoint of Foreman's own). The schema is the SQLite migrations' (pgMigrations.ts), applied under
 * an advisory lock so that owners starting together migrate once.
 *
 * The engine's claim takes its row with `FOR UPDATE SKIP LOCKED` here (dialect.ts), so owners
 * claiming at once never wait for each other's rows. A write that changed rows ends with
 * `pg_notify('foreman', …)` inside its transaction, so the server delivers it at the commit, to the
 * other owners' listeners (listener.ts): the owner's id and the workers and tasks it changed.
 * `.foreman/store.json` selects this store (src/infra/workspace/storeConfig.ts). A server that
 * cannot be reached is a `StoreError` (`unreachable`) naming the server and saying whether the
 * change was written.
 */
import { randomUUID } from 'node:crypto';
import type { ChangedRows, Reader, Row, SqlValue, Store, Tx, WriteOptions } from '../../engine/ports';
import type { Result } from '../../core/result';
import { StoreError } from '../db/storeError';
import { toPostgres } from './dialect';
import { applyPgMigrations } from './pgMigrations';
import { PgError, type SyncPgOptions, SyncPgClient } from './syncClient';

/** PRAGMAs tune SQLite alone (retention's free-page accounting): on PostgreSQL they read nothing and do nothing. */
const pragma = /^\s*PRAGMA\b/i;

/** Runs one of the engine's statements; a refusal names the statement (its text, never its values). */
function query<T extends object>(client: SyncPgClient, sql: string, params: readonly SqlValue[]): { rows: T[]; rowCount: number } {
  const translated = toPostgres(sql);
  try {
    return client.query<T>(translated, params);
  } catch (error) {
    if (error instanceof PgError && !error.unreachable) {
      throw new PgError(`${error.message} (in: ${translated.replace(/\s+/g, ' ').slice(0, 300)})`, error.code);
    }
    throw error;
  }
}

/** The connection failure in `error` or its causes (a migration wraps what it met), if that is what it is. */
function unreachableIn(error: unknown): PgError | undefined {
  for (let current = error; current instanceof Error; current = current.cause) {
    if (current instanceof PgError && current.unreachable) return current;
  }
  return undefined;
}

/** A lost server as the store's error; anything else unchanged. */
function asStoreError(error: unknown, outcome: string): unknown {
  const lost = unreachableIn(error);
  return lost ? new StoreError('unreachable', `${lost.message}${outcome}`, { cause: error }) : error;
}

class PgReader implements Reader {
  constructor(protected readonly client: SyncPgClient) {}

  get<T extends object = Row>(sql: string, params?: readonly SqlValue[]): T | undefined {
    return this.all<T>(sql, params)[0];
  }

  all<T extends object = Row>(sql: string, params: readonly SqlValue[] = []): T[] {
    if (pragma.test(sql)) return [];
    return query<T>(this.client, sql, params).rows;
  }
}

class PgTx extends PgReader implements Tx {
  /** Whether a statement changed a row: only then do the other owners hear of the write. */
  changedAny = false;

  run(sql: string, params: readonly SqlValue[] = []): number {
    if (pragma.test(sql)) return 0;
    const count = query(this.client, sql, params).rowCount;
    if (count > 0) this.changedAny = true;
    return count;
  }

  returning<T extends object = Row>(sql: string, params?: readonly SqlValue[]): T[] {
    const rows = this.all<T>(sql, params);
    if (rows.length > 0) this.changedAny = true;
    return rows;
  }
}

/** The channel every owner of a database listens on (listener.ts). */
export const notifyChannel = 'foreman';
/** PostgreSQL refuses payloads of 8000 bytes or more; a longer list of ids is left out (the others read everything). */
const maxPayloadChars = 7000;

/** What a notification carries: the writing owner, and the rows it changed when they are known and few. */
export interface ChangeNotice {
  readonly owner: string;
  readonly changed?: ChangedRows;
}

/** The payload: `{"o":owner,"w":[workers],"t":[tasks]}`, or `{"o":owner}` when the rows are unknown or too many. */
export function encodeNotice(owner: string, changed: ChangedRows | undefined): string {
  const bare = JSON.stringify({ o: owner });
  if (!changed) return bare;
  const full = JSON.stringify({ o: owner, w: changed.workers, t: changed.tasks });
  return full.length <= maxPayloadChars ? full : bare;
}

export class PgStore implements Store {
  private writing = false;
  private closed = false;
  private readonly reader: PgReader;

  private constructor(
    private readonly client: SyncPgClient,
    /** Who the notifications of this store's writes come from: the owner's id, so that its own listener skips them. */
    readonly ownerId: string,
  ) {
    this.reader = new PgReader(client);
  }

  /**
   * Connects to `url` and brings its schema up to date; throws (with the server named, never its
   * password) when it cannot. `ownerId`: the engine's owner identity (default: a new random one).
   */
  static open(url: string, options: SyncPgOptions & { readonly ownerId?: string } = {}): PgStore {
    const client = new SyncPgClient(url, options);
    try {
      applyPgMigrations(client);
    } catch (error) {
      client.close();
      throw asStoreError(error, '');
    }
    return new PgStore(client, options.ownerId ?? randomUUID());
  }

  /** The server as messages name it, without its password. */
  get server(): string {
    return this.client.server;
  }

  read<T>(fn: (reader: Reader) => T): T {
    this.assertOpen('read');
    try {
      return fn(this.reader);
    } catch (error) {
      throw asStoreError(error, '');
    }
  }

  write<T>(fn: (tx: Tx) => Result<T>, options: WriteOptions = {}): Result<T> {
    this.assertOpen('write');
    if (this.writing) throw new Error('PgStore.write was called inside another write; compose the work into one transaction.');
    this.writing = true;
    const tx = new PgTx(this.client);
    try {
      let result: Result<T>;
      try {
        // A write the engine need not fsync (a heartbeat: ARCHITECTURE §2 allows losing the last
        // seconds of them) commits without waiting for the server's WAL flush, as on sql.js.
        this.client.query(options.durable === false ? 'BEGIN; SET LOCAL synchronous_commit TO OFF' : 'BEGIN');
        result = fn(tx);
      } catch (error) {
        // A lost connection took its transaction with it: a ROLLBACK would only wait for a server that is gone.
        if (!unreachableIn(error)) this.rollback();
        throw asStoreError(error, ' Nothing of this change was written (the server rolls back an unfinished transaction).');
      }
      if (!result.ok) {
        this.rollback();
        return result;
      }
      if (tx.changedAny && !options.quiet) {
        try {
          // Delivered at the commit, and only if it commits.
          this.client.query('SELECT pg_notify($1, $2)', [notifyChannel, encodeNotice(this.ownerId, options.changed?.())]);
        } catch (error) {
          this.rollback();
          throw asStoreError(error, ' Nothing was written.');
        }
      }
      // Known only now (a heartbeat that moved no state): set before the COMMIT, in the same round trip.
      const lateNotDurable = typeof options.durable === 'function' && !options.durable();
      try {
        this.client.query(lateNotDurable ? 'SET LOCAL synchronous_commit TO OFF; COMMIT' : 'COMMIT');
      } catch (error) {
        throw asStoreError(
          error,
          ' The connection was lost while committing, so the server may or may not have saved this change: look (foreman status) before repeating it.',
        );
      }
      return result;
    } finally {
      this.writing = false;
    }
  }

  /** The server keeps its own log and checkpoints: nothing to do. */
  checkpoint(): void {
    this.assertOpen('checkpoint');
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.client.close();
  }

  private rollback(): void {
    try {
      this.client.query('ROLLBACK');
    } catch {
      // The connection is gone; the server rolled the transaction back with it.
    }
  }

  private assertOpen(operation: string): void {
    if (this.closed) throw new Error(`PgStore.${operation} was called after close().`);
  }
}
