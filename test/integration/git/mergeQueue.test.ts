import assert from 'node:assert/strict';
import { test } from 'node:test';
import { simpleGit } from 'simple-git';
import { type MergeStrategy, GitWorkspace, mergeBranch } from '../../../src/infra/git';
import { invalid, ok } from '../../../src/core/result';
import { branchOf, commitAllIn, makeRepo, readFile, revParse, statusOf, unwrap, writeFile } from './gitFixtures';

/** A repository with worker w1 on task t1, which changed `a.txt` (committed) and `c.txt` (left uncommitted). */
async function taskReady(workerId = 'w1', taskId = 't1', file = 'a.txt', content = 'from the task\n') {
  const fixture = await makeRepo();
  const workspace = new GitWorkspace(fixture.root);
  const worktree = unwrap(await workspace.prepareWorktree({ workerId, taskId, startPoint: 'main' }));
  writeFile(worktree.path, file, content);
  await commitAllIn(worktree.path, `task ${taskId}`);
  writeFile(worktree.path, 'c.txt', 'left uncommitted\n');
  return { ...fixture, workspace, path: worktree.path };
}

const task = { workerId: 'w1', taskId: 't1', attempt: 1 };

test('rebase + fast-forward advances main where it is checked out, leftovers included', async () => {
  const { root, workspace, path } = await taskReady();
  writeFile(root, 'b.txt', 'main moved on\n');
  const mainBefore = await commitAllIn(root, 'main moves');
  const verified: string[] = [];
  const outcome = unwrap(
    await workspace.merge({
      ...task,
      base: 'main',
      strategy: 'rebase',
      verify: (worktree) => (verified.push(readFile(worktree, 'b.txt')), Promise.resolve(ok(undefined))),
    }),
  );
  assert.equal(outcome.baseBefore, mainBefore);
  assert.equal(outcome.commits, 2);
  assert.equal(await revParse(root, 'refs/heads/main'), outcome.baseAfter);
  assert.equal(await revParse(path, 'HEAD'), outcome.baseAfter);
  assert.deepEqual(verified, ['main moved on\n']);
  assert.equal(readFile(root, 'a.txt'), 'from the task\n');
  assert.equal(readFile(root, 'c.txt'), 'left uncommitted\n');
  assert.equal(await statusOf(root), '');
  const trailers = await simpleGit(root).raw(['log', '-1', '--format=%(trailers:key=Foreman-Task,valueonly)', 'main']);
  assert.equal(trailers.trim(), 't1');
});

test('a conflicting branch is refused with the file listed, base untouched, rebase aborted', async () => {
  const { root, workspace, path } = await taskReady();
  writeFile(root, 'a.txt', 'from main\n');
  const mainBefore = await commitAllIn(root, 'main edits the same line');
  const workerHead = await revParse(path, 'HEAD');
  const result = await workspace.merge({ ...task, base: 'main', strategy: 'rebase' });
  assert.equal(result.ok, false);
  assert.deepEqual(!result.ok && [result.kind, result.code, result.details?.['files']], ['refused', 'mergeConflict', ['a.txt']]);
  assert.equal(await revParse(root, 'refs/heads/main'), mainBefore);
  assert.equal(readFile(root, 'a.txt'), 'from main\n');
  assert.equal(await statusOf(path), '');
  assert.equal(await branchOf(path), 'w1/t1');
  assert.equal(await revParse(path, 'HEAD~1'), workerHead);
});

test("the user's uncommitted edit in the main checkout survives: dirtyCheckout, base unchanged", async () => {
  const { root, workspace } = await taskReady();
  writeFile(root, 'a.txt', 'user edit, not committed\n');
  const mainBefore = await revParse(root, 'refs/heads/main');
  const result = await workspace.merge({ ...task, base: 'main', strategy: 'rebase' });
  assert.deepEqual(!result.ok && [result.code, result.details?.['files']], ['dirtyCheckout', ['a.txt']]);
  assert.match(!result.ok ? result.message : '', /a\.txt/);
  assert.equal(readFile(root, 'a.txt'), 'user edit, not committed\n');
  assert.equal(await revParse(root, 'refs/heads/main'), mainBefore);
  assert.equal(await statusOf(root), ' M a.txt\n');
});

test('an unrelated uncommitted edit in the main checkout does not block the fast-forward', async () => {
  const { root, workspace } = await taskReady();
  writeFile(root, 'b.txt', 'user edit elsewhere\n');
  unwrap(await workspace.merge({ ...task, base: 'main', strategy: 'rebase' }));
  assert.equal(readFile(root, 'b.txt'), 'user edit elsewhere\n');
  assert.equal(readFile(root, 'a.txt'), 'from the task\n');
});

test('a base checked out nowhere is advanced by compare-and-swap', async () => {
  const { root, workspace } = await taskReady();
  await simpleGit(root).raw(['checkout', '--quiet', '-b', 'elsewhere']);
  const outcome = unwrap(await workspace.merge({ ...task, base: 'main', strategy: 'rebase' }));
  assert.equal(await revParse(root, 'refs/heads/main'), outcome.baseAfter);
  assert.equal(await branchOf(root), 'elsewhere');
  assert.equal(readFile(root, 'a.txt'), 'alpha\n');
  assert.equal(await statusOf(root), '');
});

for (const strategy of ['merge', 'squash'] as const satisfies readonly MergeStrategy[]) {
  test(`${strategy} strategy puts the task on main with the trailers`, async () => {
    const { root, workspace, path } = await taskReady();
    writeFile(root, 'b.txt', 'main moved on\n');
    const mainBefore = await commitAllIn(root, 'main moves');
    const outcome = unwrap(await workspace.merge({ ...task, base: 'main', strategy }));
    const git = simpleGit(root);
    const parents = (await git.raw(['log', '-1', '--format=%P', 'main'])).trim().split(' ');
    assert.equal(parents[0], mainBefore);
    assert.equal(parents.length, strategy === 'merge' ? 2 : 1);
    assert.equal(outcome.commits, strategy === 'merge' ? 3 : 1);
    assert.equal((await git.raw(['log', '-1', '--format=%(trailers:key=Foreman-Worker,valueonly)', 'main'])).trim(), 'w1');
    assert.equal(readFile(root, 'a.txt'), 'from the task\n');
    assert.equal(readFile(root, 'c.txt'), 'left uncommitted\n');
    assert.equal(await branchOf(path), 'w1/t1');
    assert.equal(await statusOf(path), '');
    assert.equal(unwrap(await workspace.commitsAhead('w1/t1', 'main')), strategy === 'merge' ? 0 : 2);
  });

  test(`${strategy} strategy refuses a conflict and leaves everything as it was`, async () => {
    const { root, workspace, path } = await taskReady();
    writeFile(root, 'a.txt', 'from main\n');
    const mainBefore = await commitAllIn(root, 'conflicting');
    const result = await workspace.merge({ ...task, base: 'main', strategy });
    assert.deepEqual(!result.ok && [result.code, result.details?.['files']], ['mergeConflict', ['a.txt']]);
    assert.equal(await revParse(root, 'refs/heads/main'), mainBefore);
    assert.equal(await branchOf(path), 'w1/t1');
    assert.equal(await statusOf(path), '');
  });
}

test('a failed verification leaves the base where it was', async () => {
  const { root, workspace } = await taskReady();
  const mainBefore = await revParse(root, 'refs/heads/main');
  const result = await workspace.merge({
    ...task,
    base: 'main',
    strategy: 'squash',
    verify: () => Promise.resolve(invalid('testsFailed', '3 tests failed')),
  });
  assert.equal(!result.ok && result.code, 'verifyFailed');
  assert.equal(await revParse(root, 'refs/heads/main'), mainBefore);
});

test('merges into one repository run one at a time', async () => {
  const fixture = await makeRepo();
  const workspace = new GitWorkspace(fixture.root);
  const paths: string[] = [];
  for (const [workerId, file] of [
    ['w1', 'one.txt'],
    ['w2', 'two.txt'],
  ] as const) {
    const { path } = unwrap(await workspace.prepareWorktree({ workerId, taskId: `t-${workerId}`, startPoint: 'main' }));
    writeFile(path, file, `${workerId}\n`);
    await commitAllIn(path, workerId);
    paths.push(path);
  }
  let running = 0;
  let overlapped = false;
  const verify = async () => {
    running += 1;
    overlapped ||= running > 1;
    await new Promise((resolve) => setTimeout(resolve, 50));
    running -= 1;
    return ok(undefined);
  };
  const [first, second] = await Promise.all([
    mergeBranch({
      repoRoot: fixture.root,
      worktreePath: paths[0] ?? '',
      branch: 'w1/t-w1',
      base: 'main',
      strategy: 'rebase',
      verify,
      workerId: 'w1',
      taskId: 't-w1',
      attempt: 1,
    }),
    workspace.merge({ workerId: 'w2', taskId: 't-w2', attempt: 1, base: 'main', strategy: 'rebase', verify }),
  ]);
  assert.equal(overlapped, false);
  assert.ok(first.ok && second.ok);
  assert.equal(readFile(fixture.root, 'one.txt'), 'w1\n');
  assert.equal(readFile(fixture.root, 'two.txt'), 'w2\n');
  assert.equal(await simpleGit(fixture.root).raw(['rev-list', '--count', 'main']), '3\n');
});
