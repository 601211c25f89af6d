import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Connection } from '../../../src/infra/db/connection';
import type { JournalRecord } from '../../../src/infra/db/journalFormat';
import { applyMigrations } from '../../../src/infra/db/migrator';
import type { Migration } from '../../../src/infra/db/migrations/index';
import { loadSqlJs } from '../../../src/infra/db/sqlJsModule';
import { configure, replay } from '../../../src/infra/db/storeLoader';

const migrations: Migration[] = [
  { version: 1, sql: `CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT) STRICT; CREATE TABLE items (n INTEGER PRIMARY KEY) STRICT;` },
  { version: 2, sql: `ALTER TABLE items ADD COLUMN label TEXT;` },
];

function insert(seq: number, schema = 1): JournalRecord {
  const stmts: JournalRecord['stmts'] =
    schema === 1 ? [['INSERT INTO items (n) VALUES (?)', [seq]]] : [['INSERT INTO items (n, label) VALUES (?, ?)', [seq, `item ${seq}`]]];
  return { seq, ts: 0, schema, stmts };
}

async function database(): Promise<Connection> {
  const SQL = await loadSqlJs();
  const connection = new Connection(new SQL.Database());
  configure(connection);
  applyMigrations(connection, migrations, 1);
  return connection;
}

describe('replay', () => {
  it('applies every newer record, migrating where a record says so, and keeps the rollback journal afterwards', async () => {
    const connection = await database();
    try {
      const records = [insert(1), insert(2), insert(3), ...Array.from({ length: 1200 }, (_, i) => insert(4 + i, 2))];
      assert.equal(replay(connection, records, 1, migrations), 1203);
      assert.deepEqual(connection.get('SELECT count(*) AS n, min(n) AS first, max(label) IS NOT NULL AS labelled FROM items'), {
        n: 1202,
        first: 2,
        labelled: 1,
      });
      assert.equal(connection.scalar('PRAGMA journal_mode'), 'memory');
      // The rollback journal is back: a transaction that fails is undone.
      connection.exec('BEGIN');
      connection.run('INSERT INTO items (n) VALUES (?)', [100_000]);
      connection.exec('ROLLBACK');
      assert.equal(connection.get('SELECT count(*) AS n FROM items WHERE n = 100000')?.n, 0);
    } finally {
      connection.close();
    }
  });

  it('names the record whose statement fails', async () => {
    const connection = await database();
    try {
      assert.throws(
        () =>
          replay(connection, [insert(1), insert(2), { ...insert(3), stmts: [['INSERT INTO items (n) VALUES (?)', [2]]] }], 0, migrations),
        {
          message: /replaying journal record 3 failed: UNIQUE constraint failed/,
        },
      );
    } finally {
      connection.close();
    }
  });
});
