/**
 * `npm start` after the demo repository was deleted ("delete it to start over"): the worktrees the
 * deleted demo left beside it go, so the new demo's workers can make theirs; nothing else there does.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { removeOrphanedWorktrees } from '../../../scripts/demoRepo.mjs';

const git = (dir: string, ...args: string[]) => execFileSync('git', ['-C', dir, ...args], { stdio: 'pipe' }).toString();

function repoWithWorktree(repo: string, worktree: string): void {
  mkdirSync(repo, { recursive: true });
  git(repo, 'init', '-q', '-b', 'main');
  git(repo, '-c', 'user.name=T', '-c', 'user.email=t@example.com', 'commit', '-q', '--allow-empty', '-m', 'initial');
  git(repo, 'worktree', 'add', '-q', '-b', `work-${Date.now()}`, worktree);
}

test("a deleted demo's worktrees are removed before a new demo is made; a folder of the user's and another repository's worktree stay", () => {
  const scratch = mkdtempSync(join(tmpdir(), 'foreman-demo-worktrees-'));
  try {
    const demo = join(scratch, 'demo-repo');
    const worktrees = join(scratch, '.foreman-worktrees', 'demo-repo');
    repoWithWorktree(demo, join(worktrees, 'ada'));
    // Another repository whose worktree happens to sit in the same folder, and a plain folder with a file.
    repoWithWorktree(join(scratch, 'other'), join(worktrees, 'grace'));
    mkdirSync(join(worktrees, 'notes'));
    writeFileSync(join(worktrees, 'notes', 'todo.txt'), 'mine\n');

    // While the demo exists, nothing is touched: its worktrees are live.
    assert.deepEqual(removeOrphanedWorktrees(demo), []);
    assert.ok(existsSync(join(worktrees, 'ada', '.git')));

    rmSync(demo, { recursive: true, force: true });
    assert.deepEqual(removeOrphanedWorktrees(demo), [join(worktrees, 'ada')]);
    assert.equal(existsSync(join(worktrees, 'ada')), false);
    assert.ok(existsSync(join(worktrees, 'grace', '.git')), "another repository's worktree stays");
    assert.equal(readFileSync(join(worktrees, 'notes', 'todo.txt'), 'utf8'), 'mine\n');
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
});
