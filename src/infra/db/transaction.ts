/**
 * The Reader and Tx handed to `Store.read` and `Store.write` callbacks. The Tx records every write
 * statement for the journal; the Reader proves it wrote nothing, because a change that bypasses
 * the journal would silently vanish at the next load.
 */
import { type FileSpace, type Reader, type Row, type Sql, type SqlValue, type Tx, sqlText } from '../../engine/ports';
import type { Connection } from './connection';
import type { JournalStatement } from './journalFormat';
import { StoreError } from './storeError';

// Transaction control inside a Tx would split or end the store's own transaction.
const transactionControl = /^\s*(BEGIN|COMMIT|END|ROLLBACK|SAVEPOINT|RELEASE)\b/i;
// Statements that can change the database without a row change the update hook would see.
const notPlainData = /^\s*(CREATE|DROP|ALTER|PRAGMA|VACUUM|REINDEX|ANALYZE|ATTACH|DETACH)\b/i;

export class GuardedReader implements Reader {
  constructor(protected readonly connection: Connection) {}

  get<T extends object = Row>(statement: Sql, params?: readonly SqlValue[]): T | undefined {
    const sql = sqlText(statement, 'sqlite');
    const before = this.connection.changes;
    const row = this.connection.get<T>(sql, params);
    this.assertUnchanged(before, sql);
    return row;
  }

  all<T extends object = Row>(statement: Sql, params?: readonly SqlValue[]): T[] {
    const sql = sqlText(statement, 'sqlite');
    const before = this.connection.changes;
    const rows = this.connection.all<T>(sql, params);
    this.assertUnchanged(before, sql);
    return rows;
  }

  private assertUnchanged(before: number, sql: string): void {
    if (this.connection.changes !== before) {
      throw new StoreError('misuse', `A Reader statement changed rows, which bypasses the journal; use Tx.run inside Store.write: ${sql}`);
    }
  }
}

/** Valid only while its `Store.write` callback runs. */
export class Transaction extends GuardedReader implements Tx {
  /** The write statements executed, in order, for the journal record. */
  readonly statements: JournalStatement[] = [];
  /** True when a statement may have changed the schema or settings; such a record is never skipped. */
  private structural = false;
  private readonly changesAtStart: number;
  private open = true;

  constructor(connection: Connection) {
    super(connection);
    this.changesAtStart = connection.changes;
  }

  override get<T extends object = Row>(sql: Sql, params?: readonly SqlValue[]): T | undefined {
    this.assertOpen();
    return super.get<T>(sql, params);
  }

  override all<T extends object = Row>(sql: Sql, params?: readonly SqlValue[]): T[] {
    this.assertOpen();
    return super.all<T>(sql, params);
  }

  run(statement: Sql, params?: readonly SqlValue[]): number {
    const sql = sqlText(statement, 'sqlite');
    this.assertWritable(sql);
    const changed = this.connection.run(sql, params);
    this.record(sql, params);
    return changed;
  }

  returning<T extends object = Row>(statement: Sql, params?: readonly SqlValue[]): T[] {
    const sql = sqlText(statement, 'sqlite');
    this.assertWritable(sql);
    const rows = this.connection.all<T>(sql, params);
    this.record(sql, params);
    return rows;
  }

  /** SQLite's pages, read and given back through its PRAGMAs (the give-back is journalled as a structural record). */
  readonly fileSpace: FileSpace = {
    pages: () => ({
      free: Number(this.get<{ freelist_count: number }>('PRAGMA freelist_count')?.freelist_count ?? 0),
      total: Number(this.get<{ page_count: number }>('PRAGMA page_count')?.page_count ?? 0),
    }),
    reclaim: () => {
      this.run('PRAGMA incremental_vacuum');
    },
  };

  /**
   * False when replaying the statements would do nothing: no row of any table changed (the update
   * hook sees trigger and foreign-key changes too) and nothing structural ran. Then no journal
   * record, and no fsync, is needed; a claim that found no task costs no disk write.
   */
  get changedAnything(): boolean {
    return this.structural || this.connection.changes !== this.changesAtStart;
  }

  close(): void {
    this.open = false;
  }

  private record(sql: string, params: readonly SqlValue[] | undefined): void {
    // A copy: the caller may reuse its array after the write returns.
    this.statements.push([sql, params ? params.slice() : []]);
    if (notPlainData.test(sql)) this.structural = true;
  }

  private assertWritable(sql: string): void {
    this.assertOpen();
    if (transactionControl.test(sql)) {
      throw new StoreError(
        'misuse',
        `Store.write manages the transaction itself; do not run '${sql.trim().split(/\s+/)[0] ?? ''}' in a Tx.`,
      );
    }
  }

  private assertOpen(): void {
    if (!this.open) throw new StoreError('misuse', 'This Tx belongs to a Store.write that has already returned.');
  }
}
