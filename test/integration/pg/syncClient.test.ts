/**
 * The synchronous PostgreSQL client (src/infra/pg/syncClient.ts) against a real server started for
 * the test (test/support/postgres.ts): statements and their errors, transactions across calls, a
 * server that stops and comes back, and a statement that outlives its timeout. Claims from several
 * processes at once: pgStore.test.ts (the engine's statement) and bench/pgClaims.bench.ts.
 */
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PgError, SyncPgClient } from '../../../src/infra/pg/syncClient';
import { type TestPostgres, startPostgres } from '../../support/postgres';

let server: TestPostgres;
const clients: SyncPgClient[] = [];
function connect(options?: ConstructorParameters<typeof SyncPgClient>[1]): SyncPgClient {
  const client = new SyncPgClient(server.url, options);
  clients.push(client);
  return client;
}

before(async () => {
  server = await startPostgres();
});
after(async () => {
  for (const client of clients) client.close();
  await server?.stop();
});

describe('SyncPgClient', () => {
  it('runs statements with parameters and answers rows, synchronously', () => {
    const client = connect();
    client.query('CREATE TABLE notes (id serial PRIMARY KEY, body text, blob bytea, n integer)');
    const inserted = client.query<{ id: number }>('INSERT INTO notes (body, blob, n) VALUES ($1, $2, $3), ($4, NULL, NULL) RETURNING id', [
      'first',
      new Uint8Array([1, 2, 3]),
      42,
      "it's second",
    ]);
    assert.deepEqual(
      inserted.rows.map((row) => row.id),
      [1, 2],
    );
    const { rows } = client.query<{ body: string; blob: Buffer | null; n: number | null }>('SELECT body, blob, n FROM notes ORDER BY id');
    assert.deepEqual(rows[0]?.body, 'first');
    assert.deepEqual([...(rows[0]?.blob ?? [])], [1, 2, 3]);
    assert.equal(rows[0]?.n, 42);
    assert.deepEqual(rows[1], { body: "it's second", blob: null, n: null });
  });

  it('answers a batch in order, and an answer longer than its shared memory as well as a short one after it', () => {
    const client = connect();
    const answers = client.batch([
      { sql: 'SELECT $1::int AS n', params: [1] },
      { sql: 'SELECT repeat($1::text, $2::int) AS long', params: ['ab', 300_000] },
      { sql: 'SELECT $1::bytea AS blob', params: [new Uint8Array([7, 8])] },
    ]);
    assert.equal(answers[0]?.rows[0]?.['n'], 1);
    assert.equal((answers[1]?.rows[0]?.['long'] as string).length, 600_000, 'past the 256 KiB of shared memory: posted instead');
    assert.deepEqual([...(answers[2]?.rows[0]?.['blob'] as Uint8Array)], [7, 8]);
    assert.equal(client.query<{ n: number }>('SELECT 2 AS n').rows[0]?.n, 2, 'the next short answer comes through shared memory again');
  });

  it('runs its worker from the bundle in dist/, as a bundled owner starts it', () => {
    const workerScript = path.join(__dirname, '..', '..', '..', 'dist', 'foreman-pg.js');
    const client = connect({ workerScript });
    assert.equal(client.query<{ sum: number }>('SELECT $1::int + $2::int AS sum', [40, 2]).rows[0]?.sum, 42);
  });

  it('fails a refused statement with its SQLSTATE and goes on', () => {
    const client = connect();
    assert.throws(
      () => client.query('SELEC 1'),
      (error: unknown) => error instanceof PgError && error.code === '42601' && /syntax error/.test(error.message),
    );
    assert.equal(client.query<{ one: number }>('SELECT 1 AS one').rows[0]?.one, 1);
  });

  it('keeps a transaction open across calls, as the store will', () => {
    const client = connect();
    const other = connect();
    client.query('CREATE TABLE moves (id integer)');
    client.query('BEGIN');
    client.query('INSERT INTO moves VALUES (1)');
    assert.equal(other.query('SELECT count(*)::int AS n FROM moves').rows[0]?.n, 0, 'not visible before COMMIT');
    client.query('ROLLBACK');
    client.query('BEGIN');
    client.query('INSERT INTO moves VALUES (2)');
    client.query('COMMIT');
    assert.deepEqual(
      other.query<{ id: number }>('SELECT id FROM moves').rows.map((row) => row.id),
      [2],
    );
  });

  it('abandons a statement that outlives its timeout, and its transaction is rolled back', () => {
    const client = connect({ statementTimeoutMs: 2_000 });
    client.query('CREATE TABLE slow (id integer)');
    client.query('BEGIN');
    client.query('INSERT INTO slow VALUES (1)');
    const started = Date.now();
    assert.throws(
      () => client.query('SELECT pg_sleep(8)'),
      (error: unknown) => error instanceof PgError && error.code === 'timeout' && /did not answer within 2000 ms/.test(error.message),
    );
    assert.ok(Date.now() - started < 6_000, 'the caller was not held for the whole statement');
    assert.equal(client.query('SELECT count(*)::int AS n FROM slow').rows[0]?.n, 0, 'a new connection; the insert was rolled back');
  });

  it('says which server it could not reach, without the password, and reconnects when it is back', async () => {
    const client = connect({ statementTimeoutMs: 8_000, connectTimeoutMs: 2_000 });
    client.query('SELECT 1');
    await server.stopServer();
    let failure: unknown;
    try {
      client.query('SELECT 1');
    } catch (error) {
      failure = error;
    }
    assert.ok(failure instanceof PgError, `expected a PgError, got ${String(failure)}`);
    assert.ok(!failure.message.includes(server.password), 'the password is not in the message');
    assert.equal(failure.unreachable, true);
    assert.ok(failure.message.includes(`PostgreSQL at postgres://127.0.0.1:${server.port}/postgres`), failure.message);
    assert.match(failure.message, /Check that the server is running/);
    await server.start();
    assert.equal(client.query<{ one: number }>('SELECT 1 AS one').rows[0]?.one, 1);
  });
});
