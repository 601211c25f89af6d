/**
 * Branches through a shared remote (issue 14 item 3), with real git: a bare repository as the
 * remote and two clones of it standing for two machines, A and B. Task branches are pushed on
 * submit and readable from the other clone; merges are built on the remote's base and pushed as
 * fast-forwards only; a base that moved there meanwhile is `baseMoved`, never a forced push.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { simpleGit } from 'simple-git';
import { ok } from '../../../src/core/result';
import { GitWorkspace, changedFiles, checkRemote } from '../../../src/infra/git';
import { GitPortAdapter } from '../../../src/infra/git/gitPort';
import { crewSettingsOf, settingsFileSchema } from '../../../src/engine/settings';
import { commitAllIn, readFile, revParse, statusOf, unwrap, writeFile } from './gitFixtures';
import { onlyFastForwards, remoteBaseHistory, sharedRemote } from './remoteFixtures';

const remoteOptions = { remote: 'origin' } as const;

/** Worker `workerId` on `taskId` in `clone`, with one commit writing `file`. */
async function taskIn(clone: string, workerId: string, taskId: string, file: string, content: string) {
  const workspace = new GitWorkspace(clone, remoteOptions);
  const worktree = unwrap(await workspace.prepareWorktree({ workerId, taskId, startPoint: 'main' }));
  writeFile(worktree.path, file, content);
  await commitAllIn(worktree.path, `task ${taskId}`);
  return { workspace, path: worktree.path, work: { workerId, taskId, attempt: 1, branch: `${workerId}/${taskId}` } };
}

/** Someone on clone A pushes a commit to the remote's main, as a person would. */
async function moveRemoteMain(clone: string, file: string, content: string): Promise<string> {
  const git = simpleGit(clone);
  await git.raw(['pull', '--quiet', '--ff-only', 'origin', 'main']);
  writeFile(clone, file, content);
  const sha = await commitAllIn(clone, `main moves: ${file}`);
  await git.raw(['push', '--quiet', 'origin', 'main']);
  return sha;
}

describe('the remote setting', () => {
  test('is a remote name or null in .foreman/settings.json; absent means this machine only', () => {
    assert.equal(crewSettingsOf(settingsFileSchema.parse({ remote: 'origin' })).remote, 'origin');
    assert.equal(crewSettingsOf(settingsFileSchema.parse({ remote: null })).remote, undefined);
    assert.equal(crewSettingsOf(settingsFileSchema.parse({})).remote, undefined);
    for (const bad of ['--upload-pack=touch x', '../elsewhere', '', 'a b', '.hidden', 'x.lock']) {
      assert.equal(settingsFileSchema.safeParse({ remote: bad }).success, false, bad);
    }
  });

  test('must name a remote of the clone', async () => {
    const { clones } = await sharedRemote(1);
    const clone = clones[0] ?? '';
    assert.equal(unwrap(await checkRemote(clone, 'origin')), 'origin');
    const unknown = await checkRemote(clone, 'upstream');
    assert.deepEqual(!unknown.ok && [unknown.kind, unknown.code, unknown.details?.['remotes']], ['invalid', 'unknownRemote', ['origin']]);
    const hostile = await checkRemote(clone, '--upload-pack=touch x');
    assert.deepEqual(!hostile.ok && hostile.code, 'invalidRemote');
    const workspace = new GitWorkspace(clone, { remote: 'upstream' });
    const opened = await workspace.open();
    assert.deepEqual(!opened.ok && opened.code, 'unknownRemote');
    const published = await workspace.publish('main');
    assert.deepEqual(!published.ok && published.code, 'unknownRemote');
  });
});

describe('task branches through the remote', () => {
  test('a branch made in A is pushed on submit, and B lists and reads its changes', async () => {
    const { remote, clones } = await sharedRemote();
    const [a = '', b = ''] = clones;
    const adapterA = new GitPortAdapter(a, () => 'main', remoteOptions);
    const worktree = unwrap(await adapterA.prepare({ workerId: 'ada', taskId: 't1', attempt: 1, branch: 'ada/t1' }, 'main'));
    writeFile(worktree.worktree, 'a.txt', 'changed by ada\n');
    writeFile(worktree.worktree, 'new.txt', 'added by ada\n');
    const tip = await commitAllIn(worktree.worktree, 'ada works');

    unwrap(await adapterA.publish({ workerId: 'ada', taskId: 't1', attempt: 1, branch: 'ada/t1' }));
    assert.equal(await revParse(remote, 'refs/heads/ada/t1'), tip);

    // B has never seen the branch: the review paths fetch it.
    const adapterB = new GitPortAdapter(b, () => 'main', remoteOptions);
    assert.deepEqual((await adapterB.changedFiles('ada/t1')).sort(), ['a.txt', 'new.txt']);
    assert.equal(await adapterB.fileAt('ada/t1', 'a.txt'), 'changed by ada\n');
    assert.equal(await adapterB.fileAt('main', 'a.txt'), 'alpha\n');
    const listed = unwrap(await changedFiles(b, 'main', 'ada/t1', remoteOptions));
    assert.deepEqual(listed.map((file) => [file.status, file.path]).sort(), [
      ['added', 'new.txt'],
      ['modified', 'a.txt'],
    ]);
    // Read from the tracking ref: B's own branches are untouched.
    assert.equal(await revParse(b, 'refs/remotes/origin/ada/t1'), tip);
    assert.equal((await simpleGit(b).raw(['branch', '--list', 'ada/t1'])).trim(), '');
    // Without the remote setting B does not go looking for it.
    const local = await changedFiles(b, 'main', 'bob/none');
    assert.deepEqual(!local.ok && local.code, 'branchNotFound');
  });

  test('a rejected push is a clear refusal, and nothing is lost or forced', async () => {
    const { remote, clones } = await sharedRemote();
    const [a = '', b = ''] = clones;
    const { workspace, path } = await taskIn(a, 'ada', 't1', 'a.txt', 'ada\n');
    const localTip = await revParse(path, 'HEAD');
    // The remote already has a different branch of that name (made on B).
    const other = await taskIn(b, 'ada', 't1', 'b.txt', 'someone else\n');
    unwrap(await other.workspace.publish('ada/t1'));
    const remoteTip = await revParse(remote, 'refs/heads/ada/t1');

    const pushed = await workspace.publish('ada/t1');
    assert.deepEqual(!pushed.ok && [pushed.kind, pushed.code], ['refused', 'pushRejected']);
    assert.match(!pushed.ok ? pushed.message : '', /not a fast-forward.*nothing was forced/);
    assert.equal(await revParse(remote, 'refs/heads/ada/t1'), remoteTip);
    assert.equal(await revParse(a, 'refs/heads/ada/t1'), localTip);
    assert.equal(readFile(path, 'a.txt'), 'ada\n');

    // A later commit on the branch is a fast-forward of what was pushed before: it goes through.
    const second = await taskIn(a, 'bob', 't2', 'b.txt', 'bob\n');
    unwrap(await second.workspace.publish('bob/t2'));
    writeFile(second.path, 'b.txt', 'bob again\n');
    const again = await commitAllIn(second.path, 'after review');
    unwrap(await second.workspace.publish('bob/t2'));
    assert.equal(await revParse(remote, 'refs/heads/bob/t2'), again);
  });

  test('a new task on B starts from what was merged on A: B`s main is fast-forwarded first', async () => {
    const { remote, clones } = await sharedRemote();
    const [a = '', b = ''] = clones;
    const { workspace, work } = await taskIn(a, 'ada', 't1', 'merged-on-a.txt', 'from A\n');
    const merged = unwrap(await workspace.merge({ ...work, base: 'main', strategy: 'rebase' }));
    assert.equal(await revParse(remote, 'refs/heads/main'), merged.baseAfter);
    const adapterB = new GitPortAdapter(b, () => 'main', remoteOptions);
    const prepared = unwrap(await adapterB.prepare({ workerId: 'bob', taskId: 't2', attempt: 1, branch: 'bob/t2' }, 'main'));
    assert.equal(await revParse(b, 'refs/heads/main'), merged.baseAfter);
    assert.equal(await revParse(prepared.worktree, 'HEAD'), merged.baseAfter);
    assert.equal(readFile(b, 'merged-on-a.txt'), 'from A\n');
  });

  test('an attempt requeued on another machine starts from the branch pushed by the first', async () => {
    const { clones } = await sharedRemote();
    const [a = '', b = ''] = clones;
    const first = await taskIn(a, 'ada', 't1', 'a.txt', 'first attempt\n');
    unwrap(await first.workspace.publish('ada/t1'));
    const adapterB = new GitPortAdapter(b, () => 'main', remoteOptions);
    assert.equal(await adapterB.branchExists('ada/t1'), true);
    assert.equal(await adapterB.branchExists('ada/none'), false);
    const prepared = unwrap(await adapterB.prepare({ workerId: 'bob', taskId: 't1', attempt: 2, branch: 'bob/t1' }, 'ada/t1'));
    assert.equal(readFile(prepared.worktree, 'a.txt'), 'first attempt\n');
  });
});

describe('without a remote (the single-machine default)', () => {
  test('nothing is pushed or fetched: the merge moves the local base only', async () => {
    const { remote, clones } = await sharedRemote(1);
    const [a = ''] = clones;
    const remoteMain = await revParse(remote, 'refs/heads/main');
    const adapter = new GitPortAdapter(a, () => 'main');
    const work = { workerId: 'ada', taskId: 't1', attempt: 1, branch: 'ada/t1' };
    const prepared = unwrap(await adapter.prepare(work, 'main'));
    writeFile(prepared.worktree, 'ada.txt', 'ada\n');
    await commitAllIn(prepared.worktree, 'task t1');
    unwrap(await adapter.publish(work));
    const outcome = unwrap(await adapter.merge(work, 'rebase'));
    assert.equal(await revParse(a, 'refs/heads/main'), outcome.baseAfter);
    assert.equal(await revParse(remote, 'refs/heads/main'), remoteMain);
    assert.equal((await simpleGit(remote).raw(['for-each-ref', '--format=%(refname)', 'refs/heads/'])).trim(), 'refs/heads/main');
    assert.equal(await adapter.branchExists('bob/none'), false);
    assert.equal(readFile(a, 'ada.txt'), 'ada\n');
  });
});

describe('the merge queue with a remote', () => {
  test('merges from B on the remote base that A moved, pushed as a fast-forward; B`s main follows', async () => {
    const { remote, clones } = await sharedRemote();
    const [a = '', b = ''] = clones;
    const { workspace, work } = await taskIn(b, 'bob', 't1', 'b.txt', 'bob\n');
    const moved = await moveRemoteMain(a, 'a.txt', 'A moved main\n');
    const staleMain = await revParse(b, 'refs/heads/main');

    const outcome = unwrap(await workspace.merge({ ...work, base: 'main', strategy: 'rebase' }));
    assert.equal(outcome.baseBefore, moved);
    assert.equal(outcome.commits, 1);
    assert.equal(outcome.localBase, 'updated');
    assert.equal(await revParse(remote, 'refs/heads/main'), outcome.baseAfter);
    assert.equal(await revParse(remote, `${outcome.baseAfter}~1`), moved);
    assert.equal(await revParse(b, 'refs/heads/main'), outcome.baseAfter);
    assert.notEqual(staleMain, outcome.baseAfter);
    // B's checkout of main followed by fast-forward: the files are there and nothing is left dirty.
    assert.equal(readFile(b, 'a.txt'), 'A moved main\n');
    assert.equal(readFile(b, 'b.txt'), 'bob\n');
    assert.equal(await statusOf(b), '');
    assert.equal(await onlyFastForwards(remote), true);
  });

  test('a base moved on the remote during the merge is baseMoved, never forced; a retry lands', async () => {
    const { remote, clones } = await sharedRemote();
    const [a = '', b = ''] = clones;
    const { workspace, work } = await taskIn(b, 'bob', 't1', 'b.txt', 'bob\n');
    let movedMeanwhile = '';
    const refused = await workspace.merge({
      ...work,
      base: 'main',
      strategy: 'rebase',
      // While B verifies its tip, A pushes to main.
      verify: async () => {
        movedMeanwhile = await moveRemoteMain(a, 'a.txt', 'A was faster\n');
        return ok(undefined);
      },
    });
    assert.deepEqual(!refused.ok && [refused.kind, refused.code, refused.details?.['actual']], ['refused', 'baseMoved', movedMeanwhile]);
    assert.match(!refused.ok ? refused.message : '', /nothing was pushed/);
    assert.equal(await revParse(remote, 'refs/heads/main'), movedMeanwhile);
    assert.equal(await onlyFastForwards(remote), true);
    // The task's work is still on its branch in B.
    assert.equal(await simpleGit(b).show(['bob/t1:b.txt']), 'bob\n');

    // Tried again (the existing rule for baseMoved), it is rebuilt on the new base and lands.
    const outcome = unwrap(await workspace.merge({ ...work, base: 'main', strategy: 'rebase' }));
    assert.equal(outcome.baseBefore, movedMeanwhile);
    assert.equal(await revParse(remote, 'refs/heads/main'), outcome.baseAfter);
    // The remote's base moved twice, each time forward: A's push, then B's.
    assert.deepEqual(await remoteBaseHistory(remote), [movedMeanwhile, outcome.baseAfter]);
    assert.equal(await onlyFastForwards(remote), true);
  });

  test('a task conflicting with what A pushed is mergeConflict: nothing pushed, the task goes back', async () => {
    const { remote, clones } = await sharedRemote();
    const [a = '', b = ''] = clones;
    const { workspace, work, path } = await taskIn(b, 'bob', 't1', 'a.txt', 'bob edits a\n');
    const taskTip = await revParse(path, 'HEAD');
    const moved = await moveRemoteMain(a, 'a.txt', 'A edits a too\n');
    for (const strategy of ['rebase', 'merge', 'squash'] as const) {
      const result = await workspace.merge({ ...work, base: 'main', strategy });
      assert.deepEqual(!result.ok && [result.code, result.details?.['files']], ['mergeConflict', ['a.txt']], strategy);
      assert.equal(await revParse(remote, 'refs/heads/main'), moved);
      assert.equal(await revParse(path, 'HEAD'), taskTip);
      assert.equal(await statusOf(path), '');
    }
  });

  test('merge and squash strategies push their commit on the remote base too', async () => {
    const { remote, clones } = await sharedRemote();
    const [a = '', b = ''] = clones;
    for (const [index, strategy] of (['merge', 'squash'] as const).entries()) {
      const { workspace, work } = await taskIn(b, 'bob', `t${index}`, `bob-${index}.txt`, 'bob\n');
      const moved = await moveRemoteMain(a, `a-${index}.txt`, 'A\n');
      const outcome = unwrap(await workspace.merge({ ...work, base: 'main', strategy }));
      assert.equal(outcome.baseBefore, moved, strategy);
      assert.equal(await revParse(remote, 'refs/heads/main'), outcome.baseAfter);
      assert.equal(await revParse(remote, `${outcome.baseAfter}~1`), moved);
      const files = await simpleGit(remote).raw(['ls-tree', '--name-only', 'main']);
      assert.match(files, new RegExp(`bob-${index}\\.txt`));
    }
    assert.equal(await onlyFastForwards(remote), true);
  });

  test('a local main with commits of its own is left alone; the merge still lands on the remote', async () => {
    const { remote, clones } = await sharedRemote();
    const [b = ''] = clones;
    const { workspace, work } = await taskIn(b, 'bob', 't1', 'b.txt', 'bob\n');
    writeFile(b, 'local.txt', 'not pushed\n');
    const localMain = await commitAllIn(b, 'a local commit on main');
    const outcome = unwrap(await workspace.merge({ ...work, base: 'main', strategy: 'rebase' }));
    assert.equal(outcome.localBase, 'unchanged');
    assert.equal(await revParse(b, 'refs/heads/main'), localMain);
    assert.equal(await revParse(remote, 'refs/heads/main'), outcome.baseAfter);
    const files = await simpleGit(remote).raw(['ls-tree', '--name-only', 'main']);
    assert.doesNotMatch(files, /local\.txt/);
  });

  test('a merge on the machine without the worker`s branch starts from the pushed one', async () => {
    const { remote, clones } = await sharedRemote();
    const [a = '', b = ''] = clones;
    const first = await taskIn(a, 'ada', 't1', 'new.txt', 'from A\n');
    unwrap(await first.workspace.publish('ada/t1'));
    const adapterB = new GitPortAdapter(b, () => 'main', remoteOptions);
    const work = { workerId: 'ada', taskId: 't1', attempt: 1, branch: 'ada/t1' };
    // No worktree on B: the crew then prepares one from the (now local) branch and merges again.
    const missing = await adapterB.merge(work, 'rebase');
    assert.deepEqual(!missing.ok && missing.code, 'worktreeMissing');
    unwrap(await adapterB.prepare(work, 'main'));
    const outcome = unwrap(await adapterB.merge(work, 'rebase'));
    assert.equal(await revParse(remote, 'refs/heads/main'), outcome.baseAfter);
    assert.equal(await simpleGit(remote).show([`${outcome.baseAfter}:new.txt`]), 'from A\n');
  });
});
