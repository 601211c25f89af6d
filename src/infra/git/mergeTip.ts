/**
 * The first half of a merge: building, in the worker's own worktree, the commit the base will
 * move to. Nothing here touches the base branch or the user's checkout, so any failure (a
 * conflict above all) leaves the base exactly as it was. The worktree is put back on the worker's
 * branch afterwards; its work is all committed before this runs, so aborting never loses any.
 */
import type { SimpleGit } from 'simple-git';
import { type Failure, type Result, ok, refused } from '../../core/result';
import { currentBranch, errorText, isGitFailure, nulFields } from './gitClient';
import { countCommits } from './branches';

/** How a task branch reaches the base: rebase + fast-forward (default), a merge commit, or one squashed commit. */
export type MergeStrategy = 'rebase' | 'merge' | 'squash';

export interface TipRequest {
  /** A client in the worker's worktree that may write commits. */
  readonly git: SimpleGit;
  readonly worktree: string;
  readonly branch: string;
  readonly baseBefore: string;
  /** Full message (trailers included) for the merge or squash commit. */
  readonly message: string;
}

/**
 * Resolves to the commit the base should move to (equal to `baseBefore` when the branch brings
 * nothing). With 'rebase' the worktree stays on the rebased branch at that commit; with 'merge'
 * and 'squash' it is left detached at it, for `verify`, until `returnToBranch`.
 */
export async function buildMergeTip(strategy: MergeStrategy, request: TipRequest): Promise<Result<string>> {
  switch (strategy) {
    case 'rebase':
      return rebaseTip(request);
    case 'merge':
    case 'squash':
      return combinedTip(strategy, request);
  }
}

async function rebaseTip({ git, branch, baseBefore }: TipRequest): Promise<Result<string>> {
  try {
    // The base's sha, not its name: the compare-and-swap later expects exactly this base.
    await git.raw(['rebase', '--quiet', baseBefore]);
  } catch (error) {
    if (!isGitFailure(error)) throw error;
    const files = await conflictedFiles(git);
    await git.raw(['rebase', '--abort']).catch(() => undefined);
    return conflictOrFailure(files, branch, error);
  }
  return ok((await git.raw(['rev-parse', 'HEAD'])).trim());
}

async function combinedTip(strategy: 'merge' | 'squash', { git, branch, baseBefore, message }: TipRequest): Promise<Result<string>> {
  const branchTip = (await git.raw(['rev-parse', `refs/heads/${branch}`])).trim();
  if ((await countCommits(git, baseBefore, branchTip)) === 0) return ok(baseBefore);
  await git.raw(['checkout', '--quiet', '--detach', baseBefore, '--']);
  try {
    if (strategy === 'merge') {
      await git.raw(['merge', '--quiet', '--no-ff', '--no-edit', '--no-verify', '-m', message, branchTip]);
    } else {
      await git.raw(['merge', '--quiet', '--squash', branchTip]);
      if (!(await hasStagedChanges(git))) {
        // The branch's changes are already in the base: nothing to add.
        await returnToBranch(git, branch);
        return ok(baseBefore);
      }
      await git.raw(['commit', '--quiet', '--no-verify', '--cleanup=whitespace', '-m', message]);
    }
  } catch (error) {
    if (!isGitFailure(error)) throw error;
    const files = await conflictedFiles(git);
    // A squash leaves no MERGE_HEAD to abort; `reset --merge` undoes either kind, and the
    // detached worktree held nothing but the base's commit.
    await git.raw(['reset', '--quiet', '--merge']).catch(() => undefined);
    await returnToBranch(git, branch);
    return conflictOrFailure(files, branch, error);
  }
  return ok((await git.raw(['rev-parse', 'HEAD'])).trim());
}

/** Puts a worktree left detached by a merge or squash back on the worker's branch. */
export async function returnToBranch(git: SimpleGit, branch: string): Promise<void> {
  if ((await currentBranch(git)) !== branch) await git.raw(['checkout', '--quiet', '--no-guess', branch, '--']);
}

async function hasStagedChanges(git: SimpleGit): Promise<boolean> {
  return (await git.raw(['diff', '--cached', '--name-only', '-z', '--no-ext-diff'])).length > 0;
}

async function conflictedFiles(git: SimpleGit): Promise<string[]> {
  return nulFields(await git.raw(['diff', '--name-only', '-z', '--diff-filter=U', '--no-ext-diff']).catch(() => ''));
}

function conflictOrFailure(files: string[], branch: string, error: unknown): Failure {
  if (files.length > 0) {
    return refused('mergeConflict', `'${branch}' conflicts with the base in ${files.join(', ')}; the base is unchanged.`, {
      branch,
      files,
    });
  }
  return refused('mergeFailed', `Could not combine '${branch}' with the base: ${errorText(error)}`, { branch });
}
