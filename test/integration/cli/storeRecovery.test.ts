/**
 * Issue 10, items 1 and 2 through the real CLI: a store that lost acknowledged writes is refused
 * (exit 3, the files named); a checkpoint killed in its rename window is finished by the next
 * call; `--dir` and FOREMAN_DIR name exactly one folder and never climb to an enclosing workspace.
 */
import assert from 'node:assert/strict';
import { mkdirSync, renameSync, rmSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { SqlJsStore } from '../../../src/infra/db/index';
import { foreman, foremanJson, makeRepo, startServe } from './harness';

interface Status {
  readonly workers: ReadonlyArray<{ id: string }>;
  readonly tasks: ReadonlyArray<{ title: string }>;
}

async function run(repo: string, args: readonly string[]): Promise<void> {
  const result = await foreman(repo, args);
  assert.equal(result.code, 0, `foreman ${args.join(' ')}: ${result.stdout}${result.stderr}`);
}

/** The reproduction: init, a worker, two tasks (one-shot calls, so no checkpoint after init). */
async function workspaceWithTasks(repo = makeRepo()): Promise<string> {
  for (const args of [['init'], ['worker', 'add', 'w1'], ['task', 'add', 'T1'], ['task', 'add', 'T2']]) await run(repo, args);
  return repo;
}

/** Leaves `.foreman/` as a kill between moving foreman.db to foreman.db.1 and installing foreman.db.tmp does. */
async function killCheckpointInRenameWindow(repo: string): Promise<void> {
  const store = await SqlJsStore.open(join(repo, '.foreman'), {
    fileStep: (step) => {
      if (step === 'rename foreman.db.tmp to foreman.db') throw new Error('killed');
    },
  });
  assert.throws(() => store.checkpoint(), /killed/);
  store.close();
}

describe('foreman on a store that lost acknowledged writes', () => {
  for (const [damage, apply] of [
    ['emptied', (journal: string) => truncateSync(journal, 0)],
    ['deleted', (journal: string) => rmSync(journal)],
  ] as const) {
    it(`refuses a ${damage} journal with exit 3, naming the files and the way back`, async () => {
      const repo = await workspaceWithTasks();
      const dir = join(repo, '.foreman');
      apply(join(dir, 'foreman.journal'));
      const status = await foreman(repo, ['status']);
      assert.equal(status.code, 3, status.stdout + status.stderr);
      assert.equal(status.stdout, '');
      assert.match(
        status.stderr,
        new RegExp(
          `^foreman: The Foreman database in ${dir} has lost acknowledged writes: foreman\\.ack records that every write up to seq 4 ` +
            `was acknowledged, but foreman\\.db plus the journals reach only seq 1 \\(foreman\\.journal is ${damage === 'emptied' ? 'empty' : 'missing'}\\)\\. ` +
            'Nothing was changed.*the older generations kept here \\(foreman\\.db\\.1, foreman\\.journal\\.1\\).*' +
            `run: echo 1 > ${dir}/foreman\\.ack\\n$`,
        ),
      );
      const add = await foreman(repo, ['task', 'add', 'T3']);
      assert.equal(add.code, 3, 'nor does it write to it');
    });
  }
});

describe('a checkpoint killed between rotating the files and installing the new image', () => {
  it('is completed by the next call: status, task add and serve see the whole workspace', async () => {
    const repo = await workspaceWithTasks();
    await killCheckpointInRenameWindow(repo);
    const status = await foremanJson<Status>(repo, ['status']);
    assert.deepEqual(
      status.tasks.map((task) => task.title),
      ['T1', 'T2'],
    );
    assert.deepEqual(
      status.workers.map((worker) => worker.id),
      ['w1'],
    );
    await killCheckpointInRenameWindow(repo);
    await run(repo, ['task', 'add', 'T3']);
    await killCheckpointInRenameWindow(repo);
    const server = await startServe(repo);
    try {
      const after = await foremanJson<Status>(repo, ['status']);
      assert.deepEqual(
        after.tasks.map((task) => task.title),
        ['T1', 'T2', 'T3'],
      );
    } finally {
      assert.equal(await server.stop(), 0);
    }
  });
});

describe('--dir and FOREMAN_DIR inside another workspace', () => {
  it('act on exactly the folder named, never on the enclosing workspace', async () => {
    const outer = await workspaceWithTasks();
    const inner = join(outer, 'nested');
    mkdirSync(inner);
    // Not initialised: said so, rather than answering for the outer workspace.
    for (const call of [
      () => foreman(outer, ['status', '--dir', inner]),
      () => foreman(outer, ['status'], { env: { FOREMAN_DIR: inner } }),
      () => foreman(outer, ['task', 'add', 'X', '--dir', inner]),
    ]) {
      const result = await call();
      assert.equal(result.code, 2, result.stdout + result.stderr);
      assert.match(result.stderr, new RegExp(`No Foreman here \\(${inner}\\)`));
    }
    // Without --dir a subfolder still finds its workspace, as git does.
    const fromSubfolder = await foremanJson<Status>(inner, ['status']);
    assert.equal(fromSubfolder.tasks.length, 2);
    // A nested repository mid-checkpoint is recovered in place, not mistaken for the outer one.
    const nestedRepo = makeRepo();
    const nested = join(outer, 'repo');
    rmSync(nested, { recursive: true, force: true });
    renameSync(nestedRepo, nested);
    await run(nested, ['init']);
    await run(nested, ['task', 'add', 'N1']);
    await killCheckpointInRenameWindow(nested);
    const status = await foremanJson<Status>(outer, ['status', '--dir', nested]);
    assert.deepEqual(
      status.tasks.map((task) => task.title),
      ['N1'],
    );
    const outerStatus = await foremanJson<Status>(outer, ['status']);
    assert.equal(outerStatus.tasks.length, 2, 'the outer workspace is untouched');
  });
});
