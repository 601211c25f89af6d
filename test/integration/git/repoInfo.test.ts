import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { simpleGit } from 'simple-git';
import { GitWorkspace, initRepoInfo } from '../../../src/infra/git';
import { makeRepo, revParse, unwrap } from './gitFixtures';

test('repo info names the checked-out branch, the default base', async () => {
  const { root } = await makeRepo();
  await simpleGit(root).raw(['checkout', '--quiet', '-b', 'develop']);
  const info = unwrap(await initRepoInfo(root));
  assert.deepEqual(info, { root, currentBranch: 'develop', head: await revParse(root, 'HEAD'), linkedWorktree: false });
  assert.equal(unwrap(await new GitWorkspace(root).open()).currentBranch, 'develop');

  await simpleGit(root).raw(['checkout', '--quiet', '--detach']);
  assert.equal(unwrap(await initRepoInfo(root)).currentBranch, undefined);
});

test('a folder that is not a repository, or not its root, is a clear invalid result', async () => {
  const plain = mkdtempSync(join(tmpdir(), 'foreman-not-a-repo-'));
  try {
    const notRepo = await initRepoInfo(plain);
    assert.deepEqual(!notRepo.ok && [notRepo.kind, notRepo.code], ['invalid', 'notAGitRepository']);
    const missing = await initRepoInfo(join(plain, 'nope'));
    assert.deepEqual(!missing.ok && [missing.kind, missing.code], ['invalid', 'notAGitRepository']);
  } finally {
    rmSync(plain, { recursive: true, force: true });
  }
  const { root } = await makeRepo();
  mkdirSync(join(root, 'sub'));
  const sub = await initRepoInfo(join(root, 'sub'));
  assert.deepEqual(!sub.ok && [sub.code, sub.details?.['topLevel']], ['notRepositoryRoot', root]);
  const badTemplate = await new GitWorkspace(root, { branchTemplate: '{worker}/{nope}' }).open();
  assert.equal(!badTemplate.ok && badTemplate.code, 'invalidBranchTemplate');
});

test('a linked worktree is recognised as one', async () => {
  const { root } = await makeRepo();
  const workspace = new GitWorkspace(root);
  const { path } = unwrap(await workspace.prepareWorktree({ workerId: 'w1', taskId: 't1', startPoint: 'main' }));
  const info = unwrap(await initRepoInfo(path));
  assert.equal(info.linkedWorktree, true);
  assert.equal(info.currentBranch, 'w1/t1');
});
