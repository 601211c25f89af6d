/**
 * Checkpoints in the background (issue 13): the owner goes on writing while the image is written
 * and installed. A copy of the folder taken at each file-system step is what a SIGKILL at that
 * instant leaves (as in checkpointKill.test.ts); each copy must open to exactly the writes
 * acknowledged by then, whether the kill lands in the image, its fsync, or any rename.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { SqlJsStore } from '../../../src/infra/db/index';
import { collectLog, copyOf, insertTask, tempForemanDir } from './helpers';

function taskIds(store: SqlJsStore): string[] {
  return store.read((reader) => reader.all<{ id: string }>('SELECT id FROM tasks ORDER BY rowid').map((row) => row.id));
}

interface Crash {
  readonly step: string;
  readonly copy: string;
  /** Writes that had returned when the copy was taken. */
  readonly acknowledged: string[];
  /** A write whose record was already saved but that had not returned yet (it may be there or not). */
  readonly inFlight: string | undefined;
}

/**
 * Writes one task per turn of the event loop until `installs` background checkpoints have completed,
 * copying the folder at every file-system step. The writes go on while each image is written.
 */
async function crashesDuringCheckpoints(backups: number, installs: number): Promise<{ crashes: Crash[]; written: string[] }> {
  const dir = tempForemanDir();
  const crashes: Crash[] = [];
  const written: string[] = [];
  let inFlight: string | undefined;
  let installed = 0;
  const store = await SqlJsStore.open(dir, {
    backups,
    checkpointBytes: 3000,
    fileStep: (step) => {
      crashes.push({ step, copy: copyOf(dir), acknowledged: [...written], inFlight });
      if (step === 'rename foreman.journal.next to foreman.journal') installed++;
    },
  });
  for (let i = 0; installed < installs; i++) {
    assert.ok(i < 5000, 'the checkpoints never completed');
    const id = `t${i}`;
    inFlight = id;
    store.write(insertTask(id, i));
    inFlight = undefined;
    written.push(id);
    await nextTurn();
  }
  await store.whenIdle();
  store.close();
  return { crashes, written };
}

async function assertOpensTo(crash: Crash, context: string): Promise<void> {
  const { lines, log } = collectLog();
  const store = await SqlJsStore.open(crash.copy, { log });
  const present = taskIds(store);
  const expected = crash.inFlight && present.at(-1) === crash.inFlight ? [...crash.acknowledged, crash.inFlight] : crash.acknowledged;
  assert.deepEqual(present, expected, `${context}: exactly the acknowledged writes`);
  assert.ok(!lines.some((line) => /Recovered from|Rebuilt/.test(line)), `${context}: no recovery was needed: ${lines.join('\n')}`);
  store.write(insertTask('after'));
  store.close();
  const again = collectLog();
  const reopened = await SqlJsStore.open(crash.copy, { log: again.log });
  assert.deepEqual(taskIds(reopened), [...expected, 'after'], `${context}: and stays so`);
  assert.deepEqual(again.lines, [], `${context}: the second open needs no recovery`);
  reopened.close();
}

for (const backups of [2, 0]) {
  describe(`a kill at each step of a checkpoint in the background (backups: ${backups})`, () => {
    it('opens to exactly the acknowledged writes, with writes going on between the steps', async () => {
      const { crashes, written } = await crashesDuringCheckpoints(backups, 3);
      const steps = new Set(crashes.map((crash) => crash.step));
      for (const step of ['create foreman.journal.next', 'write foreman.db.tmp', 'fsync foreman.db.tmp', 'fsync the folder']) {
        assert.ok(steps.has(step), `step "${step}" was seen: ${[...steps].join(', ')}`);
      }
      assert.ok(
        crashes.some((crash, index) => index > 0 && crash.acknowledged.length > (crashes[index - 1]?.acknowledged.length ?? 0)),
        'writes were acknowledged between the steps of a checkpoint',
      );
      for (const [index, crash] of crashes.entries()) await assertOpensTo(crash, `kill ${index} before "${crash.step}"`);
      const final = await SqlJsStore.open(copyOf(crashes.at(-1)?.copy ?? ''));
      final.close();
      assert.ok(written.length > 0);
    });
  });
}

describe('an image half written when the kill came', () => {
  it('is dropped, and the journals it was to replace (both segments) still hold everything', async () => {
    const { crashes } = await crashesDuringCheckpoints(1, 1);
    const atFsync = crashes.filter((crash) => crash.step === 'fsync foreman.db.tmp');
    assert.ok(atFsync.length > 0);
    for (const crash of atFsync) {
      const temp = path.join(crash.copy, 'foreman.db.tmp');
      fs.truncateSync(temp, Math.floor(fs.statSync(temp).size / 2));
      assert.ok(fs.statSync(path.join(crash.copy, 'foreman.journal.next')).isFile());
      await assertOpensTo(crash, 'torn image');
      assert.ok(!fs.existsSync(temp));
    }
  });
});

describe("the oldest backup image's file", () => {
  it('is where the next background checkpoint writes its image: no image file is freed', async () => {
    const dir = tempForemanDir();
    const store = await SqlJsStore.open(dir, { backups: 2, checkpointBytes: 3000 });
    const inode = (name: string): number => fs.statSync(path.join(dir, name)).ino;
    const written: string[] = [];
    const writeUntil = async (done: () => boolean): Promise<void> => {
      while (!done()) {
        assert.ok(written.length < 5000, 'the checkpoints never completed');
        const id = `t${written.length}`;
        store.write(insertTask(id, written.length));
        written.push(id);
        await nextTurn();
      }
      await store.whenIdle();
    };
    await writeUntil(() => fs.existsSync(path.join(dir, 'foreman.db.2')));
    const oldest = inode('foreman.db.2');
    const current = inode('foreman.db');
    await writeUntil(() => inode('foreman.db.1') === current);
    assert.equal(inode('foreman.db'), oldest, "the new image went into the oldest backup's file");
    assert.ok(fs.existsSync(path.join(dir, 'foreman.db.2')), 'two backups again once installed');
    store.close();
    const { lines, log } = collectLog();
    const reopened = await SqlJsStore.open(dir, { log });
    assert.deepEqual(taskIds(reopened), written);
    assert.deepEqual(lines, []);
    reopened.close();
  });

  it('taken for a temp image that a kill left holding an older image whole, is dropped while foreman.db is there', async () => {
    const { crashes } = await crashesDuringCheckpoints(2, 3);
    const leftovers = crashes.filter((crash) =>
      ['foreman.db.tmp', 'foreman.db', 'foreman.db.1'].every((name) => fs.existsSync(path.join(crash.copy, name))),
    );
    assert.ok(leftovers.length > 0);
    for (const crash of leftovers) {
      // The worst a reused file can hold: a whole, checksummed image from before, trailer and all.
      fs.copyFileSync(path.join(crash.copy, 'foreman.db.1'), path.join(crash.copy, 'foreman.db.tmp'));
      await assertOpensTo(crash, `an old image as the temp image at "${crash.step}"`);
      assert.ok(!fs.existsSync(path.join(crash.copy, 'foreman.db.tmp')));
    }
  });
});

describe('a close while a checkpoint runs in the background', () => {
  it('abandons or finishes it, and the folder opens to every write without recovery', async () => {
    // Learn the steps of one background checkpoint, then close right after each of them in turn.
    const seen: string[] = [];
    for (let closeAfter = 0; ; closeAfter++) {
      const dir = tempForemanDir();
      const steps: string[] = [];
      let closeNow = false;
      const store = await SqlJsStore.open(dir, {
        checkpointBytes: 3000,
        fileStep: (step) => {
          steps.push(step);
          if (steps.length === closeAfter + 1) closeNow = true;
        },
      });
      const written: string[] = [];
      for (let i = 0; !closeNow && i < 2000; i++) {
        store.write(insertTask(`t${i}`, i));
        written.push(`t${i}`);
        await nextTurn();
      }
      store.close();
      if (closeAfter === 0) seen.push(...steps);
      const { lines, log } = collectLog();
      const reopened = await SqlJsStore.open(dir, { log });
      assert.deepEqual(taskIds(reopened), written, `closed after step ${closeAfter} (${steps.at(-1)})`);
      assert.deepEqual(lines, [], `closed after step ${closeAfter}: no recovery`);
      assert.ok(!fs.existsSync(path.join(dir, 'foreman.db.tmp')));
      reopened.close();
      if (closeAfter >= 12) break;
    }
    assert.ok(seen.length > 0);
  });
});
