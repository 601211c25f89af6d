/**
 * The engine's `Reader` and `Tx` on PostgreSQL (pgStore.ts). Each statement is translated from the
 * engine's SQL (dialect.ts). Inside a write, what the engine does not need an answer to waits and
 * goes with the next statement that it does need one from, pipelined in one round trip
 * (syncClient.ts `batch`): the transaction's BEGIN, and the rows it only appends (`append`: audit
 * rows, messages, heartbeats). A claim through the front door so costs four round trips, not eleven
 * (issue 29). The statements still run on the server one after another, in the order the engine
 * gave them, so every read sees the transaction's own writes; one that fails fails the transaction
 * as it would have at once (an error makes the server refuse the rest), named in the error.
 */
import type { Reader, Row, SqlValue, Tx } from '../../engine/ports';
import { toPostgres } from './dialect';
import { PgError, type PgStatement, type SyncPgClient } from './syncClient';

/** PRAGMAs tune SQLite alone (retention's free-page accounting): on PostgreSQL they read nothing and do nothing. */
const pragma = /^\s*PRAGMA\b/i;

/** The engine's statements are a few hundred constant texts: each is translated once. */
const translations = new Map<string, string>();
const maxTranslations = 2_000;

function translated(sql: string): string {
  const known = translations.get(sql);
  if (known !== undefined) return known;
  const text = toPostgres(sql);
  if (translations.size < maxTranslations) translations.set(sql, text);
  return text;
}

/** A refusal names the statement (its text, never its values). */
function naming(error: unknown, statements: readonly PgStatement[]): unknown {
  if (!(error instanceof PgError) || error.unreachable) return error;
  const sql = statements[error.statement]?.sql ?? '';
  return new PgError(`${error.message} (in: ${sql.replace(/\s+/g, ' ').slice(0, 300)})`, error.code, false, error.statement);
}

/** Runs one of the engine's statements outside a write. */
function query<T extends object>(client: SyncPgClient, sql: string, params: readonly SqlValue[]): { rows: T[]; rowCount: number } {
  const statement = { sql: translated(sql), params };
  try {
    return client.query<T>(statement.sql, statement.params);
  } catch (error) {
    throw naming(error, [statement]);
  }
}

export class PgReader implements Reader {
  constructor(protected readonly client: SyncPgClient) {}

  get<T extends object = Row>(sql: string, params?: readonly SqlValue[]): T | undefined {
    return this.all<T>(sql, params)[0];
  }

  all<T extends object = Row>(sql: string, params: readonly SqlValue[] = []): T[] {
    if (pragma.test(sql)) return [];
    return query<T>(this.client, sql, params).rows;
  }
}

export class PgTx extends PgReader implements Tx {
  /** Whether a statement changed a row: only then do the other owners hear of the write. */
  changedAny = false;
  /** Whether anything reached the server: if not, giving up the write needs no ROLLBACK. */
  private sent = false;
  private held: PgStatement[];

  constructor(client: SyncPgClient, begin: string) {
    super(client);
    this.held = [{ sql: begin, params: [] }];
  }

  override all<T extends object = Row>(sql: string, params: readonly SqlValue[] = []): T[] {
    if (pragma.test(sql)) return [];
    return this.send(sql, params).rows as T[];
  }

  run(sql: string, params: readonly SqlValue[] = []): number {
    if (pragma.test(sql)) return 0;
    const count = this.send(sql, params).rowCount;
    if (count > 0) this.changedAny = true;
    return count;
  }

  returning<T extends object = Row>(sql: string, params?: readonly SqlValue[]): T[] {
    const rows = this.all<T>(sql, params);
    if (rows.length > 0) this.changedAny = true;
    return rows;
  }

  /** Held until the next statement or the commit; taken for a change (it appends a row). */
  append(sql: string, params: readonly SqlValue[] = []): void {
    if (pragma.test(sql)) return;
    this.held.push({ sql: translated(sql), params });
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

  private send(sql: string, params: readonly SqlValue[]): { rows: Record<string, unknown>[]; rowCount: number } {
    const [answer] = this.flush([{ sql: translated(sql), params }]);
    if (!answer) throw new Error('bug: a statement sent got no answer');
    return answer;
  }
}
