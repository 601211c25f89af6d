/**
 * Group commit (issue 13): durable writes inside `savingLater` are written at once and fsync'd
 * together soon after; `whenSaved` resolves only then, and the acknowledged mark never runs ahead
 * of what is fsync'd. The fsyncs are counted by wrapping the real `fs.fsyncSync` (it still syncs).
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { SqlJsStore } from '../../../src/infra/db/index';
import { readAckFile } from '../../../src/infra/db/ackFile';
import { insertTask, tempForemanDir } from './helpers';

/** The module object itself (a namespace import is a frozen view of it); the store reads it at each call. */
const fs = createRequire(__filename)('node:fs') as { fsyncSync: (fd: number) => void };
let fsyncs = 0;
const realFsync = fs.fsyncSync;

function ackedSeq(dir: string): number {
  const read = readAckFile(dir);
  return read.kind === 'seq' ? read.seq : -1;
}

/** A store with one saved write, its acknowledged seq, and the fsync count from here. */
async function storeWithOneWrite(): Promise<{ dir: string; store: SqlJsStore; acked: number }> {
  const dir = tempForemanDir();
  const store = await SqlJsStore.open(dir);
  store.write(insertTask('before'));
  const acked = ackedSeq(dir);
  fsyncs = 0;
  return { dir, store, acked };
}

describe('group commit', () => {
  beforeEach(() => {
    fsyncs = 0;
    fs.fsyncSync = (fd) => {
      fsyncs++;
      realFsync(fd);
    };
  });
  afterEach(() => {
    fs.fsyncSync = realFsync;
  });

  it('saves the writes taken together with one fsync, and acknowledges them only then', async () => {
    const { dir, store, acked } = await storeWithOneWrite();
    store.savingLater(() => ['a', 'b', 'c'].forEach((id) => store.write(insertTask(id))));
    assert.equal(fsyncs, 0, 'no write fsyncs on its own');
    assert.equal(ackedSeq(dir), acked, 'the mark does not name unsaved records');
    const saved = store.whenSaved();
    store.write(insertTask('d')); // taken meanwhile, outside: saved now, and the group with it
    assert.equal(fsyncs, 1);
    assert.equal(ackedSeq(dir), acked + 4);
    await saved;
    assert.equal(fsyncs, 1, 'nothing left for the group save to do');
    await store.whenSaved();
    store.close();
  });

  it('a group save alone: whenSaved resolves after one fsync for the lot', async () => {
    const { dir, store, acked } = await storeWithOneWrite();
    store.savingLater(() => Array.from({ length: 20 }, (_, i) => store.write(insertTask(`t${i}`))));
    await store.whenSaved();
    assert.equal(fsyncs, 1);
    assert.equal(ackedSeq(dir), acked + 20);
    store.close();
    const reopened = await SqlJsStore.open(dir);
    assert.equal(reopened.read((reader) => reader.get<{ n: number }>('SELECT count(*) AS n FROM tasks'))?.n, 21);
    reopened.close();
  });

  it('a close saves what is pending and answers its waiters; afterwards nothing waits', async () => {
    const dir = tempForemanDir();
    const store = await SqlJsStore.open(dir);
    store.savingLater(() => store.write(insertTask('x')));
    const saved = store.whenSaved();
    store.close();
    await saved;
    assert.equal(ackedSeq(dir), 1);
  });

  it('heartbeat-like writes (durable: false) inside the group wait for nothing', async () => {
    const dir = tempForemanDir();
    const store = await SqlJsStore.open(dir);
    fsyncs = 0;
    store.savingLater(() => store.write(insertTask('y'), { durable: false }));
    await store.whenSaved();
    assert.equal(fsyncs, 0);
    store.close();
  });
});
