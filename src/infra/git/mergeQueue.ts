/**
 * The merge queue (ARCHITECTURE §5): one merge at a time per repository. Commit the worker's
 * leftovers, build the new base tip in the worker's worktree (mergeTip.ts), optionally verify it,
 * then advance the base: `merge --ff-only` where the base is checked out, so git refuses rather
 * than overwrite the user's uncommitted changes, or a compare-and-swap `update-ref` where it is not.
 */
import { resolve } from 'node:path';
import type { SimpleGit } from 'simple-git';
import { type Result, invalid, ok, refused } from '../../core/result';
import { SequencerByKey } from '../../engine/async';
import { branchTip, countCommits } from './branches';
import { type ForemanTrailers, commitLeftovers, trailerBlock, withTrailers } from './commits';
import { GitExitError, canonicalPath, currentBranch, errorText, folderExists, isGitFailure, openGit, openGitForCommits } from './gitClient';
import { type MergeStrategy, buildMergeTip, returnToBranch } from './mergeTip';
import { verifyWorktreeTopLevel } from './topLevel';
import { listWorktreesWith, worktreeWithBranch } from './worktreeList';

export type { MergeStrategy } from './mergeTip';

export interface MergeRequest extends ForemanTrailers {
  readonly repoRoot: string;
  /** The worker's worktree, with `branch` checked out. */
  readonly worktreePath: string;
  readonly branch: string;
  readonly base: string;
  readonly strategy: MergeStrategy;
  /** Runs on the new tip, checked out in the worker's worktree, before the base moves. */
  readonly verify?: (worktreePath: string) => Promise<Result<void>>;
  /** Subject of a merge or squash commit; a default naming the task is used otherwise. */
  readonly message?: string;
}

export interface MergeOutcome {
  readonly baseBefore: string;
  readonly baseAfter: string;
  /** Commits the base gained (for 'merge' this counts the merge commit too). */
  readonly commits: number;
}

/**
 * One merge at a time per repository. The sequencer lives in the module on purpose: two
 * GitWorkspace objects for the same repository must still queue behind each other. Only the owner
 * process merges (ARCHITECTURE §2), so an in-process queue is enough.
 */
const repositoryMerges = new SequencerByKey<string>();

export async function mergeBranch(request: MergeRequest): Promise<Result<MergeOutcome>> {
  const key = await canonicalPath(resolve(request.repoRoot));
  return repositoryMerges.queue(key, () => mergeExclusively(request));
}

async function mergeExclusively(request: MergeRequest): Promise<Result<MergeOutcome>> {
  const trailers = trailerBlock(request);
  if (!trailers.ok) return trailers;
  if (request.branch === request.base) {
    return invalid('sameBranch', `Cannot merge '${request.branch}' into itself.`, { branch: request.branch });
  }
  const repository = openGit(request.repoRoot);
  const branchCheck = await branchTip(repository, request.branch);
  if (!branchCheck.ok) return branchCheck;
  const baseCheck = await branchTip(repository, request.base);
  if (!baseCheck.ok) return baseCheck;

  const topLevel = await verifyWorktreeTopLevel(request.worktreePath);
  if (!topLevel.ok) return topLevel;
  const worktree = topLevel.value;
  const worker = await openGitForCommits(worktree);
  const busy = await operationInProgress(worker, worktree);
  if (busy !== undefined) {
    return refused('operationInProgress', `A ${busy} is in progress in '${worktree}'; finish or abort it first.`, { path: worktree });
  }
  if ((await currentBranch(worker)) !== request.branch) {
    return refused('wrongBranch', `The worktree '${worktree}' does not have '${request.branch}' checked out.`, { path: worktree });
  }

  const leftovers = await commitLeftovers({
    ...request,
    worktreePath: worktree,
    message: `foreman: work left uncommitted before merging task ${request.taskId}`,
  });
  if (!leftovers.ok) return leftovers;

  const baseBefore = baseCheck.value;
  const subject = request.message ?? defaultSubject(request);
  const tip = await buildMergeTip(request.strategy, {
    git: worker,
    worktree,
    branch: request.branch,
    baseBefore,
    message: withTrailers(subject, trailers.value),
  });
  if (!tip.ok) return tip;

  if (tip.value !== baseBefore && request.verify !== undefined) {
    let verdict: Result<void>;
    try {
      verdict = await request.verify(worktree);
    } finally {
      await returnToBranch(worker, request.branch);
    }
    if (!verdict.ok) {
      return refused('verifyFailed', `Verification of the merged tip failed: ${verdict.message}`, {
        tip: tip.value,
        verify: { kind: verdict.kind, code: verdict.code, details: verdict.details },
      });
    }
  } else {
    await returnToBranch(worker, request.branch);
  }

  if (tip.value === baseBefore) return ok({ baseBefore, baseAfter: baseBefore, commits: 0 });
  const advanced = await advanceBase(repository, request.base, baseBefore, tip.value, subject);
  if (!advanced.ok) return advanced;
  return ok({ baseBefore, baseAfter: tip.value, commits: await countCommits(repository, baseBefore, tip.value) });
}

function defaultSubject(request: MergeRequest): string {
  switch (request.strategy) {
    case 'rebase':
      return `foreman: task ${request.taskId}`;
    case 'merge':
      return `Merge task ${request.taskId} ('${request.branch}') into ${request.base}`;
    case 'squash':
      return `foreman: task ${request.taskId} (squashed from '${request.branch}')`;
  }
}

/** Which multi-step git operation a worktree is stopped in the middle of, if any. */
async function operationInProgress(git: SimpleGit, worktree: string): Promise<string | undefined> {
  const markers = [
    ['rebase-merge', 'rebase'],
    ['rebase-apply', 'rebase'],
    ['MERGE_HEAD', 'merge'],
    ['CHERRY_PICK_HEAD', 'cherry-pick'],
    ['REVERT_HEAD', 'revert'],
  ] as const;
  for (const [marker, operation] of markers) {
    const path = resolve(worktree, (await git.raw(['rev-parse', '--git-path', marker])).trim());
    if (folderExists(path)) return operation;
  }
  return undefined;
}

/**
 * Moves the base from `baseBefore` to `tip`, a descendant of it. Where the base is checked out,
 * `merge --ff-only` runs in that checkout: git then updates the files and refuses, changing
 * nothing, if that would overwrite the user's uncommitted edits. Elsewhere the ref is swapped
 * only if it still points at `baseBefore`.
 */
async function advanceBase(repository: SimpleGit, base: string, baseBefore: string, tip: string, subject: string): Promise<Result<void>> {
  const holder = worktreeWithBranch(await listWorktreesWith(repository), base);
  if (holder !== undefined && holder.prunable === undefined && folderExists(holder.path)) {
    const checkout = openGit(holder.path);
    const current = (await checkout.raw(['rev-parse', 'HEAD'])).trim();
    if (current !== baseBefore) return baseMoved(base, baseBefore, current);
    try {
      await checkout.raw(['merge', '--quiet', '--ff-only', tip]);
    } catch (error) {
      if (!isGitFailure(error)) throw error;
      return fastForwardRefusal(base, holder.path, error);
    }
    return ok(undefined);
  }
  try {
    await repository.raw(['update-ref', '-m', subject, `refs/heads/${base}`, tip, baseBefore]);
  } catch (error) {
    if (!isGitFailure(error)) throw error;
    const current = (await repository.raw(['rev-parse', `refs/heads/${base}`]).catch(() => '')).trim();
    return baseMoved(base, baseBefore, current);
  }
  return ok(undefined);
}

function baseMoved(base: string, expected: string, actual: string): Result<void> {
  return refused('baseMoved', `'${base}' moved while merging (expected ${expected.slice(0, 12)}); nothing was changed, try again.`, {
    base,
    expected,
    actual,
  });
}

function fastForwardRefusal(base: string, path: string, error: unknown): Result<void> {
  const text = errorText(error);
  if (/would be (overwritten|removed)/.test(text)) {
    const stderr = error instanceof GitExitError ? error.stderr : text;
    // git lists the files one per line, indented with a tab, between its two messages.
    const files = stderr
      .split('\n')
      .filter((line) => line.startsWith('\t'))
      .map((line) => line.trim());
    return refused(
      'dirtyCheckout',
      `'${base}' is checked out in '${path}' with uncommitted changes to ${files.join(', ') || 'files the merge touches'}; git refused to overwrite them. Commit or stash them, then merge again. Nothing was changed.`,
      { base, path, files },
    );
  }
  return refused('fastForwardFailed', `Could not fast-forward '${base}' in '${path}': ${text}`, { base, path });
}
