/**
 * The merge queue (ARCHITECTURE §5): one merge at a time per repository. Commit the worker's
 * leftovers, build the new base tip in the worker's worktree (mergeTip.ts), optionally verify it,
 * then advance the base (baseAdvance.ts): `merge --ff-only` where the base is checked out, so git
 * refuses rather than overwrite the user's uncommitted changes, or a compare-and-swap `update-ref`
 * where it is not.
 *
 * With a shared remote (issue 14) the tip is built on the remote's base, fetched first, and the
 * base moves by a plain push, a fast-forward or nothing: a push git refuses because the base moved
 * there meanwhile is `baseMoved`, like a local base that moved. The local base follows where that
 * is a fast-forward. Merges across machines take turns through a MergeLock (mergeLock.ts).
 *
 * A worker of another machine (issue 29) is merged from the remote's copy of its branch, checked out
 * in this clone's own worktree for that worker (mergeCheckout.ts), as often as its tasks come.
 */
import { resolve } from 'node:path';
import { type Result, invalid, ok, refused } from '../../core/result';
import { SequencerByKey } from '../../base/async';
import { branchTip, countCommits } from './branches';
import { type MergeLease, type MergeLock, MergeLockError, heldForGood } from './mergeLock';
import { fetchBranch, isAncestor, pushFastForward, trackingRef } from './remote';
import { type MergeSource, catchUpWithRemote, operationInProgress, operationRefusal, taskBranchHere } from './mergeCheckout';
import { type ForemanTrailers, commitLeftovers, trailerBlock, withTrailers } from './commits';
import { canonicalPath, currentBranch, openGit, openGitForCommits, resolveCommit } from './gitClient';
import { type MergeStrategy, buildMergeTip, returnToBranch } from './mergeTip';
import { verifyWorktreeTopLevel } from './topLevel';
import { advanceBase } from './baseAdvance';

export type { MergeStrategy } from './mergeTip';
export type { MergeSource } from './mergeCheckout';

export interface MergeRequest extends ForemanTrailers {
  readonly repoRoot: string;
  /** The worker's worktree, with `branch` checked out (`source: 'remote'`: this clone's, prepared here). */
  readonly worktreePath: string;
  readonly branch: string;
  readonly base: string;
  readonly strategy: MergeStrategy;
  /** Runs on the new tip, checked out in the worker's worktree, before the base moves. */
  readonly verify?: (worktreePath: string) => Promise<Result<void>>;
  /**
   * The task's message (its title, then the agent's summary) for the merge or squash commit and for
   * edits still uncommitted in the worktree; a default naming the task is used otherwise. Trailers are added here.
   */
  readonly message?: string;
  /** The crew's shared remote: the tip is built on its base and pushed there. Absent: this clone only. */
  readonly remote?: string;
  /** Held around the whole merge (across machines); absent: this process's queue alone. */
  readonly lock?: MergeLock;
  /**
   * Where the work is (default `worktree`). `remote`: the worker is another machine's, so the
   * remote's copy of `branch` is checked out in `worktreePath` first, whatever it held.
   */
  readonly source?: MergeSource;
}

export interface MergeOutcome {
  readonly baseBefore: string;
  readonly baseAfter: string;
  /** Commits the base gained (for 'merge' this counts the merge commit too). */
  readonly commits: number;
  /**
   * With a remote: whether this clone's own base was fast-forwarded to the pushed tip as well. It
   * is left alone when it has commits the remote lacks or its checkout has edits in the way.
   */
  readonly localBase?: 'updated' | 'unchanged';
}

/**
 * One merge at a time per repository. The sequencer lives in the module on purpose: two
 * GitWorkspace objects for the same repository must still queue behind each other. Only the owner
 * process merges (ARCHITECTURE §2), so an in-process queue is enough.
 */
const repositoryMerges = new SequencerByKey<string>();

export async function mergeBranch(request: MergeRequest): Promise<Result<MergeOutcome>> {
  const key = await canonicalPath(resolve(request.repoRoot));
  const lock = request.lock;
  if (lock === undefined) return repositoryMerges.queue(key, () => mergeExclusively(request, heldForGood));
  // The in-process queue first, so this process never holds two of the lock's connections waiting.
  return repositoryMerges.queue(key, async () => {
    try {
      return await lock.run((lease) => mergeExclusively(request, lease));
    } catch (error) {
      if (error instanceof MergeLockError) return refused(error.code, error.message);
      throw error;
    }
  });
}

async function mergeExclusively(request: MergeRequest, lease: MergeLease): Promise<Result<MergeOutcome>> {
  const trailers = trailerBlock(request);
  if (!trailers.ok) return trailers;
  if (request.branch === request.base) {
    return invalid('sameBranch', `Cannot merge '${request.branch}' into itself.`, { branch: request.branch });
  }
  const repository = openGit(request.repoRoot);
  const remote = request.remote;
  const present = await taskBranchHere(request);
  if (!present.ok) return present;
  const branchCheck = await branchTip(repository, request.branch);
  if (!branchCheck.ok) return branchCheck;
  // With a remote the tip is built on the remote's base, whatever this clone's copy says.
  const baseCheck =
    remote === undefined ? await branchTip(repository, request.base) : await fetchBranch(request.repoRoot, remote, request.base);
  if (!baseCheck.ok) return baseCheck;

  const topLevel = await verifyWorktreeTopLevel(request.worktreePath);
  if (!topLevel.ok) return topLevel;
  const worktree = topLevel.value;
  const worker = await openGitForCommits(worktree);
  const busy = await operationInProgress(worker, worktree);
  if (busy !== undefined) return operationRefusal(busy, worktree);
  if ((await currentBranch(worker)) !== request.branch) {
    return refused('wrongBranch', `The worktree '${worktree}' does not have '${request.branch}' checked out.`, { path: worktree });
  }

  // Edits made after the submit (an agent that kept running) are the task's work like the rest.
  const leftovers = await commitLeftovers({
    ...request,
    worktreePath: worktree,
    message: request.message ?? `foreman: work left uncommitted before merging task ${request.taskId}`,
  });
  if (!leftovers.ok) return leftovers;
  // A copy just checked out from the remote is its tip already.
  if (remote !== undefined && request.source !== 'remote') {
    const caughtUp = await catchUpWithRemote(worker, worktree, remote, request.branch);
    if (!caughtUp.ok) return caughtUp;
  }

  const baseBefore = baseCheck.value;
  const message = request.message ?? defaultSubject(request);
  const tip = await buildMergeTip(request.strategy, {
    git: worker,
    worktree,
    branch: request.branch,
    baseBefore,
    message: withTrailers(message, trailers.value),
  });
  // The reflog's one line: the message's subject.
  const subject = message.split('\n', 1)[0] ?? message;
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
  if (remote !== undefined) return pushBase(request.repoRoot, remote, request.base, baseBefore, tip.value, subject, lease);
  const advanced = await advanceBase(repository, request.base, baseBefore, tip.value, subject);
  if (!advanced.ok) return advanced;
  return ok({ baseBefore, baseAfter: tip.value, commits: await countCommits(repository, baseBefore, tip.value) });
}

/**
 * Pushes the new tip to the remote's base, a fast-forward of `baseBefore` or nothing, then moves
 * this clone's base along where that too is a fast-forward. The lock is asked last: a merge that
 * lost it (its connection dropped) stops here, before anything leaves the machine.
 */
async function pushBase(
  repoRoot: string,
  remote: string,
  base: string,
  baseBefore: string,
  tip: string,
  subject: string,
  lease: MergeLease,
): Promise<Result<MergeOutcome>> {
  if (lease.signal.aborted || !(await lease.stillHeld())) {
    return refused('mergeLockLost', `The merge lock was lost while merging into '${base}'; nothing was pushed, try again.`, {
      base,
      remote,
    });
  }
  const pushed = await pushFastForward(repoRoot, remote, tip, base);
  if (!pushed.ok) {
    if (pushed.code !== 'pushRejected') return pushed;
    const moved = await fetchBranch(repoRoot, remote, base);
    return refused(
      'baseMoved',
      `'${remote}/${base}' moved while merging (expected ${baseBefore.slice(0, 12)}); nothing was pushed, try again.`,
      { base, remote, expected: baseBefore, actual: moved.ok ? moved.value : '' },
    );
  }
  const repository = openGit(repoRoot);
  // The tracking ref follows what was pushed (git does this itself only for a configured fetch refspec).
  await repository.raw(['update-ref', trackingRef(remote, base), tip]);
  const commits = await countCommits(repository, baseBefore, tip);
  const local = await resolveCommit(repository, `refs/heads/${base}`);
  let localBase: 'updated' | 'unchanged' = 'unchanged';
  if (local !== undefined && (local === tip || (await isAncestor(repository, local, tip)))) {
    const advanced = local === tip ? ok(undefined) : await advanceBase(repository, base, local, tip, subject);
    if (advanced.ok) localBase = 'updated';
  }
  return ok({ baseBefore, baseAfter: tip, commits, localBase });
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
