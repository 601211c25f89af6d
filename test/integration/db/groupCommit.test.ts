/**
 * Group commit (issue 13): durable writes inside `savingLater` are written at once and fsync'd
 * together soon after; `whenSaved` resolves only then, and the acknowledged mark never runs ahead
 * of what is fsync'd. The fsyncs are counted by wrapping the real `fs.fsyncSync` and `fs.fsync`
 * (they still sync); the group's runs on the thread pool (`fs.fsync`, issue 34).
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { SqlJsStore } from '../../../src/infra/db/index';
import { readAckFile } from '../../../src/infra/db/ackFile';
import { insertTask, tempForemanDir } from './helpers';

/** The module object itself (a namespace import is a frozen view of it); the store reads it at each call. */
const fs = createRequire(__filename)('node:fs') as {
  fsyncSync: (fd: number) => void;
  fsync: (fd: number, callback: (error: NodeJS.ErrnoException | null) => void) => void;
};
/** Every fsync, and those of them run on the thread pool. */
let fsyncs = 0;
let poolFsyncs = 0;
const realFsync = fs.fsyncSync;
const realPoolFsync = fs.fsync;

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
  poolFsyncs = 0;
  return { dir, store, acked };
}

describe('group commit', () => {
  beforeEach(() => {
    fsyncs = 0;
    poolFsyncs = 0;
    fs.fsyncSync = (fd) => {
      fsyncs++;
      realFsync(fd);
    };
    fs.fsync = (fd, callback) => {
      fsyncs++;
      poolFsyncs++;
      realPoolFsync(fd, callback);
    };
  });
  afterEach(() => {
    fs.fsyncSync = realFsync;
    fs.fsync = realPoolFsync;
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
    assert.equal(ackedSeq(dir), acked, 'nothing is acknowledged before its fsync');
    await store.whenSaved();
    assert.equal(fsyncs, 1);
    assert.equal(poolFsyncs, 1, "the group's fsync ran on the thread pool, not on the owner's thread");
    assert.equal(ackedSeq(dir), acked + 20);
    store.close();
    const reopened = await SqlJsStore.open(dir);
    assert.equal(reopened.read((reader) => reader.get<{ n: number }>('SELECT count(*) AS n FROM tasks'))?.n, 21);
    reopened.close();
  });

  it('writes committed while the group fsync runs on the thread pool wait for the next one', async () => {
    const { dir, store, acked } = await storeWithOneWrite();
    store.savingLater(() => store.write(insertTask('a')));
    const first = store.whenSaved();
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(poolFsyncs, 1, 'the group fsync is under way');
    // The owner's thread is free meanwhile: another request commits, and is not covered by it.
    store.savingLater(() => store.write(insertTask('b')));
    const second = store.whenSaved();
    await first;
    assert.equal(ackedSeq(dir), acked + 1, 'the mark names only what the first fsync covered');
    await second;
    assert.equal(ackedSeq(dir), acked + 2);
    assert.equal(poolFsyncs, 2);
    store.close();
  });

  it('a close while the group fsync is on the thread pool answers its waiters and reopens with the writes', async () => {
    const dir = tempForemanDir();
    const store = await SqlJsStore.open(dir);
    store.savingLater(() => store.write(insertTask('x')));
    const saved = store.whenSaved();
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(poolFsyncs, 1, 'the group fsync is under way');
    // The journal's descriptor stays open until that fsync returns (never one reused meanwhile).
    store.close();
    await saved;
    assert.equal(ackedSeq(dir), 1);
    const reopened = await SqlJsStore.open(dir);
    assert.equal(reopened.read((reader) => reader.get<{ n: number }>('SELECT count(*) AS n FROM tasks'))?.n, 1);
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
