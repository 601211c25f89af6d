import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { GitWorkspace, changedFiles, commitsAhead, deleteBranch } from '../../../src/infra/git';
import { allRefs, commitAllIn, makeRepo, revParse, unwrap, writeFile } from './gitFixtures';

test('a branch with commits not in the base is not deleted without force', async () => {
  const { root } = await makeRepo();
  const workspace = new GitWorkspace(root);
  const { path } = unwrap(await workspace.prepareWorktree({ workerId: 'w1', taskId: 't1', startPoint: 'main' }));
  writeFile(path, 'a.txt', 'work\n');
  const tip = await commitAllIn(path, 'work');
  assert.equal(unwrap(await commitsAhead(root, 'w1/t1', 'main')), 1);

  const checkedOut = await deleteBranch(root, 'w1/t1', { base: 'main', force: true });
  assert.equal(!checkedOut.ok && checkedOut.code, 'branchCheckedOut');
  unwrap(await workspace.prepareWorktree({ workerId: 'w1', taskId: 't2', startPoint: 'main' }));

  const refused = await deleteBranch(root, 'w1/t1', { base: 'main' });
  assert.equal(refused.ok, false);
  assert.equal(!refused.ok && refused.kind, 'refused');
  assert.equal(!refused.ok && refused.code, 'unmergedWork');
  assert.equal(await revParse(root, 'refs/heads/w1/t1'), tip);

  const forced = unwrap(await deleteBranch(root, 'w1/t1', { base: 'main', force: true }));
  assert.deepEqual(forced, { sha: tip, commitsAhead: 1 });
  assert.doesNotMatch(await allRefs(root), /refs\/heads\/w1\/t1 /);
});

test('a branch fully in the base is deleted without force; unknown names are notFound', async () => {
  const { root } = await makeRepo();
  const workspace = new GitWorkspace(root);
  unwrap(await workspace.prepareWorktree({ workerId: 'w1', taskId: 't1', startPoint: 'main' }));
  unwrap(await workspace.prepareWorktree({ workerId: 'w1', taskId: 't2', startPoint: 'main' }));
  assert.deepEqual(unwrap(await workspace.deleteBranch('w1/t1', { base: 'main' })).commitsAhead, 0);
  const missing = await deleteBranch(root, 'w1/t1', { base: 'main' });
  assert.equal(!missing.ok && missing.kind, 'notFound');
  const hostile = await deleteBranch(root, '--upload-pack=x', { base: 'main', force: true });
  assert.equal(!hostile.ok && hostile.code, 'invalidBranchName');
});

test('changed files lists what the branch changes since it left the base', async () => {
  const { root } = await makeRepo();
  const workspace = new GitWorkspace(root);
  const { path } = unwrap(await workspace.prepareWorktree({ workerId: 'w1', taskId: 't1', startPoint: 'main' }));
  writeFile(path, 'a.txt', 'changed\n');
  writeFile(path, 'c.txt', 'added\n');
  rmSync(join(path, 'b.txt'));
  await commitAllIn(path, 'work');
  writeFile(root, 'main-only.txt', 'later on main\n');
  await commitAllIn(root, 'main moves on');
  assert.deepEqual(unwrap(await changedFiles(root, 'main', 'w1/t1')), [
    { status: 'modified', path: 'a.txt' },
    { status: 'deleted', path: 'b.txt' },
    { status: 'added', path: 'c.txt' },
  ]);
});
