import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { changeSides } from '../../../src/extension/commands/changeSides';
import { changedFiles } from '../../../src/infra/git';

test('Show Changes: added, deleted, renamed and modified files each get the sides VS Code reads as such', async () => {
  // A real repository: a branch that adds, deletes, renames and edits one file each.
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'foreman-change-sides-')));
  try {
    const git = (...args: string[]) => execFileSync('git', ['-C', dir, ...args], { stdio: 'pipe' }).toString();
    git('init', '-q', '-b', 'main');
    git('config', 'user.name', 'Test');
    git('config', 'user.email', 'test@foreman.invalid');
    writeFileSync(join(dir, 'kept.txt'), 'one\n');
    writeFileSync(join(dir, 'gone.txt'), 'bye\n');
    writeFileSync(join(dir, 'old-name.txt'), 'a long enough text that git sees the rename\n'.repeat(5));
    git('add', '-A');
    git('commit', '-q', '-m', 'base');
    git('checkout', '-q', '-b', 'ada/task');
    writeFileSync(join(dir, 'kept.txt'), 'one\ntwo\n');
    writeFileSync(join(dir, 'new.txt'), 'hello\n');
    git('rm', '-q', 'gone.txt');
    git('mv', 'old-name.txt', 'new-name.txt');
    git('add', '-A');
    git('commit', '-q', '-m', 'work');

    const listed = await changedFiles(dir, 'main', 'ada/task');
    assert.ok(listed.ok, listed.ok ? '' : listed.message);
    const worktree = '/wt/ada';
    const sides = new Map(changeSides(listed.value, worktree).map((entry) => [entry.label, entry]));
    assert.deepEqual(sides.get('/wt/ada/new.txt'), { label: '/wt/ada/new.txt', modified: '/wt/ada/new.txt' }, 'added: no original');
    assert.deepEqual(
      sides.get('/wt/ada/gone.txt'),
      { label: '/wt/ada/gone.txt', original: { path: '/wt/ada/gone.txt', file: 'gone.txt' } },
      'deleted: no modified side',
    );
    assert.deepEqual(sides.get('/wt/ada/new-name.txt'), {
      label: '/wt/ada/new-name.txt',
      original: { path: '/wt/ada/old-name.txt', file: 'old-name.txt' },
      modified: '/wt/ada/new-name.txt',
    });
    // Modified: both sides share one path, so VS Code does not take it for a rename.
    assert.deepEqual(sides.get('/wt/ada/kept.txt'), {
      label: '/wt/ada/kept.txt',
      original: { path: '/wt/ada/kept.txt', file: 'kept.txt' },
      modified: '/wt/ada/kept.txt',
    });
    assert.equal(sides.size, 4);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
