/** The store port (ARCHITECTURE §2): reads, guarded transactions, and what a shared store tells the other owners. */
import type { Result } from '../../core/result';

/** A value bound to a `?` placeholder. Time and ids are always parameters, never computed in SQL. */
export type SqlValue = string | number | null | Uint8Array;
export type Row = Record<string, SqlValue>;

/** The SQL a store speaks: sql.js's SQLite, or PostgreSQL (src/infra/pg). */
export type Backend = 'sqlite' | 'postgres';

/**
 * A statement whose text differs per backend, each written by hand in its query module (`json_each`
 * against `json_array_elements_text`, `MAX(a, b)` against `GREATEST`, a row lock, …). A backend
 * without a text refuses the statement (a PostgreSQL-only claim on SQLite is a bug, said as one).
 */
export interface NativeSql {
  readonly sqlite?: string;
  readonly postgres?: string;
}

/**
 * A statement: one text that both backends run as written, or one text per backend (`NativeSql`).
 * Parameters are `?` or `?N` in every text; PostgreSQL's protocol spells them `$N`, which its store
 * numbers (src/infra/pg/placeholders.ts). Nothing else in a text is changed on the way.
 */
export type Sql = string | NativeSql;

/** The text of `sql` that `backend` runs; throws when the statement has none for it. */
export function sqlText(sql: Sql, backend: Backend): string {
  if (typeof sql === 'string') return sql;
  const text = sql[backend];
  if (text === undefined) {
    const other = sql.sqlite ?? sql.postgres ?? '';
    throw new Error(
      `bug: this statement has no ${backend} text (it is written for the other store only): ${other.replace(/\s+/g, ' ').slice(0, 200)}`,
    );
  }
  return text;
}

/** Read access inside a transaction or a read. Only SELECT statements. */
export interface Reader {
  get<T extends object = Row>(sql: Sql, params?: readonly SqlValue[]): T | undefined;
  all<T extends object = Row>(sql: Sql, params?: readonly SqlValue[]): T[];
}

/**
 * The pages of a store kept in one file (SQLite), which retention gives back once rows left
 * (`PRAGMA freelist_count`, `page_count`, `incremental_vacuum` are these methods, not statements).
 */
export interface FileSpace {
  /** Free pages and all pages of the file. */
  pages(): { readonly free: number; readonly total: number };
  /** Gives the free pages back to the file system (the store runs with auto_vacuum=INCREMENTAL). */
  reclaim(): void;
}

/** Write access inside `Store.write`. Every write statement is recorded for the redo journal. */
export interface Tx extends Reader {
  /** Runs an INSERT/UPDATE/DELETE and returns the number of rows it changed. */
  run(sql: Sql, params?: readonly SqlValue[]): number;
  /** Runs a write statement with a RETURNING clause and returns the rows it returned. */
  returning<T extends object = Row>(sql: Sql, params?: readonly SqlValue[]): T[];
  /**
   * The file's pages where the store is one file (sql.js); null where it is not (PostgreSQL: the
   * server's autovacuum reclaims space, and there is no file of Foreman's to shrink).
   */
  readonly fileSpace: FileSpace | null;
  /**
   * Runs a write whose outcome nobody reads (an audit row, a message, a heartbeat): the store may
   * hold it and send it with the next statement (PostgreSQL pipelines them, pgTx.ts). It runs in
   * order all the same, and one that fails fails the transaction. Absent: the store runs it at once
   * (`appendRow`, queries/appendRow.ts).
   */
  append?(sql: Sql, params?: readonly SqlValue[]): void;
}

export interface WriteOptions {
  /**
   * false: the journal record is written but not fsync'd (heartbeats; ARCHITECTURE §2 allows
   * losing the last seconds of them). The next durable write syncs it along. A function is asked
   * once `fn` has succeeded, before the commit: a heartbeat is durable only when it moved a state.
   */
  readonly durable?: boolean | (() => boolean);
  /**
   * For a store that several owners share (PostgreSQL's NOTIFY): called once `fn` succeeded, before
   * the commit, for the rows it changed; undefined: which rows is not known (the others read all).
   * A write that names no worker and no task (a plain heartbeat) is not announced at all.
   */
  readonly changed?: () => ChangedRows | undefined;
  /** The others need not hear of this write (a lease renewal): no notification. */
  readonly quiet?: boolean;
}

/**
 * The workers and tasks a write changed, by id, and what the other owners of a shared store must do
 * about it (issue 29: an owner acts only on what concerns it). An optional field that is absent is
 * not known: the receiver does what it would for any change.
 */
export interface ChangedRows {
  readonly workers: readonly string[];
  readonly tasks: readonly string[];
  /** Whether work may have become runnable (a task queued, a worker freed): the dispatchers run. */
  readonly mayHaveWork?: boolean;
  /** The workers whose liveness deadline may have come nearer (they moved into a watched state). */
  readonly liveness?: readonly string[];
  /** The hosts of the changed workers (null: a worker of any host): whose owners look at them. */
  readonly hosts?: readonly (string | null)[];
  /**
   * Only views want to hear of this change, unless it moved another machine's workers (their
   * owners act on that): no work became runnable, no row changed outside a transition. A shared
   * store then announces it only when it did move another machine's worker; views read the rest
   * from the transitions on their timer (engine/externalChanges.ts).
   */
  readonly onlyForViews?: boolean;
}

/**
 * Who this engine is when several owners share one store (issue 14): a unique id per running owner,
 * and the machine it runs on, whose workers' agents it launches.
 */
export interface OwnerIdentity {
  readonly id: string;
  readonly host: string;
  readonly pid?: number;
}

/** The durable, single-writer store (ARCHITECTURE §2). */
export interface Store {
  /**
   * Which text of a `NativeSql` statement the store runs; `postgres` also runs a claim with its
   * audit and lease rows as one statement (data-modifying CTEs, queries/taskQueue.ts). Absent:
   * SQLite's.
   */
  readonly dialect?: Backend;
  read<T>(fn: (reader: Reader) => T): T;
  /**
   * Runs `fn` in one transaction. A success is committed and journalled (fsync'd unless
   * `durable: false`) before this returns; a failure or an exception rolls everything back.
   */
  write<T>(fn: (tx: Tx) => Result<T>, options?: WriteOptions): Result<T>;
  /** Writes a checkpoint now (image + rename + journal truncation). */
  checkpoint(): void;
  close(): void;
  /**
   * Group commit, where the store has it (sql.js): durable writes inside `fn` are written now and
   * fsync'd together soon after; whoever reports such a write waits for `whenSaved()` first.
   * A store without it saves each write as it commits (PostgreSQL).
   */
  savingLater?<T>(fn: () => T): T;
  /** Resolves once every durable write so far is saved; rejects if saving failed. */
  whenSaved?(): Promise<void>;
}
