/** PostgreSQL's spelling of the engine's parameters (src/infra/pg/placeholders.ts), and only that. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sqlText } from '../../src/engine/ports';
import { numberedParameters } from '../../src/infra/pg/placeholders';
import { pgSchema } from '../../src/infra/pg/pgSchema';
import { migrations } from '../../src/infra/db/migrations/index';

describe('numberedParameters', () => {
  it('numbers parameters, bare and numbered, and leaves quoted question marks alone', () => {
    assert.equal(
      numberedParameters(`SELECT * FROM t WHERE a = ? AND b = '?' AND "c?" = ? -- ?`),
      `SELECT * FROM t WHERE a = $1 AND b = '?' AND "c?" = $2 -- ?`,
    );
    assert.equal(numberedParameters('SELECT ?1, ?1, ?2'), 'SELECT $1, $1, $2');
    assert.equal(numberedParameters(`SELECT ?2, ? /* ? */, 'it''s ?'`), `SELECT $2, $3 /* ? */, 'it''s ?'`);
  });

  it('changes nothing else: SQLite spellings reach the server as written', () => {
    const text = 'SELECT MAX(a, b) FROM t INDEXED BY t_ts WHERE x IS y AND id IN (SELECT value FROM json_each(?))';
    assert.equal(numberedParameters(text), text.replace('?', '$1'));
  });
});

describe('sqlText', () => {
  it("picks the backend's own text and refuses a statement written for the other one only", () => {
    assert.equal(sqlText('SELECT 1', 'postgres'), 'SELECT 1');
    assert.equal(sqlText({ sqlite: 'A', postgres: 'B' }, 'sqlite'), 'A');
    assert.equal(sqlText({ sqlite: 'A', postgres: 'B' }, 'postgres'), 'B');
    assert.throws(() => sqlText({ postgres: 'WITH claimed AS (…) SELECT 1' }, 'sqlite'), /no sqlite text.*WITH claimed/);
  });
});

describe('pgSchema', () => {
  it('has a PostgreSQL text for every SQLite migration, and no more', () => {
    assert.deepEqual(
      [...pgSchema.keys()],
      migrations.map((migration) => migration.version),
    );
  });
});
