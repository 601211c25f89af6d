import assert from 'node:assert/strict';
import * as fs from 'node:fs';
// The module object itself (not a namespace copy), so that a mock reaches the store's calls too.
import nodeFs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { ok, refused } from '../../../src/core/result';
import { nextRunnableIdSql } from '../../../src/engine/queries/taskQueue';
import { SqlJsStore, StoreError, migrations } from '../../../src/infra/db/index';
import { readAckFile } from '../../../src/infra/db/ackFile';
import { storeFailure } from '../../../src/infra/db/storeError';
import { scanJournal } from '../../../src/infra/db/journalFormat';
import { collectLog, copyOf, insertTask, tempForemanDir } from './helpers';

function taskIds(store: SqlJsStore): string[] {
  return store.read((reader) => reader.all<{ id: string }>('SELECT id FROM tasks ORDER BY id').map((row) => row.id));
}

function journalSize(dir: string): number {
  return fs.statSync(path.join(dir, 'foreman.journal')).size;
}

describe('SqlJsStore', () => {
  it('creates a new database with its .gitignore, and writes and reads', async () => {
    const dir = tempForemanDir();
    const store = await SqlJsStore.open(dir);
    assert.equal(fs.readFileSync(path.join(dir, '.gitignore'), 'utf8').trim(), '*');
    assert.ok(fs.existsSync(path.join(dir, 'foreman.db')));
    assert.deepEqual(store.write(insertTask('a')), ok(1));
    assert.deepEqual(taskIds(store), ['a']);
    const claimed = store.write((tx) =>
      ok(tx.returning<{ id: string }>(`UPDATE tasks SET status = 'running' WHERE id = ? RETURNING id`, ['a'])),
    );
    assert.deepEqual(claimed, ok([{ id: 'a' }]));
    store.close();
  });

  it('rolls back a failure result and an exception, and journals neither', async () => {
    const dir = tempForemanDir();
    const store = await SqlJsStore.open(dir);
    const before = journalSize(dir);
    const failure = store.write((tx) => {
      insertTask('a')(tx);
      return refused('nope', 'Refused for the test.');
    });
    assert.equal(failure.ok, false);
    assert.throws(
      () =>
        store.write((tx) => {
          insertTask('b')(tx);
          throw new Error('boom');
        }),
      /boom/,
    );
    assert.throws(
      () =>
        store.write((tx) => {
          insertTask('c')(tx);
          return insertTask('c')(tx); // primary key violation
        }),
      /UNIQUE/,
    );
    assert.deepEqual(taskIds(store), []);
    assert.equal(journalSize(dir), before);
    store.close();
  });

  it('journals nothing for a write that changed no row', async () => {
    const dir = tempForemanDir();
    const store = await SqlJsStore.open(dir);
    const before = journalSize(dir);
    const result = store.write((tx) => ok(tx.run(`UPDATE tasks SET status = 'running' WHERE id = 'missing'`)));
    assert.deepEqual(result, ok(0));
    assert.equal(journalSize(dir), before);
    store.close();
  });

  it('refuses a write inside a write, transaction control in a Tx, and a Reader that writes', async () => {
    const store = await SqlJsStore.open(tempForemanDir());
    assert.throws(
      () => store.write(() => store.write(insertTask('a'))),
      (error: unknown) => error instanceof StoreError && error.code === 'misuse',
    );
    assert.throws(() => store.write((tx) => ok(tx.run('COMMIT'))), /manages the transaction/);
    assert.throws(
      () =>
        store.write((tx) => {
          insertTask('z')(tx);
          return ok(tx.get(`UPDATE tasks SET title = 'x' RETURNING id`));
        }),
      /Reader statement changed rows/,
    );
    assert.deepEqual(store.write(insertTask('b')), ok(1), 'the store is still usable');
    assert.deepEqual(taskIds(store), ['b']);
    store.close();
  });

  it('stops after a Reader outside a write changed rows, since that change escaped the journal', async () => {
    const store = await SqlJsStore.open(tempForemanDir());
    store.write(insertTask('a'));
    assert.throws(() => store.read((reader) => reader.get(`UPDATE tasks SET title = 'x' RETURNING id`)), /Reader statement changed rows/);
    assert.throws(
      () => store.write(insertTask('b')),
      (error: unknown) => error instanceof StoreError && error.code === 'broken',
    );
    store.close();
  });

  it('reopens after close from the image alone', async () => {
    const dir = tempForemanDir();
    const store = await SqlJsStore.open(dir);
    store.write(insertTask('a'));
    store.write(insertTask('b'), { durable: false });
    store.close();
    // The new segment holds its statement table (journalFormat.ts), and no record.
    assert.equal(scanJournal(fs.readFileSync(path.join(dir, 'foreman.journal'))).records.length, 0);
    const reopened = await SqlJsStore.open(dir);
    assert.deepEqual(taskIds(reopened), ['a', 'b']);
    reopened.close();
  });

  it('asks a durability function once the work succeeded, and acknowledges only the writes it calls durable', async () => {
    const dir = tempForemanDir();
    const store = await SqlJsStore.open(dir);
    const asked: string[] = [];
    const durableIf = (id: string, answer: boolean) => () => {
      asked.push(id);
      return answer;
    };
    store.write(insertTask('a'), { durable: durableIf('a', false) });
    assert.deepEqual(readAckFile(dir), { kind: 'seq', seq: 0, canonical: true }, 'a write it calls not durable is not acknowledged');
    store.write(() => refused('no', 'refused'), { durable: durableIf('refused', true) });
    store.write(insertTask('b'), { durable: durableIf('b', true) });
    assert.deepEqual(readAckFile(dir), { kind: 'seq', seq: 2, canonical: true }, 'the durable write acknowledges both');
    assert.deepEqual(asked, ['a', 'b'], 'a refused write is not asked');
    store.close();
  });

  it('reopens without close by replaying the journal, across a checkpoint', async () => {
    const dir = tempForemanDir();
    const store = await SqlJsStore.open(dir);
    store.write(insertTask('a'));
    assert.deepEqual(taskIds(await SqlJsStore.open(copyOf(dir))), ['a']);
    store.checkpoint();
    store.write(insertTask('b'));
    store.write(insertTask('c'), { durable: false });
    const copy = copyOf(dir);
    assert.deepEqual(
      scanJournal(fs.readFileSync(path.join(copy, 'foreman.journal'))).records.map((r) => r.seq),
      [2, 3],
    );
    const reopened = await SqlJsStore.open(copy);
    assert.deepEqual(taskIds(reopened), ['a', 'b', 'c']);
    reopened.write(insertTask('d'));
    reopened.close();
    assert.deepEqual(taskIds(await SqlJsStore.open(copy)), ['a', 'b', 'c', 'd']);
    store.close();
  });

  it('checkpoints by itself once the journal passes checkpointBytes, keeping the backups asked for', async () => {
    const dir = tempForemanDir();
    const store = await SqlJsStore.open(dir, { checkpointBytes: 2000, backups: 1 });
    for (let i = 0; i < 40; i++) {
      store.write(insertTask(`t${String(i).padStart(2, '0')}`, i));
      // The owner answers between requests; a checkpoint writes its image in those gaps.
      await store.whenIdle();
    }
    assert.ok(journalSize(dir) <= 2300, `journal is ${journalSize(dir)} bytes`);
    const names = fs.readdirSync(dir).sort();
    // Past half way to the next checkpoint the next segment is prepared ahead: present, and empty.
    const prepared = names.includes('foreman.journal.next');
    if (prepared) assert.equal(fs.statSync(path.join(dir, 'foreman.journal.next')).size, 0);
    assert.deepEqual(
      names.filter((name) => name.startsWith('foreman.') && name !== 'foreman.journal.next'),
      ['foreman.ack', 'foreman.db', 'foreman.db.1', 'foreman.journal', 'foreman.journal.1'],
    );
    const reopened = await SqlJsStore.open(copyOf(dir));
    assert.equal(taskIds(reopened).length, 40);
    const seq = reopened.read((reader) => reader.get<{ value: string }>(`SELECT value FROM meta WHERE key = 'journal_seq'`));
    assert.ok(Number(seq?.value) > 0);
    reopened.close();
    store.close();
  });

  it('keeps foreign keys on and the rollback journal in memory across export', async () => {
    const store = await SqlJsStore.open(tempForemanDir());
    store.checkpoint();
    const pragmas = store.read((reader) => [reader.get('PRAGMA foreign_keys'), reader.get('PRAGMA journal_mode')]);
    assert.deepEqual(pragmas, [{ foreign_keys: 1 }, { journal_mode: 'memory' }]);
    assert.throws(
      () =>
        store.write((tx) =>
          ok(
            tx.run(
              `INSERT INTO tasks (id, title, status, sort_order, created_at, parent_task_id) VALUES ('x', 'X', 'queued', 1, 1, 'nobody')`,
            ),
          ),
        ),
      /FOREIGN KEY/,
    );
    store.close();
  });

  it('round-trips Uint8Array parameters through the journal', async () => {
    const dir = tempForemanDir();
    const store = await SqlJsStore.open(dir);
    const bytes = new Uint8Array(300).map((_, i) => (i * 7) % 256);
    store.write((tx) => ok(tx.run(`INSERT INTO meta (key, value) VALUES ('blob', ?)`, [bytes])));
    const reopened = await SqlJsStore.open(copyOf(dir));
    const row = reopened.read((reader) => reader.get<{ value: Uint8Array }>(`SELECT value FROM meta WHERE key = 'blob'`));
    assert.ok(row?.value instanceof Uint8Array);
    assert.deepEqual([...row.value], [...bytes]);
    reopened.close();
    store.close();
  });

  it('applies pending migrations in order, records schema_version, and checkpoints them', async () => {
    const dir = tempForemanDir();
    const store = await SqlJsStore.open(dir, { migrations: migrations.slice(0, 1) });
    assert.equal(store.schemaVersion, 1);
    store.write(insertTask('a'));
    store.close();
    const latest = migrations.length + 1;
    const upgraded = [...migrations, { version: latest, sql: 'CREATE TABLE notes (id TEXT PRIMARY KEY, body TEXT NOT NULL);' }];
    const { lines, log } = collectLog();
    const migrated = await SqlJsStore.open(dir, { migrations: upgraded, log });
    assert.equal(migrated.schemaVersion, latest);
    assert.deepEqual(
      migrated.read((reader) => reader.get(`SELECT value FROM meta WHERE key = 'schema_version'`)),
      { value: String(latest) },
    );
    assert.ok(
      lines.some((line) => line.includes(`schema version ${latest}`)),
      lines.join('\n'),
    );
    migrated.write((tx) => ok(tx.run(`INSERT INTO notes (id, body) VALUES ('n', 'hello')`)));
    // Without close: the migration must already be in the image, the insert in the journal.
    const copy = await SqlJsStore.open(copyOf(dir), { migrations: upgraded });
    assert.deepEqual(
      copy.read((reader) => reader.all('SELECT id, body FROM notes')),
      [{ id: 'n', body: 'hello' }],
    );
    assert.deepEqual(taskIds(copy), ['a']);
    copy.close();
    migrated.close();
  });

  it('lets the claim use the picker index for unscheduled tasks and tasks_scheduled for due ones (schema version 7)', async () => {
    const store = await SqlJsStore.open(tempForemanDir());
    const plan = store.read((reader) => reader.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${nextRunnableIdSql.sqlite}`, [0]));
    const searches = plan.map((row) => row.detail).filter((detail) => detail.includes('tasks'));
    assert.deepEqual(searches, [
      'SEARCH tasks USING INDEX tasks_runnable (status=?)',
      'SEARCH tasks USING INDEX tasks_scheduled (status=? AND scheduled_for>? AND scheduled_for<?)',
    ]);
    store.close();
  });

  it('refuses a database from a newer schema, and changes nothing', async () => {
    const dir = tempForemanDir();
    const store = await SqlJsStore.open(dir);
    store.write((tx) => ok(tx.run(`UPDATE meta SET value = '99' WHERE key = 'schema_version'`)));
    store.close();
    const before = fs.readFileSync(path.join(dir, 'foreman.db'));
    await assert.rejects(
      SqlJsStore.open(dir),
      (error: unknown) =>
        error instanceof StoreError &&
        error.code === 'newerSchema' &&
        /schema version 99/.test(error.message) &&
        /foreman\.db/.test(error.message),
    );
    assert.ok(fs.readFileSync(path.join(dir, 'foreman.db')).equals(before));
  });

  it('a journal append that fails (writeSync) is cut back: that write is refused, the store goes on', async (t) => {
    const dir = tempForemanDir();
    const { lines, log } = collectLog();
    const store = await SqlJsStore.open(dir, { log });
    store.write(insertTask('a'));
    const failure = Object.assign(new Error('EIO: i/o error'), { code: 'EIO' });
    const mocked = t.mock.method(nodeFs, 'writeSync', () => {
      throw failure;
    });
    assert.throws(
      () => store.write(insertTask('b')),
      (error: unknown) => error instanceof StoreError && error.code === 'notSaved' && /not saved.*EIO/.test(error.message),
    );
    mocked.mock.restore();
    assert.deepEqual(taskIds(store), ['a'], 'the refused write is rolled back in memory too');
    store.write(insertTask('c'));
    store.close();
    assert.deepEqual(lines, []);
    const reopened = await SqlJsStore.open(dir);
    assert.deepEqual(taskIds(reopened), ['a', 'c']);
    reopened.close();
  });

  it('a failed journal fsync is fatal: the write is "outcome unknown", the store takes nothing more, the next open has it', async (t) => {
    const dir = tempForemanDir();
    const { lines, log } = collectLog();
    const broken: string[] = [];
    const store = await SqlJsStore.open(dir, { log, onBroken: (reason) => broken.push(reason) });
    store.write(insertTask('a'));
    const failure = Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' });
    const mocked = t.mock.method(nodeFs, 'fsyncSync', () => {
      throw failure;
    });
    assert.throws(
      () => store.write(insertTask('b')),
      (error: unknown) =>
        error instanceof StoreError &&
        error.code === 'outcomeUnknown' &&
        /cannot tell whether this change was saved/.test(error.message) &&
        /fsync of .*foreman\.journal failed/.test(error.message) &&
        /look .* before repeating it/.test(error.message),
    );
    mocked.mock.restore();
    assert.equal(broken.length, 1, 'the owner hears once that the store broke');
    assert.match(broken[0] ?? '', /EIO/);
    // Neither a read nor a write: whatever is answered now would be built on an unknown.
    for (const use of [() => store.read(() => 1), () => store.write(insertTask('c'))]) {
      assert.throws(use, (error: unknown) => {
        const refusal = storeFailure(error);
        return refusal?.code === 'storeBroken' && /reopen it/.test(refusal.message);
      });
    }
    assert.ok(lines.some((line) => /Store is unusable: fsync of/.test(line)));
    store.close(); // no checkpoint: the store is broken
    const reopened = await SqlJsStore.open(dir);
    // The record was written before its fsync failed (here the data did reach the file): the next
    // open replays it. "Unknown" was the truthful answer; "not done" would have been a lie.
    assert.deepEqual(taskIds(reopened), ['a', 'b']);
    reopened.close();
  });

  it('a group whose fsync fails answers every waiter "outcome unknown", and what was written is found at the next open', async (t) => {
    const dir = tempForemanDir();
    const broken: string[] = [];
    const store = await SqlJsStore.open(dir, { onBroken: (reason) => broken.push(reason) });
    store.write(insertTask('a'));
    store.savingLater(() => {
      store.write(insertTask('b'));
      store.write(insertTask('c'));
    });
    const waiters = [store.whenSaved(), store.whenSaved()];
    const failure = Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' });
    // The group's fsync runs on the thread pool (`fs.fsync`, issue 34): it fails in its callback.
    const mocked = t.mock.method(nodeFs, 'fsync', (_fd: number, callback: (error: Error) => void) => {
      setImmediate(() => callback(failure));
    });
    for (const waiter of waiters) {
      await assert.rejects(waiter, (error: unknown) => error instanceof StoreError && error.code === 'outcomeUnknown');
    }
    mocked.mock.restore();
    assert.equal(broken.length, 1);
    // A waiter that comes later hears the same, never "not done".
    await assert.rejects(store.whenSaved(), (error: unknown) => error instanceof StoreError && error.code === 'outcomeUnknown');
    assert.throws(
      () => store.write(insertTask('d')),
      (error: unknown) => error instanceof StoreError && error.code === 'broken',
    );
    store.close();
    const reopened = await SqlJsStore.open(dir);
    assert.deepEqual(taskIds(reopened), ['a', 'b', 'c']);
    reopened.close();
  });

  it('refuses use after close', async () => {
    const store = await SqlJsStore.open(tempForemanDir());
    store.close();
    store.close();
    assert.throws(() => store.read(() => 1), /after close/);
  });
});
