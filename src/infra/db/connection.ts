/**
 * A sql.js database with prepared statements cached by SQL text. Preparing costs more than
 * running a small statement, so the cache is what keeps a claim in the tens of microseconds.
 */
import type { Database, Statement } from 'sql.js';
import type { Row, SqlValue } from '../../engine/ports';

/** Dynamic SQL (e.g. IN lists of varying length) must not grow the cache without bound. */
const maxCachedStatements = 500;

export class Connection {
  private readonly statements = new Map<string, Statement>();
  /** Each prepared statement's column names (rowOf), forgotten when `exec` may have changed the schema. */
  private columnNames = new WeakMap<Statement, string[]>();
  private closed = false;
  /** Rows inserted, updated or deleted so far, by any statement (including triggers). */
  changes = 0;

  constructor(readonly database: Database) {
    database.updateHook(() => {
      this.changes++;
    });
  }

  get<T extends object = Row>(sql: string, params?: readonly SqlValue[]): T | undefined {
    const statement = this.bound(sql, params);
    try {
      return statement.step() ? this.rowOf<T>(statement) : undefined;
    } finally {
      statement.reset();
    }
  }

  all<T extends object = Row>(sql: string, params?: readonly SqlValue[]): T[] {
    const statement = this.bound(sql, params);
    try {
      const rows: T[] = [];
      while (statement.step()) rows.push(this.rowOf<T>(statement));
      return rows;
    } finally {
      statement.reset();
    }
  }

  /**
   * The current row as an object. sql.js's getAsObject asks for the column names again on every
   * row (a call and a string decode per column: 14 µs of an 18 µs one-row read of a worker); they
   * are asked once per prepared statement instead, and again after SQL that may change the schema.
   */
  private rowOf<T>(statement: Statement): T {
    const values = statement.get();
    let names = this.columnNames.get(statement);
    if (names?.length !== values.length) {
      names = statement.getColumnNames();
      this.columnNames.set(statement, names);
    }
    const row: Record<string, unknown> = {};
    for (let i = 0; i < names.length; i++) {
      const name = names[i];
      if (name !== undefined) row[name] = values[i];
    }
    return row as T;
  }

  /** Runs a write statement to completion and returns how many rows it changed. */
  run(sql: string, params?: readonly SqlValue[]): number {
    const statement = this.bound(sql, params);
    try {
      while (statement.step()) {
        // A RETURNING clause yields rows; stepping through them all completes the statement.
      }
    } finally {
      statement.reset();
    }
    return this.database.getRowsModified();
  }

  /** Runs SQL text that may hold several statements and no parameters (migrations, pragmas). */
  exec(sql: string): void {
    this.columnNames = new WeakMap();
    this.database.exec(sql);
  }

  /** The single value of a one-row, one-column query such as `PRAGMA foreign_keys`. */
  scalar(sql: string): SqlValue | undefined {
    const [result] = this.database.exec(sql);
    return result?.values[0]?.[0];
  }

  export(): Uint8Array {
    return this.database.export();
  }

  /** Frees the statements and the database. Safe to call twice (a preload may be dropped twice). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const statement of this.statements.values()) statement.free();
    this.statements.clear();
    this.database.close();
  }

  private bound(sql: string, params: readonly SqlValue[] | undefined): Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.database.prepare(sql);
      if (this.statements.size >= maxCachedStatements) this.evictOldest();
      this.statements.set(sql, statement);
    }
    // bind() with an empty array still clears earlier bindings, so stale values never leak in.
    statement.bind((params ?? []) as SqlValue[]);
    return statement;
  }

  private evictOldest(): void {
    const oldest = this.statements.entries().next();
    if (oldest.done) return;
    oldest.value[1].free();
    this.statements.delete(oldest.value[0]);
  }
}
