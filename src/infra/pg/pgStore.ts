/**
 * The store port on PostgreSQL (issue 14): the same `Store`, `Reader` and `Tx` the engine uses on
 * sql.js, run on a server that several owners share. Statements go through the synchronous client
 * (syncClient.ts), each in the text its query module wrote for PostgreSQL (pgTx.ts); a write is one server transaction,
 * committed before `write` returns (the server's WAL makes it durable: there is no journal or
 * checkpoint of Foreman's own). The schema is the SQLite migrations', written for PostgreSQL
 * (pgSchema.ts, pgMigrations.ts), applied under
 * an advisory lock so that owners starting together migrate once; they all open, waiting their turn
 * within a start-up budget.
 *
 * The engine's claim takes its row with `FOR UPDATE SKIP LOCKED` here (queries/taskQueue.ts), so owners
 * claiming at once never wait for each other's rows. A write that changed a worker or a task ends
 * with `pg_notify('foreman', …)` inside its transaction, so the server delivers it at the commit, to
 * the other owners' listeners (listener.ts): the owner's id, the workers and tasks it changed, and
 * what the others must do about them (notice.ts). A heartbeat sends none (issue 29).
 * `.foreman/store.json` selects this store (src/infra/workspace/storeConfig.ts). A server that
 * cannot be reached is a `StoreError` (`unreachable`) naming the server and saying whether the
 * change was written.
 */
import { randomUUID } from 'node:crypto';
import type { Reader, Store, Tx, WriteOptions } from '../../engine/ports';
import type { Result } from '../../core/result';
import { StoreError } from '../db/storeError';
import { defaultStartupBudgetMs, passingConnectFailure, sleepSync, startupPauseMs } from './connect';
import { notifyStatement } from './notice';
import { applyPgMigrations } from './pgMigrations';
import { PgReader, PgTx } from './pgTx';
import { PgError, type PgStatement, type SyncPgOptions, SyncPgClient } from './syncClient';

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

export { type ChangeNotice, encodeNotice, notifyChannel } from './notice';

export interface PgStoreOptions extends SyncPgOptions {
  /** The engine's owner identity; default: a new random one. */
  readonly ownerId?: string;
  /** How long opening keeps trying while the server is busy with others starting (default 60 s). */
  readonly startupBudgetMs?: number;
}

export class PgStore implements Store {
  /** A claim and its audit rows are one statement here (queries/taskQueue.ts). */
  readonly dialect = 'postgres';
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
   * A server busy with the owners that start at the same time (a statement past its time, too many
   * connections, another owner migrating) is tried again with a growing pause until
   * `startupBudgetMs` has passed; a refusal that will not pass (a wrong password, nothing listening)
   * is said at once.
   */
  static open(url: string, options: PgStoreOptions = {}): PgStore {
    const deadline = Date.now() + (options.startupBudgetMs ?? defaultStartupBudgetMs);
    const client = new SyncPgClient(url, options);
    for (let attempt = 0; ; attempt++) {
      try {
        applyPgMigrations(client, { deadline });
        return new PgStore(client, options.ownerId ?? randomUUID());
      } catch (error) {
        const pause = startupPauseMs(attempt);
        if (!passingConnectFailure(unreachableIn(error)?.code) || Date.now() + pause > deadline) {
          client.close();
          throw asStoreError(error, '');
        }
        sleepSync(pause);
      }
    }
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
    // A write the engine need not fsync (a heartbeat: ARCHITECTURE §2 allows losing the last seconds
    // of them) commits without waiting for the server's WAL flush, as on sql.js. The BEGIN goes with
    // the transaction's first statement (pgTx.ts).
    const tx = new PgTx(this.client, options.durable === false ? 'BEGIN; SET LOCAL synchronous_commit TO OFF' : 'BEGIN');
    try {
      let result: Result<T>;
      try {
        result = fn(tx);
      } catch (error) {
        // A lost connection took its transaction with it: a ROLLBACK would only wait for a server that is gone.
        if (!unreachableIn(error)) this.rollback(tx);
        throw asStoreError(error, ' Nothing of this change was written (the server rolls back an unfinished transaction).');
      }
      if (!result.ok) {
        this.rollback(tx);
        return result;
      }
      const ending: PgStatement[] = [];
      const changed = tx.changedAny && !options.quiet ? options.changed?.() : undefined;
      // A write that names no worker and no task (a plain heartbeat) concerns no other owner (issue 29).
      if (tx.changedAny && !options.quiet && (!changed || changed.workers.length > 0 || changed.tasks.length > 0)) {
        // Delivered at the commit, and only if it commits.
        ending.push(notifyStatement(this.ownerId, changed));
      }
      // Known only now (a heartbeat that moved no state): set before the COMMIT, in the same round trip.
      const lateNotDurable = typeof options.durable === 'function' && !options.durable();
      ending.push({ sql: lateNotDurable ? 'SET LOCAL synchronous_commit TO OFF; COMMIT' : 'COMMIT', params: [] });
      try {
        // What the transaction held back, the notification and the COMMIT: one round trip. A statement
        // the server refused there made it end the transaction at the COMMIT without saving anything.
        tx.flush(ending);
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

  private rollback(tx: PgTx): void {
    if (tx.discard()) return;
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
