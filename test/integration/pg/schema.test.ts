/**
 * PostgreSQL's schema, written by hand (src/infra/pg/pgSchema.ts), against SQLite's migrations
 * (src/infra/db/migrations/): the same tables, columns, nullability and indexes, in each store's
 * types (SQLite's INTEGER is BIGINT, REAL DOUBLE PRECISION, TEXT text).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SqlJsStore } from '../../../src/infra/db';
import { PgStore } from '../../../src/infra/pg/pgStore';
import { postgresPerFile } from '../../support/postgresPerFile';

const pg = postgresPerFile('schema');

const pgType: Record<string, string> = { INTEGER: 'bigint', REAL: 'double precision', TEXT: 'text' };

describe('the PostgreSQL schema', () => {
  it("has SQLite's tables, columns, nullability and indexes", async () => {
    const lite = await SqlJsStore.openInMemory();
    const expected = lite.read((reader) => {
      const tables = reader.all<{ name: string }>(
        `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`,
      );
      const columns = tables.flatMap(({ name }) =>
        reader
          .all<{ name: string; type: string; notnull: number; pk: number }>(`SELECT * FROM pragma_table_info(?)`, [name])
          .map((column) => `${name}.${column.name} ${pgType[column.type] ?? column.type}${column.notnull || column.pk ? ' not null' : ''}`),
      );
      const indexes = reader
        .all<{ name: string }>(`SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name`)
        .map((index) => index.name);
      return { columns: columns.sort(), indexes };
    });
    lite.close();

    const store = PgStore.open(pg.database());
    pg.closeAfter(() => store.close());
    const actual = store.read((reader) => {
      const columns = reader
        .all<{ table_name: string; column_name: string; data_type: string; is_nullable: string }>(
          `SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns WHERE table_schema = 'public'`,
        )
        .map((c) => `${c.table_name}.${c.column_name} ${c.data_type}${c.is_nullable === 'NO' ? ' not null' : ''}`);
      const indexes = reader
        .all<{ indexname: string }>(
          `SELECT indexname FROM pg_indexes WHERE schemaname = 'public' AND indexname NOT LIKE '%_pkey' AND indexname NOT LIKE '%_key' ORDER BY indexname`,
        )
        .map((index) => index.indexname);
      return { columns: columns.sort(), indexes };
    });
    assert.ok(expected.columns.length > 50 && expected.indexes.length > 10, 'the schema was read');
    assert.deepEqual(actual.columns, expected.columns);
    assert.deepEqual(actual.indexes, expected.indexes);
  });
});
