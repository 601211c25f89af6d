/**
 * A full disk fails the write that met it, and nothing else (issue 10, item 4): the journal record
 * is written before the in-memory commit, so a failed append is cut back and rolled back, the store
 * stays usable, and the same write succeeds once space is freed, with no restart. On a real small
 * tmpfs; skipped, with the reason in the output, where one cannot be mounted.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { SqlJsStore, StoreError } from '../../../src/infra/db/index';
import { scanJournal } from '../../../src/infra/db/journalFormat';
import { type SmallDisk, mountSmallDisk } from '../../support/smallDisk';
import { collectLog, insertTask } from './helpers';

const disk = mountSmallDisk(4);
const skip = typeof disk === 'string' ? disk : false;
after(() => {
  if (typeof disk !== 'string') disk.unmount();
});

function taskIds(store: SqlJsStore): string[] {
  return store.read((reader) => reader.all<{ id: string }>('SELECT id FROM tasks ORDER BY rowid').map((row) => row.id));
}

describe('store on a full disk', { skip }, () => {
  it('refuses the one write, keeps going, and takes writes again once space is freed', async () => {
    const small = disk as SmallDisk;
    const dir = path.join(small.root, 'store', '.foreman');
    const { lines, log } = collectLog();
    const store = await SqlJsStore.open(dir, { log });
    store.write(insertTask('before'));

    const filler = small.fill();
    after(() => fs.rmSync(filler, { force: true }));
    // The journal's last page may still have room for a record or two: write until one does not fit.
    const acknowledged = ['before'];
    let refusal: unknown;
    for (let index = 0; index < 500 && refusal === undefined; index++) {
      try {
        store.write(insertTask(`full-${index}`));
        acknowledged.push(`full-${index}`);
      } catch (error) {
        refusal = error;
      }
    }
    assert.ok(refusal instanceof StoreError && refusal.code === 'notSaved', String(refusal));
    assert.equal(
      refusal.message,
      `This change was not saved: the disk holding ${dir} is full (ENOSPC). Nothing was half written and Foreman goes on; free some space and try again.`,
    );
    // Still usable: reads answer, and the failed write is not visible in memory either.
    assert.deepEqual(taskIds(store), acknowledged);
    assert.throws(
      () => store.write(insertTask('still-full')),
      (error: unknown) => error instanceof StoreError && error.code === 'notSaved',
    );

    fs.rmSync(filler);
    store.write(insertTask('after'));
    acknowledged.push('after');
    assert.deepEqual(taskIds(store), acknowledged);
    // The journal holds whole records only: nothing of the failed appends is left in it.
    const scan = scanJournal(fs.readFileSync(path.join(dir, 'foreman.journal')));
    assert.deepEqual(
      { damage: scan.damage, torn: scan.tornTail, seqs: scan.records.map((record) => record.seq) },
      { damage: [], torn: undefined, seqs: acknowledged.map((_, index) => index + 1) },
    );
    store.close();
    assert.deepEqual(lines, []);

    const reopened = await SqlJsStore.open(dir, { log });
    assert.deepEqual(taskIds(reopened), acknowledged);
    reopened.close();
    assert.deepEqual(lines, [], 'the reopen needed no recovery');
  });

  it('a checkpoint that meets a full disk leaves the files as they were and is retried later', async () => {
    const small = disk as SmallDisk;
    const dir = path.join(small.root, 'checkpoint', '.foreman');
    const { lines, log } = collectLog();
    // A tiny threshold makes every write try a checkpoint.
    const store = await SqlJsStore.open(dir, { log, checkpointBytes: 1 });
    store.write(insertTask('a'));
    const filler = small.fill();
    try {
      assert.throws(
        () => store.checkpoint(),
        (error: unknown) => (error as NodeJS.ErrnoException).code === 'ENOSPC',
      );
      assert.equal(fs.existsSync(path.join(dir, 'foreman.db.tmp')), false, 'the half-written temp image is removed');
      assert.deepEqual(taskIds(store), ['a']);
    } finally {
      fs.rmSync(filler);
    }
    store.write(insertTask('b'));
    store.close();
    const reopened = await SqlJsStore.open(dir);
    assert.deepEqual(taskIds(reopened), ['a', 'b']);
    reopened.close();
    assert.ok(
      lines.every((line) => !/unusable/.test(line)),
      lines.join('\n'),
    );
  });
});
