import type { SqlValue } from '../ports';

/** Further columns for a guarded state UPDATE. Names come from code, never from input. */
export type ColumnValues = Readonly<Record<string, SqlValue>>;

const columnName = /^[a-z_]+$/;

/**
 * `, a = ?, b = ?` for the columns of `set`, with their values in the same order. The names are
 * checked because they are spliced into the statement; a bad one is a bug, not a user error.
 */
export function setClause(set: ColumnValues | undefined): { sql: string; params: SqlValue[] } {
  const entries = Object.entries(set ?? {});
  for (const [name] of entries) {
    if (!columnName.test(name)) throw new Error(`bug: invalid column name ${name}`);
  }
  return { sql: entries.map(([name]) => `, ${name} = ?`).join(''), params: entries.map(([, value]) => value) };
}
