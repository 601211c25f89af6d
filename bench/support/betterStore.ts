/**
 * better-sqlite3 for the baselines: a connection in WAL mode with synchronous=FULL, the engine's
 * `Tx` over it (so a baseline runs the owner's own statements), and a `Store` over it (so a baseline
 * can run Foreman's whole engine, one per process, on one shared database file).
 */
import { createRequire } from 'node:module';
import type { Result } from '../../src/core/result';
import { type Reader, type Sql, type SqlValue, type Store, type Tx, sqlText } from '../../src/engine/ports';

export interface BetterStatement {
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  run(...params: unknown[]): { changes: number };
}

export interface BetterDatabase {
  pragma(source: string): unknown;
  exec(source: string): void;
  prepare(source: string): BetterStatement;
  /** The function run in a transaction: called as is (BEGIN DEFERRED) or with `.immediate`. */
  transaction<A extends unknown[], R>(fn: (...args: A) => R): ((...args: A) => R) & { immediate: (...args: A) => R };
  close(): void;
}

/** A connection as every baseline uses it: WAL, synchronous=FULL, foreign keys on, 60 s for the lock. */
export function openBetter(file: string): BetterDatabase {
  // A dev dependency without bundled types: loaded untyped, the few calls used are declared above.
  const Database = createRequire(__filename)('better-sqlite3') as new (file: string, options: object) => BetterDatabase;
  const db = new Database(file, { timeout: 60_000 });
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  return db;
}

/** The engine's query functions over better-sqlite3, each statement prepared once by its text. */
export function betterTx(db: BetterDatabase): Tx {
  const statements = new Map<string, BetterStatement>();
  const prepared = (sql: Sql): BetterStatement => {
    const text = sqlText(sql, 'sqlite');
    let statement = statements.get(text);
    if (!statement) statements.set(text, (statement = db.prepare(text)));
    return statement;
  };
  const reader: Reader = {
    get: <T extends object>(sql: Sql, params: readonly SqlValue[] = []) => prepared(sql).get(...params) as T | undefined,
    all: <T extends object>(sql: Sql, params: readonly SqlValue[] = []) => prepared(sql).all(...params) as T[],
  };
  return {
    ...reader,
    run: (sql, params = []) => prepared(sql).run(...params).changes,
    returning: <T extends object>(sql: Sql, params: readonly SqlValue[] = []) => prepared(sql).all(...params) as T[],
    fileSpace: {
      pages: () => ({
        free: Number((prepared('PRAGMA freelist_count').get() as { freelist_count?: number } | undefined)?.freelist_count ?? 0),
        total: Number((prepared('PRAGMA page_count').get() as { page_count?: number } | undefined)?.page_count ?? 0),
      }),
      reclaim: () => void db.pragma('incremental_vacuum'),
    },
  };
}

/** Thrown inside a transaction to roll back a refused or invalid result, then caught to return it. */
class RolledBack extends Error {
  constructor(readonly result: Result<never>) {
    super('rolled back');
  }
}

/**
 * The engine's store port over one better-sqlite3 connection: every write is its own
 * BEGIN IMMEDIATE transaction, committed (and so fsync'd, synchronous=FULL) before it returns; a
 * result that is not ok rolls it back. Several processes may hold one each on the same file:
 * SQLite's lock serialises their writes, as the owner's thread serialises its clients'.
 */
export class BetterStore implements Store {
  private readonly tx: Tx;
  private readonly inTransaction: <T>(fn: () => Result<T>) => Result<T>;

  constructor(private readonly db: BetterDatabase) {
    this.tx = betterTx(db);
    const run = db.transaction((fn: () => Result<unknown>) => {
      const result = fn();
      if (!result.ok) throw new RolledBack(result);
      return result;
    });
    this.inTransaction = <T>(fn: () => Result<T>): Result<T> => {
      try {
        return run.immediate(fn) as Result<T>;
      } catch (error) {
        if (error instanceof RolledBack) return error.result;
        throw error;
      }
    };
  }

  read<T>(fn: (reader: Reader) => T): T {
    return fn(this.tx);
  }

  write<T>(fn: (tx: Tx) => Result<T>): Result<T> {
    return this.inTransaction(() => fn(this.tx));
  }

  /** SQLite checkpoints its WAL by itself every 1,000 pages; this one copies what it can now. */
  checkpoint(): void {
    this.db.pragma('wal_checkpoint(PASSIVE)');
  }

  close(): void {
    this.db.close();
  }
}
