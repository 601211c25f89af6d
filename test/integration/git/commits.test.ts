import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { simpleGit } from 'simple-git';
import { GitWorkspace, commitLeftovers } from '../../../src/infra/git';
import { makeRepo, revParse, statusOf, unwrap, writeFile } from './gitFixtures';

test('commit leftovers commits tracked and untracked changes with the three Foreman trailers', async () => {
  const { root } = await makeRepo();
  const workspace = new GitWorkspace(root);
  const { path } = unwrap(await workspace.prepareWorktree({ workerId: 'w1', taskId: 't1', startPoint: 'main' }));
  writeFile(path, 'a.txt', 'changed\n');
  writeFile(path, 'new/file.txt', 'new\n');

  const sha = unwrap(await commitLeftovers({ worktreePath: path, taskId: 't1', workerId: 'w1', attempt: 2, message: '# keep this line' }));
  assert.ok(sha !== undefined);
  assert.equal(await revParse(path, 'HEAD'), sha);
  assert.equal(await revParse(root, 'refs/heads/w1/t1'), sha);
  assert.equal(await statusOf(path), '');
  const git = simpleGit(path);
  assert.equal((await git.raw(['log', '-1', '--format=%(trailers)'])).trim(), 'Foreman-Task: t1\nForeman-Worker: w1\nForeman-Attempt: 2');
  assert.equal((await git.raw(['log', '-1', '--format=%s'])).trim(), '# keep this line');
  assert.equal((await git.raw(['log', '-1', '--format=%an <%ae>'])).trim(), 'Test User <test@example.com>');

  assert.equal(unwrap(await workspace.commitLeftovers({ workerId: 'w1', taskId: 't1', attempt: 2 })), undefined);
});

test('commit leftovers uses the Foreman identity only when none is configured', async () => {
  const { root } = await makeRepo({ identity: false });
  const workspace = new GitWorkspace(root);
  const { path } = unwrap(await workspace.prepareWorktree({ workerId: 'w1', taskId: 't1', startPoint: 'main' }));
  writeFile(path, 'b.txt', 'changed\n');
  unwrap(await workspace.commitLeftovers({ workerId: 'w1', taskId: 't1', attempt: 1 }));
  const git = simpleGit(path);
  assert.equal(
    (await git.raw(['log', '-1', '--format=%an <%ae>|%cn <%ce>'])).trim(),
    'Foreman <foreman@localhost>|Foreman <foreman@localhost>',
  );

  await git.raw(['config', 'user.name', 'Someone']);
  writeFile(path, 'b.txt', 'changed again\n');
  unwrap(await workspace.commitLeftovers({ workerId: 'w1', taskId: 't1', attempt: 1 }));
  assert.equal((await git.raw(['log', '-1', '--format=%an <%ae>'])).trim(), 'Someone <foreman@localhost>');
});

test('commit leftovers refuses bad ids and a folder that is not a worktree', async () => {
  const { root } = await makeRepo();
  const badId = await commitLeftovers({ worktreePath: root, taskId: 'T 1', workerId: 'w1', attempt: 1 });
  assert.equal(!badId.ok && badId.code, 'invalidTaskId');
  const badAttempt = await commitLeftovers({ worktreePath: root, taskId: 't1', workerId: 'w1', attempt: 0 });
  assert.equal(!badAttempt.ok && badAttempt.code, 'invalidAttempt');
  writeFile(root, 'sub/edit.txt', 'inside the main checkout\n');
  const notWorktree = await commitLeftovers({ worktreePath: join(root, 'sub'), taskId: 't1', workerId: 'w1', attempt: 1 });
  assert.equal(!notWorktree.ok && notWorktree.code, 'notAWorktree');
  assert.match(await statusOf(root), /\?\? sub\/edit.txt/);
});
