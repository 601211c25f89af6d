import type { Sql, SqlValue, Tx } from '../ports';

/**
 * A write whose outcome the engine does not read: held for the next statement where the store can
 * (`Tx.append`, PostgreSQL's pipeline), run at once where it cannot (sql.js, where a statement
 * costs no round trip).
 */
export function appendRow(tx: Tx, sql: Sql, params: readonly SqlValue[]): void {
  if (tx.append) tx.append(sql, params);
  else tx.run(sql, params);
}
