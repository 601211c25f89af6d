/**
 * Merging another machine's worker (issue 29, finding 1), with real git: a bare remote and two
 * clones, A (where worker a1's agent works) and B (where its tasks are merged). B merges from the
 * remote's copy of each task branch, in its own worktree for a1, whatever that worktree held
 * before: nothing, the previous task's branch, an older copy of this one, leftovers, or a folder
 * deleted by hand. A's worktree and branches are never touched.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { describe, test } from 'node:test';
import { simpleGit } from 'simple-git';
import { type Result, refused } from '../../../src/core/result';
import type { WorkRef } from '../../../src/engine/ports';
import { GitPortAdapter } from '../../../src/infra/git/gitPort';
import { branchOf, commitAllIn, readFile, revParse, statusOf, unwrap, writeFile } from './gitFixtures';
import { onlyFastForwards, sharedRemote } from './remoteFixtures';

const remoteOptions = { remote: 'origin' } as const;

/** Machine A: a1 does `taskId` (one commit writing `file`) and its owner pushes the branch on submit. */
async function taskOnA(adapter: GitPortAdapter, taskId: string, file: string, content: string): Promise<WorkRef> {
  const work = { workerId: 'a1', taskId, attempt: 1, branch: `a1/${taskId}` };
  const prepared = unwrap(await adapter.prepare(work, 'main'));
  writeFile(prepared.worktree, file, content);
  await commitAllIn(prepared.worktree, `task ${taskId}`);
  unwrap(await adapter.publish(work));
  return work;
}

/** What A holds of its worker: the worktree's branch, head and status, and every a1 branch's tip. */
async function stateOfA(a: string, worktree: string): Promise<string> {
  const branches = await simpleGit(a).raw(['for-each-ref', '--format=%(refname) %(objectname)', 'refs/heads/a1/']);
  return JSON.stringify([await branchOf(worktree), await revParse(worktree, 'HEAD'), await statusOf(worktree), branches]);
}

async function filesOnRemoteMain(remote: string): Promise<string[]> {
  return (await simpleGit(remote).raw(['ls-tree', '-r', '--name-only', 'main'])).split('\n').filter(Boolean).sort();
}

describe('a merge from another machine than the worker`s', () => {
  test('three tasks of one worker in a row merge from B; A`s worktree is never touched', async () => {
    const { remote, clones } = await sharedRemote();
    const [a = '', b = ''] = clones;
    const machineA = new GitPortAdapter(a, () => 'main', remoteOptions);
    const machineB = new GitPortAdapter(b, () => 'main', remoteOptions);
    const merges: string[] = [];
    for (const index of [1, 2, 3]) {
      const work = await taskOnA(machineA, `t${index}`, `f${index}.txt`, `task ${index}\n`);
      const before = await stateOfA(a, machineA.worktreePath('a1'));
      const merged = unwrap(await machineB.merge(work, 'rebase', undefined, undefined, 'remote'));
      assert.equal(await revParse(remote, 'refs/heads/main'), merged.baseAfter, `t${index} landed`);
      merges.push(merged.baseAfter);
      assert.equal(await stateOfA(a, machineA.worktreePath('a1')), before, `A untouched by the merge of t${index}`);
      // B's own worktree for a1 holds the merged task now.
      assert.equal(await branchOf(machineB.worktreePath('a1')), work.branch);
    }
    assert.deepEqual(await filesOnRemoteMain(remote), ['a.txt', 'b.txt', 'f1.txt', 'f2.txt', 'f3.txt']);
    // Each merge built on the one before it, and main only ever moved forward.
    assert.equal(await revParse(remote, `${merges[2]}~1`), merges[1]);
    assert.equal(await revParse(remote, `${merges[1]}~1`), merges[0]);
    assert.equal(await onlyFastForwards(remote), true);
  });

  test('an older copy left by an earlier attempt on B gives way to what A pushed since', async () => {
    const { remote, clones } = await sharedRemote();
    const [a = '', b = ''] = clones;
    const machineA = new GitPortAdapter(a, () => 'main', remoteOptions);
    const machineB = new GitPortAdapter(b, () => 'main', remoteOptions);
    const work = await taskOnA(machineA, 't1', 'f1.txt', 'first draft\n');
    // Main moves meanwhile, so B's attempt rebases its copy of a1/t1; its verify then fails.
    const other = await taskOnA(machineA, 'other', 'other.txt', 'other\n');
    unwrap(await machineA.merge({ ...other, workerId: 'a1' }, 'rebase'));
    const failing = (): Promise<Result<void>> => Promise.resolve(refused('checkFailed', 'the tests fail'));
    const first = await machineB.merge(work, 'rebase', failing, undefined, 'remote');
    assert.deepEqual(!first.ok && first.code, 'verifyFailed');
    const rebasedOnB = await revParse(b, 'refs/heads/a1/t1');
    assert.notEqual(rebasedOnB, await revParse(remote, 'refs/heads/a1/t1'), 'B holds a rebased copy');

    // The task is done again on A (the same branch, one more commit) and pushed.
    const again = unwrap(await machineA.prepare(work, 'main'));
    writeFile(again.worktree, 'f1.txt', 'fixed\n');
    const fixed = await commitAllIn(again.worktree, 'fix after review');
    unwrap(await machineA.publish(work));
    // Leftovers in B's worktree (a verify command's output) are saved, not merged.
    writeFile(machineB.worktreePath('a1'), 'coverage.txt', 'from the last verify\n');

    const merged = unwrap(await machineB.merge(work, 'rebase', undefined, undefined, 'remote'));
    assert.equal(await simpleGit(remote).show([`${merged.baseAfter}:f1.txt`]), 'fixed\n');
    assert.deepEqual(await filesOnRemoteMain(remote), ['a.txt', 'b.txt', 'f1.txt', 'other.txt']);
    assert.equal(await simpleGit(b).show(['refs/foreman/wip/t1/1:coverage.txt']), 'from the last verify\n');
    assert.equal(await revParse(a, 'refs/heads/a1/t1'), fixed, 'A`s branch is as A left it');
    assert.equal(await onlyFastForwards(remote), true);
  });

  test('B`s worktree deleted by hand, or never made, is made again from the remote', async () => {
    const { remote, clones } = await sharedRemote();
    const [a = '', b = ''] = clones;
    const machineA = new GitPortAdapter(a, () => 'main', remoteOptions);
    const machineB = new GitPortAdapter(b, () => 'main', remoteOptions);
    unwrap(await machineB.merge(await taskOnA(machineA, 't1', 'f1.txt', 'one\n'), 'rebase', undefined, undefined, 'remote'));
    rmSync(machineB.worktreePath('a1'), { recursive: true, force: true });
    const merged = unwrap(await machineB.merge(await taskOnA(machineA, 't2', 'f2.txt', 'two\n'), 'rebase', undefined, undefined, 'remote'));
    assert.equal(await revParse(remote, 'refs/heads/main'), merged.baseAfter);
    assert.equal(readFile(machineB.worktreePath('a1'), 'f2.txt'), 'two\n');
    assert.deepEqual(await filesOnRemoteMain(remote), ['a.txt', 'b.txt', 'f1.txt', 'f2.txt']);
  });

  test('a branch A never pushed is refused, saying so; without a remote B cannot see it at all', async () => {
    const { remote, clones } = await sharedRemote();
    const [a = '', b = ''] = clones;
    const machineA = new GitPortAdapter(a, () => 'main', remoteOptions);
    const work = { workerId: 'a1', taskId: 't1', attempt: 1, branch: 'a1/t1' };
    const prepared = unwrap(await machineA.prepare(work, 'main'));
    writeFile(prepared.worktree, 'f1.txt', 'never pushed\n');
    await commitAllIn(prepared.worktree, 'task t1');
    const mainBefore = await revParse(remote, 'refs/heads/main');

    const unpushed = await new GitPortAdapter(b, () => 'main', remoteOptions).merge(work, 'rebase', undefined, undefined, 'remote');
    assert.deepEqual(!unpushed.ok && [unpushed.kind, unpushed.code], ['refused', 'branchNotPushed']);
    assert.match(!unpushed.ok ? unpushed.message : '', /'a1\/t1' is not on 'origin'.*Push it from there, or merge there/);
    const noRemote = await new GitPortAdapter(b, () => 'main').merge(work, 'rebase', undefined, undefined, 'remote');
    assert.deepEqual(!noRemote.ok && [noRemote.kind, noRemote.code], ['refused', 'noRemote']);
    assert.match(!noRemote.ok ? noRemote.message : '', /set "remote" in \.foreman\/settings\.json/);
    assert.equal(await revParse(remote, 'refs/heads/main'), mainBefore);
  });
});
