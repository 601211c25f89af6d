/**
 * Compact journal records (issue 34): once a store has checkpointed, each new segment begins with a
 * header holding the statements written before, and records name those by number. Journals written
 * before headers (and a new store's first segment) hold statement texts, and replay as before.
 * Real sql.js, real files; a crash is a copy of the folder taken without a close.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { ok } from '../../../src/core/result';
import { SqlJsStore } from '../../../src/infra/db/index';
import { decodeHeaderAt, scanJournal } from '../../../src/infra/db/journalFormat';
import { copyOf, insertTask, tempForemanDir } from './helpers';

function claim(id: string, at: number): Parameters<SqlJsStore['write']>[0] {
  return (tx) => ok(tx.run(`UPDATE tasks SET status = 'running', started_at = ?, attempt = attempt + 1 WHERE id = ?`, [at, id]));
}

function rows(store: SqlJsStore): unknown[] {
  return store.read((reader) => reader.all('SELECT id, status, started_at, attempt FROM tasks ORDER BY id'));
}

async function reopened(dir: string): Promise<unknown[]> {
  const store = await SqlJsStore.open(dir);
  try {
    return rows(store);
  } finally {
    store.close();
  }
}

describe('compact journal records', () => {
  it('a segment after a checkpoint numbers the statements written before, and replays after a crash', async () => {
    const dir = tempForemanDir();
    const store = await SqlJsStore.open(dir, { checkpointBytes: 2 ** 40 });
    for (let i = 0; i < 20; i++) store.write(insertTask(`t${i}`, i));
    for (let i = 0; i < 20; i++) store.write(claim(`t${i}`, 100 + i));
    const textBytes = fs.statSync(path.join(dir, 'foreman.journal')).size;
    store.checkpoint();
    for (let i = 0; i < 20; i++) store.write(claim(`t${i}`, 200 + i));
    for (let i = 20; i < 40; i++) store.write(insertTask(`t${i}`, i));

    const bytes = fs.readFileSync(path.join(dir, 'foreman.journal'));
    const header = decodeHeaderAt(bytes, 0);
    assert.ok(header, 'the segment begins with its statement table');
    assert.equal(header.table.statements.length, 2, 'both statements were written more than once');
    const scan = scanJournal(bytes);
    assert.equal(scan.records.length, 40);
    assert.deepEqual(scan.damage, []);
    assert.ok(bytes.length < textBytes * 0.7, `40 compact records take ${bytes.length} bytes against ${textBytes} as text`);
    assert.ok(!bytes.includes('UPDATE tasks SET status', header.end), 'no record repeats a numbered statement');

    const expected = rows(store);
    assert.deepEqual(await reopened(copyOf(dir)), expected, 'a crash now replays the compact records');
    store.close();
    assert.deepEqual(await reopened(dir), expected);
  });

  it('a journal of statement texts (the format before headers) still replays', async () => {
    const dir = tempForemanDir();
    const store = await SqlJsStore.open(dir, { checkpointBytes: 2 ** 40 });
    for (let i = 0; i < 10; i++) store.write(insertTask(`t${i}`, i));
    for (let i = 0; i < 10; i++) store.write(claim(`t${i}`, 100 + i));
    const bytes = fs.readFileSync(path.join(dir, 'foreman.journal'));
    assert.equal(decodeHeaderAt(bytes, 0), undefined, "a new store's first segment has no header");
    assert.equal(scanJournal(bytes).records.length, 20);
    assert.ok(bytes.includes('UPDATE tasks SET status'), 'its records hold their statement texts');
    const expected = rows(store);
    assert.deepEqual(await reopened(copyOf(dir)), expected);
    store.close();
  });

  it('a store reopened on a compact segment goes on appending with its table, and replays it all', async () => {
    const dir = tempForemanDir();
    const first = await SqlJsStore.open(dir, { checkpointBytes: 2 ** 40, closeCheckpointBytes: 2 ** 40 });
    for (let i = 0; i < 10; i++) first.write(insertTask(`t${i}`, i));
    for (let i = 0; i < 10; i++) first.write(claim(`t${i}`, 100 + i));
    first.checkpoint();
    for (let i = 0; i < 10; i++) first.write(claim(`t${i}`, 200 + i));
    first.close();
    // Not checkpointed at close: the next owner appends to the same segment, through its table.
    const second = await SqlJsStore.open(dir, { checkpointBytes: 2 ** 40 });
    for (let i = 0; i < 10; i++) second.write(claim(`t${i}`, 300 + i));
    const bytes = fs.readFileSync(path.join(dir, 'foreman.journal'));
    const scan = scanJournal(bytes);
    assert.equal(scan.table.statements.length, 2);
    assert.equal(scan.records.length, 20);
    assert.ok(!bytes.includes('UPDATE tasks SET status', decodeHeaderAt(bytes, 0)?.end), 'both owners numbered the claim');
    const expected = rows(second);
    assert.deepEqual(await reopened(copyOf(dir)), expected);
    second.close();
  });
});
