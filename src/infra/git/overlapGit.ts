/**
 * The git side of the overlap check (issue 33, docs/overlaps.md): which files a worktree changed
 * against the base, with the base lines each change touches, and the rebase a task asked for when
 * the task it overlapped merged. argv arrays only, through the one simple-git client.
 */
import { existsSync } from 'node:fs';
import { type Result, ok, refused } from '../../core/result';
import { type LineRange, type TouchedFile, rangesOfDiff } from '../../core/overlapIndex';
import { errorText, isGitFailure, nulFields, openGit, openGitForCommits } from './gitClient';

/** A worktree whose diff is larger than this is read by file names only (no line ranges). */
const maxDiffBytes = 4 * 1024 * 1024;

/**
 * Files changed in `worktree` since it left `base` (committed, staged and unstaged edits, and
 * untracked files, which count as new files changed from line 0), with the base lines changed.
 */
export async function touchedFiles(worktree: string, base: string): Promise<Result<TouchedFile[]>> {
  if (!worktree || !existsSync(worktree)) return refused('noWorktree', `There is no worktree at '${worktree}' to read changes from.`);
  const git = openGit(worktree);
  try {
    const forkPoint = (await git.raw(['merge-base', 'HEAD', base])).trim();
    const names = nulFields(await git.raw(['diff', '--name-only', '-z', '--no-ext-diff', '--no-renames', forkPoint, '--']));
    const untracked = nulFields(await git.raw(['ls-files', '--others', '--exclude-standard', '-z']));
    const diff = names.length === 0 ? '' : await git.raw(['diff', '-U0', '--no-color', '--no-ext-diff', '--no-renames', forkPoint, '--']);
    const ranges = diff.length <= maxDiffBytes ? rangesOfDiff(diff) : new Map<string, LineRange[]>();
    const files: TouchedFile[] = names.map((path) => {
      const changed = ranges.get(path);
      return changed && changed.length > 0 ? { path, ranges: changed } : { path };
    });
    for (const path of untracked) files.push({ path, ranges: [{ start: 0, end: 0 }] });
    return ok(files);
  } catch (error) {
    if (!isGitFailure(error)) throw error;
    return refused('gitFailed', `Could not read the changes of ${worktree}: ${errorText(error)}`);
  }
}

/**
 * Rebases the branch checked out in `worktree` onto `base`. The worktree must be clean (the caller
 * committed what the agent left). A conflict aborts the rebase: the worktree is as it was, and the
 * answer names the files.
 */
export async function rebaseOnto(worktree: string, base: string, branch: string): Promise<Result<{ head: string }>> {
  if (!worktree || !existsSync(worktree)) return refused('noWorktree', `There is no worktree at '${worktree}' to rebase.`);
  const git = await openGitForCommits(worktree);
  try {
    await git.raw(['rebase', '--quiet', base]);
  } catch (error) {
    if (!isGitFailure(error)) throw error;
    const files = nulFields(await git.raw(['diff', '--name-only', '-z', '--diff-filter=U', '--no-ext-diff']).catch(() => ''));
    await git.raw(['rebase', '--abort']).catch(() => undefined);
    const where = files.length > 0 ? `conflicts with ${base} in ${files.join(', ')}` : `could not be rebased: ${errorText(error)}`;
    return refused('rebaseConflict', `'${branch}' ${where}; the worktree was left as it was, to be rebased at its merge.`, {
      branch,
      files,
    });
  }
  return ok({ head: (await git.raw(['rev-parse', 'HEAD'])).trim() });
}
