/**
 * A kill at every file-system step of a checkpoint (issue 10, item 2). The store's `fileStep` hook
 * hears each step before it happens; the test copies the folder there, which is exactly what a
 * SIGKILL at that instant leaves, and then opens the copy as the next owner would.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { SqlJsStore } from '../../../src/infra/db/index';
import { isInitialised } from '../../../src/infra/workspace/paths';
import { collectLog, copyOf, insertTask, tempForemanDir } from './helpers';

class Killed extends Error {}

function taskIds(store: SqlJsStore): string[] {
  return store.read((reader) => reader.all<{ id: string }>('SELECT id FROM tasks ORDER BY rowid').map((row) => row.id));
}

/**
 * A store with two checkpoints behind it and writes after them, then one more checkpoint killed
 * before step `killAt` (counted from 0; past the last step means it completes). Returns the copy
 * taken at the kill, the steps seen, and every acknowledged write.
 */
async function checkpointKilledAt(
  killAt: number,
  backups: number,
): Promise<{ copy: string | undefined; steps: string[]; written: string[] }> {
  const dir = tempForemanDir();
  const steps: string[] = [];
  let armed = false;
  let copy: string | undefined;
  const store = await SqlJsStore.open(dir, {
    backups,
    fileStep: (step) => {
      if (!armed) return;
      if (steps.length === killAt) {
        copy = copyOf(dir);
        armed = false;
        throw new Killed(step);
      }
      steps.push(step);
    },
  });
  const written: string[] = [];
  for (let round = 0; round < 3; round++) {
    for (let i = 0; i < 4; i++) {
      const id = `r${round}-${i}`;
      store.write(insertTask(id));
      written.push(id);
    }
    if (round < 2) store.checkpoint();
  }
  armed = true;
  try {
    store.checkpoint();
  } catch (error) {
    if (!(error instanceof Killed)) throw error;
  }
  store.close();
  return { copy, steps, written };
}

async function assertWhole(dir: string, written: string[], context: string): Promise<string[]> {
  assert.ok(isInitialised(dir), `${context}: the folder reads as initialised (${fs.readdirSync(dir).join(', ')})`);
  const { lines, log } = collectLog();
  const store = await SqlJsStore.open(dir, { log });
  assert.deepEqual(taskIds(store), written, `${context}: every acknowledged write is there`);
  store.write(insertTask('next'));
  store.close();
  const again = collectLog();
  const reopened = await SqlJsStore.open(dir, { log: again.log });
  assert.deepEqual(taskIds(reopened), [...written, 'next'], `${context}: and stays there`);
  assert.deepEqual(again.lines, [], `${context}: the second open needs no recovery`);
  reopened.close();
  return lines;
}

for (const backups of [2, 1, 0]) {
  describe(`a kill at each step of a checkpoint (backups: ${backups})`, () => {
    it('loses nothing and leaves a folder that opens; the rename window is completed from foreman.db.tmp', async () => {
      const all = await checkpointKilledAt(Number.MAX_SAFE_INTEGER, backups);
      assert.equal(all.copy, undefined);
      const expectedSteps = [
        'fsync foreman.journal',
        'create foreman.journal.next',
        'fsync the folder',
        'write foreman.db.tmp',
        'fsync foreman.db.tmp',
        ...(backups > 0
          ? [
              ...Array.from(
                { length: backups },
                (_, i) => `rename ${name('foreman.db', backups - i - 1)} to ${name('foreman.db', backups - i)}`,
              ),
              ...Array.from(
                { length: backups },
                (_, i) => `rename ${name('foreman.journal', backups - i - 1)} to ${name('foreman.journal', backups - i)}`,
              ),
              'fsync the folder',
              'rename foreman.db.tmp to foreman.db',
            ]
          : ['rename foreman.db.tmp to foreman.db', 'fsync the folder', 'remove foreman.journal']),
        'rename foreman.journal.next to foreman.journal',
        'fsync the folder',
      ];
      assert.deepEqual(all.steps, expectedSteps);
      let completed = 0;
      for (let killAt = 0; killAt < expectedSteps.length; killAt++) {
        const { copy, written } = await checkpointKilledAt(killAt, backups);
        assert.ok(copy, `kill before step ${killAt}`);
        const lines = await assertWhole(copy, written, `kill before "${expectedSteps[killAt]}"`);
        if (lines.some((line) => /Completed a checkpoint that was interrupted/.test(line))) completed++;
        assert.ok(!lines.some((line) => /Recovered from/.test(line)), lines.join('\n'));
      }
      // With backups, the kill between the rotation and the final rename is finished, not recovered around.
      assert.equal(completed, backups > 0 ? backups + 2 : 0);
    });
  });
}

function name(base: string, generation: number): string {
  return generation === 0 ? base : `${base}.${generation}`;
}

describe('a temp image cut short by a kill while it was written', () => {
  it('is dropped: the files it was to replace still hold everything', async () => {
    const { copy, written } = await checkpointKilledAt(4, 2);
    assert.ok(copy);
    const temp = path.join(copy, 'foreman.db.tmp');
    fs.truncateSync(temp, Math.floor(fs.statSync(temp).size / 2));
    await assertWhole(copy, written, 'torn temp image');
    assert.ok(!fs.existsSync(temp));
  });
});

describe('isInitialised', () => {
  it('sees any store file, not a bare folder or a lock', () => {
    const dir = tempForemanDir();
    assert.equal(isInitialised(dir), false, 'no folder');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'owner.lock'), '');
    assert.equal(isInitialised(dir), false, 'a lock alone');
    for (const name of ['foreman.db.1', 'foreman.journal.2', 'foreman.db.tmp', 'foreman.ack', 'foreman.db']) {
      const only = tempForemanDir();
      fs.mkdirSync(only);
      fs.writeFileSync(path.join(only, name), '');
      assert.equal(isInitialised(only), true, name);
    }
  });

  it('treats a .foreman/ it cannot list as present, not as absent', (t) => {
    if (process.getuid?.() === 0) {
      t.skip('running as root: every folder can be listed, so EACCES cannot be produced here');
      return;
    }
    const dir = tempForemanDir();
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'foreman.db'), '');
    fs.chmodSync(dir, 0);
    try {
      assert.equal(isInitialised(dir), true);
    } finally {
      fs.chmodSync(dir, 0o700);
    }
  });
});
