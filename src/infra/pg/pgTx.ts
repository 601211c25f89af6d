/**
 * The engine's `Reader` and `Tx` on PostgreSQL (pgStore.ts). Each statement runs as its query module
 * wrote it for PostgreSQL (a `NativeSql`'s `postgres` text, or the one text both backends share),
 * with its parameters numbered (placeholders.ts). Inside a write, what the engine does not need an answer to waits and
 * goes with the next statement that it does need one from, pipelined in one round trip
 * (syncClient.ts `batch`): the transaction's BEGIN, and the rows it only appends (`append`: audit
 * rows, messages, heartbeats). A claim through the front door so costs four round trips, not eleven
 * (issue 29). The statements still run on the server one after another, in the order the engine
 * gave them, so every read sees the transaction's own writes; one that fails fails the transaction
 * as it would have at once (an error makes the server refuse the rest), named in the error.
 */
import { type Reader, type Row, type Sql, type SqlValue, type Tx, sqlText } from '../../engine/ports';
import { numberedParameters } from './placeholders';
import { PgError, type PgStatement, type SyncPgClient } from './syncClient';

/** SQLite's own statements, which PostgreSQL has no use for: refused, never passed over in silence. */
const sqliteOnly = /^\s*(PRAGMA|VACUUM)\b/i;

/** The engine's statements are a few hundred constant texts: each is numbered once. */
const numbered = new Map<string, string>();
const maxNumbered = 2_000;

/** The text PostgreSQL runs for `sql`; throws for a statement written for SQLite only. */
function postgresText(sql: Sql): string {
  const text = sqlText(sql, 'postgres');
  const known = numbered.get(text);
  if (known !== undefined) return known;
  if (sqliteOnly.test(text)) {
    throw new Error(
      `bug: '${text.trim().split(/\s+/)[0] ?? ''}' is SQLite's and means nothing to PostgreSQL; ask the store (Tx.fileSpace is null here) instead of sending it: ${text.slice(0, 200)}`,
    );
  }
  const ready = numberedParameters(text);
  if (numbered.size < maxNumbered) numbered.set(text, ready);
  return ready;
}

/** A refusal names the statement (its text, never its values). */
function naming(error: unknown, statements: readonly PgStatement[]): unknown {
  if (!(error instanceof PgError) || error.unreachable) return error;
  const sql = statements[error.statement]?.sql ?? '';
  return new PgError(`${error.message} (in: ${sql.replace(/\s+/g, ' ').slice(0, 300)})`, error.code, false, error.statement);
}

/** Runs one of the engine's statements outside a write. */
function query<T extends object>(client: SyncPgClient, sql: Sql, params: readonly SqlValue[]): { rows: T[]; rowCount: number } {
  const statement = { sql: postgresText(sql), params };
  try {
    return client.query<T>(statement.sql, statement.params);
  } catch (error) {
    throw naming(error, [statement]);
  }
}

export class PgReader implements Reader {
  constructor(protected readonly client: SyncPgClient) {}

  get<T extends object = Row>(sql: Sql, params?: readonly SqlValue[]): T | undefined {
    return this.all<T>(sql, params)[0];
  }

  all<T extends object = Row>(sql: Sql, params: readonly SqlValue[] = []): T[] {
    return query<T>(this.client, sql, params).rows;
  }
}

export class PgTx extends PgReader implements Tx {
  /** Whether a statement changed a row: only then do the other owners hear of the write. */
  changedAny = false;
  /** The server's autovacuum reclaims space; there is no file of Foreman's to give pages back from. */
  readonly fileSpace = null;
  /** Whether anything reached the server: if not, giving up the write needs no ROLLBACK. */
  private sent = false;
  private held: PgStatement[];

  constructor(client: SyncPgClient, begin: string) {
    super(client);
    this.held = [{ sql: begin, params: [] }];
  }

  override all<T extends object = Row>(sql: Sql, params: readonly SqlValue[] = []): T[] {
    return this.send(sql, params).rows as T[];
  }

  run(sql: Sql, params: readonly SqlValue[] = []): number {
    const count = this.send(sql, params).rowCount;
    if (count > 0) this.changedAny = true;
    return count;
  }

  returning<T extends object = Row>(sql: Sql, params?: readonly SqlValue[]): T[] {
    const rows = this.all<T>(sql, params);
    if (rows.length > 0) this.changedAny = true;
    return rows;
  }

  /** Held until the next statement or the commit; taken for a change (it appends a row). */
  append(sql: Sql, params: readonly SqlValue[] = []): void {
    this.held.push({ sql: postgresText(sql), params });
    this.changedAny = true;
  }

  /**
   * Sends what is held and then `statements` in one round trip; returns the answers to `statements`.
   * A failure throws (naming the statement the server refused).
   */
  flush(statements: readonly PgStatement[]): Array<{ rows: Record<string, unknown>[]; rowCount: number }> {
    const batch = [...this.held, ...statements];
    this.held = [];
    this.sent = true;
    try {
      return this.client.batch(batch).slice(batch.length - statements.length);
    } catch (error) {
      throw naming(error, batch);
    }
  }

  /** Gives up a write that reached nothing on the server yet; false when a ROLLBACK is needed. */
  discard(): boolean {
    this.held = [];
    return !this.sent;
  }

  private send(sql: Sql, params: readonly SqlValue[]): { rows: Record<string, unknown>[]; rowCount: number } {
    const [answer] = this.flush([{ sql: postgresText(sql), params }]);
    if (!answer) throw new Error('bug: a statement sent got no answer');
    return answer;
  }
}
