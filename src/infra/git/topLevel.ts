/**
 * Git looks for a repository in every parent folder. A worktree folder that lost its `.git` file
 * (or a folder that never was a worktree) inside the main checkout would make every command act on
 * the user's checkout instead. So before Foreman runs anything in a worktree, it checks that git's
 * top level is that very folder (ARCHITECTURE §5).
 */
import { realpath, stat } from 'node:fs/promises';
import { type Result, ok, refused } from '../../core/result';
import { errorText, isGitFailure, openGit } from './gitClient';

/** Resolves to the worktree's real path when git's top level is exactly `worktreePath`. */
export async function verifyWorktreeTopLevel(worktreePath: string): Promise<Result<string>> {
  let expected: string;
  try {
    expected = await realpath(worktreePath);
    if (!(await stat(expected)).isDirectory()) throw new Error('not a folder');
  } catch {
    return refused('worktreeMissing', `The worktree folder '${worktreePath}' does not exist.`, { path: worktreePath });
  }
  let topLevel: string;
  try {
    topLevel = (await openGit(expected).raw(['rev-parse', '--show-toplevel'])).trim();
  } catch (error) {
    if (!isGitFailure(error)) throw error;
    return refused('notAWorktree', `'${worktreePath}' is not inside a git repository: ${errorText(error)}`, { path: worktreePath });
  }
  const actual = topLevel.length > 0 ? await realpath(topLevel).catch(() => topLevel) : '';
  if (actual !== expected) {
    return refused('notAWorktree', `'${worktreePath}' is not a worktree of its own: git would work in '${actual}' instead.`, {
      path: worktreePath,
      topLevel: actual,
    });
  }
  return ok(expected);
}
