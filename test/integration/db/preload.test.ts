/**
 * A store loaded before the owner lock is only a guess (preload.ts): under the lock it catches up
 * with what other processes appended meanwhile, and is dropped for a full load when the files
 * changed any other way (issue 10, item 10). Each case has another real store write in between.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { SqlJsStore, StoreError } from '../../../src/infra/db/index';
import { catchUp } from '../../../src/infra/db/preload';
import { readAckFile } from '../../../src/infra/db/ackFile';
import { migrations } from '../../../src/infra/db/migrations/index';
import { listStoreFiles } from '../../../src/infra/db/storeFiles';
import { collectLog, insertTask, tempForemanDir } from './helpers';

/** A store folder holding `ids`, closed without a checkpoint (as a one-shot call leaves it). */
async function folderWith(ids: readonly string[]): Promise<string> {
  const dir = tempForemanDir();
  const store = await SqlJsStore.open(dir, { closeCheckpointBytes: 1024 * 1024 });
  for (const id of ids) store.write(insertTask(id));
  store.close();
  return dir;
}

/** What another one-shot call does while this one waits for the lock. */
async function meanwhile(dir: string, ids: readonly string[], options: { checkpoint?: boolean } = {}): Promise<void> {
  const store = await SqlJsStore.open(dir, { closeCheckpointBytes: 1024 * 1024 });
  for (const id of ids) store.write(insertTask(id));
  if (options.checkpoint) store.checkpoint();
  store.close();
}

function taskIds(store: SqlJsStore): string[] {
  return store.read((reader) => reader.all<{ id: string }>('SELECT id FROM tasks ORDER BY rowid').map((row) => row.id));
}

async function preloadOf(dir: string) {
  const preloaded = await SqlJsStore.preload(dir);
  assert.ok(preloaded, 'a clean folder preloads');
  return preloaded;
}

describe('store preload: loaded before the lock, caught up under it', () => {
  it('replays only what was appended meanwhile, and the store goes on from there', async () => {
    const dir = await folderWith(['a', 'b']);
    const preloaded = await preloadOf(dir);
    await meanwhile(dir, ['c', 'd', 'e']);
    const caught = catchUp(preloaded, dir, listStoreFiles(dir), readAckFile(dir), migrations, () => undefined);
    assert.ok(caught, 'appends alone are caught up, not reloaded');
    assert.equal(caught.lastSeq, 5);
    caught.connection.close();

    const again = await preloadOf(dir);
    await meanwhile(dir, ['f']);
    const { lines, log } = collectLog();
    const store = await SqlJsStore.open(dir, { preloaded: again, log });
    store.write(insertTask('g'));
    store.close();
    assert.deepEqual(lines, []);
    const reopened = await SqlJsStore.open(dir);
    assert.deepEqual(taskIds(reopened), ['a', 'b', 'c', 'd', 'e', 'f', 'g']);
    reopened.close();
  });

  it('is dropped when a checkpoint rotated the files meanwhile, and the full load has everything', async () => {
    const dir = await folderWith(['a']);
    const preloaded = await preloadOf(dir);
    await meanwhile(dir, ['b', 'c'], { checkpoint: true });
    assert.equal(
      catchUp(preloaded, dir, listStoreFiles(dir), readAckFile(dir), migrations, () => undefined),
      undefined,
    );

    const stale = await preloadOf(dir);
    await meanwhile(dir, ['d'], { checkpoint: true });
    const store = await SqlJsStore.open(dir, { preloaded: stale });
    assert.deepEqual(taskIds(store), ['a', 'b', 'c', 'd']);
    store.close();
  });

  it('ignores a torn last record appended meanwhile, as a full load would, and cuts it', async () => {
    const dir = await folderWith(['a']);
    const preloaded = await preloadOf(dir);
    await meanwhile(dir, ['b']);
    const journal = path.join(dir, 'foreman.journal');
    const intact = fs.statSync(journal).size;
    fs.appendFileSync(journal, Buffer.from([200, 0, 0, 0, 1, 2, 3, 4, 123]));
    const { lines, log } = collectLog();
    const store = await SqlJsStore.open(dir, { preloaded, log });
    assert.deepEqual(taskIds(store), ['a', 'b']);
    assert.equal(fs.statSync(journal).size, intact, 'the torn record is cut before anything is appended');
    store.close();
    assert.equal(lines.length, 1);
    assert.match(lines[0] ?? '', new RegExp(`ignoring an incomplete last record at byte offset ${intact} \\(9 bytes\\)`));
  });

  it('never hides lost writes: a journal cut below the preload is refused by the full load', async () => {
    const dir = await folderWith(['a', 'b', 'c']);
    const preloaded = await preloadOf(dir);
    fs.truncateSync(path.join(dir, 'foreman.journal'), 0);
    await assert.rejects(
      SqlJsStore.open(dir, { preloaded }),
      (error: unknown) => error instanceof StoreError && /has lost acknowledged writes/.test(error.message),
    );
  });

  it('is not taken from a folder that needs a recovery: that is the owner’s work, under the lock', async () => {
    const dir = await folderWith(['a']);
    fs.rmSync(path.join(dir, 'foreman.ack'));
    assert.equal(await SqlJsStore.preload(dir), undefined);
    fs.writeFileSync(path.join(dir, 'foreman.db.tmp'), 'half a checkpoint');
    assert.equal(await SqlJsStore.preload(dir), undefined);
    assert.equal(await SqlJsStore.preload(tempForemanDir()), undefined, 'nor from a folder that does not exist');
  });
});
