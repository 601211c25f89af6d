import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { simpleGit } from 'simple-git';
import { GitWorkspace, restoreWip, snapshotWip } from '../../../src/infra/git';
import { allRefs, commitAllIn, makeRepo, readFile, revParse, statusOf, unwrap, writeFile } from './gitFixtures';

async function workerWorktree() {
  const fixture = await makeRepo();
  const workspace = new GitWorkspace(fixture.root);
  const worktree = unwrap(await workspace.prepareWorktree({ workerId: 'w1', taskId: 't1', startPoint: 'main' }));
  return { ...fixture, workspace, path: worktree.path };
}

test('snapshots uncommitted and untracked changes without touching the worktree, its index or the main checkout', async () => {
  const { root, workspace, path } = await workerWorktree();
  writeFile(path, 'a.txt', 'staged edit\n');
  await simpleGit(path).raw(['add', 'a.txt']);
  writeFile(path, 'a.txt', 'staged edit, then more\n');
  writeFile(path, 'b.txt', 'unstaged edit\n');
  writeFile(path, 'dir/new.txt', 'untracked\n');
  writeFile(path, '.gitignore', 'ignored.log\n');
  writeFile(path, 'ignored.log', 'ignored\n');
  const statusBefore = await statusOf(path);
  const indexBefore = readFileSync(join(root, '.git', 'worktrees', 'w1', 'index'));
  const mainStatusBefore = await statusOf(root);
  const headBefore = await revParse(path, 'HEAD');

  const sha = unwrap(await snapshotWip({ worktreePath: path, taskId: 't1', attempt: 1, message: 'before reassign' }));
  assert.ok(sha !== undefined);
  // The index first: `git status` itself may refresh it.
  assert.deepEqual(readFileSync(join(root, '.git', 'worktrees', 'w1', 'index')), indexBefore);
  assert.equal(await statusOf(path), statusBefore);
  assert.equal(await statusOf(root), mainStatusBefore);
  assert.equal(await revParse(path, 'HEAD'), headBefore);
  assert.equal(await revParse(root, 'refs/foreman/wip/t1/1'), sha);
  assert.equal(await revParse(root, `${sha}^1`), headBefore);

  const git = simpleGit(root);
  assert.equal(await git.raw(['show', `${sha}:a.txt`]), 'staged edit, then more\n');
  assert.equal(await git.raw(['show', `${sha}:dir/new.txt`]), 'untracked\n');
  assert.match(await git.raw(['log', '-1', '--format=%B', sha]), /^before reassign\n\nForeman-Task: t1\nForeman-Attempt: 1/);
  assert.equal((await git.raw(['ls-tree', '--name-only', sha])).includes('ignored.log'), false);

  const [listed] = await workspace.listWip();
  assert.deepEqual(
    { ref: listed?.ref, taskId: listed?.taskId, attempt: listed?.attempt, sha: listed?.sha, files: listed?.files },
    { ref: 'refs/foreman/wip/t1/1', taskId: 't1', attempt: 1, sha, files: ['.gitignore', 'a.txt', 'b.txt', 'dir/new.txt'] },
  );
  assert.match(listed?.date ?? '', /^\d{4}-\d\d-\d\dT/);
});

test('nothing to snapshot resolves to undefined and creates no ref', async () => {
  const { root, path } = await workerWorktree();
  const refsBefore = await allRefs(root);
  assert.equal(unwrap(await snapshotWip({ worktreePath: path, taskId: 't1', attempt: 1 })), undefined);
  assert.equal(await allRefs(root), refsBefore);
});

test('a second snapshot of the same attempt keeps the first reachable', async () => {
  const { root, path } = await workerWorktree();
  writeFile(path, 'one.txt', '1\n');
  const first = unwrap(await snapshotWip({ worktreePath: path, taskId: 't1', attempt: 1 }));
  assert.equal(unwrap(await snapshotWip({ worktreePath: path, taskId: 't1', attempt: 1 })), first);
  writeFile(path, 'two.txt', '2\n');
  const second = unwrap(await snapshotWip({ worktreePath: path, taskId: 't1', attempt: 1 }));
  assert.notEqual(second, first);
  assert.equal(await revParse(root, `${second}^2`), first);
});

test('restore brings a snapshot back into a clean worktree, and refuses a dirty one', async () => {
  const { workspace, path } = await workerWorktree();
  writeFile(path, 'a.txt', 'edited\n');
  writeFile(path, 'dir/new.txt', 'untracked\n');
  rmSync(join(path, 'b.txt'));
  const statusBefore = await statusOf(path);
  unwrap(await workspace.snapshot({ workerId: 'w1', taskId: 't1', attempt: 3 }));
  await simpleGit(path).raw(['reset', '--hard', '--quiet']);
  await simpleGit(path).raw(['clean', '-fdq']);
  assert.equal(await statusOf(path), '');

  const restored = unwrap(await restoreWip({ worktreePath: path, ref: 'refs/foreman/wip/t1/3' }));
  assert.deepEqual(restored.files, ['a.txt', 'b.txt', 'dir/new.txt']);
  assert.equal(readFile(path, 'a.txt'), 'edited\n');
  assert.equal(readFile(path, 'dir/new.txt'), 'untracked\n');
  assert.equal(existsSync(join(path, 'b.txt')), false);
  assert.equal(await statusOf(path), statusBefore);

  const dirty = await restoreWip({ worktreePath: path, ref: 'refs/foreman/wip/t1/3' });
  assert.equal(!dirty.ok && dirty.code, 'dirtyWorktree');
  const unknown = await workspace.restoreWip('w1', 'refs/foreman/wip/t1/9');
  assert.equal(!unknown.ok && unknown.kind, 'notFound');
  const notWip = await workspace.restoreWip('w1', 'refs/heads/main');
  assert.equal(!notWip.ok && notWip.code, 'invalidWipRef');
});

test('restore applies onto a worktree that moved on, and refuses atomically when it does not fit', async () => {
  const { path } = await workerWorktree();
  writeFile(path, 'a.txt', 'wip edit\n');
  unwrap(await snapshotWip({ worktreePath: path, taskId: 't1', attempt: 1 }));
  await simpleGit(path).raw(['checkout', '--quiet', '--', 'a.txt']);
  writeFile(path, 'b.txt', 'committed later\n');
  await commitAllIn(path, 'later');
  unwrap(await restoreWip({ worktreePath: path, ref: 'refs/foreman/wip/t1/1' }));
  assert.equal(readFile(path, 'a.txt'), 'wip edit\n');
  assert.equal(readFile(path, 'b.txt'), 'committed later\n');

  await simpleGit(path).raw(['checkout', '--quiet', '--', 'a.txt']);
  writeFile(path, 'a.txt', 'conflicting commit\n');
  await commitAllIn(path, 'conflict');
  const refused = await restoreWip({ worktreePath: path, ref: 'refs/foreman/wip/t1/1' });
  assert.equal(!refused.ok && refused.code, 'wipDoesNotApply');
  assert.equal(await statusOf(path), '');
});

test('snapshots work when the environment sets variables simple-git refuses to pass on (EDITOR, GIT_ASKPASS)', async () => {
  const { path } = await workerWorktree();
  const saved = { EDITOR: process.env['EDITOR'], GIT_ASKPASS: process.env['GIT_ASKPASS'], GIT_PAGER: process.env['GIT_PAGER'] };
  Object.assign(process.env, { EDITOR: 'vim', GIT_ASKPASS: '/usr/bin/false', GIT_PAGER: 'less' });
  try {
    writeFile(path, 'a.txt', 'edited\n');
    assert.ok(unwrap(await snapshotWip({ worktreePath: path, taskId: 't1', attempt: 1 })) !== undefined);
  } finally {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
});
