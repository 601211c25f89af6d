/**
 * Where a merge builds its tip (mergeQueue.ts). On the worker's own machine: the worker's worktree,
 * whose branch holds the work and wins over the remote's copy. For a worker of another machine
 * (issue 29): this clone's own worktree for that worker, checked out at the remote's copy of the
 * task branch (pushed on submit), whatever it held before: nothing, another task's branch, or an
 * older copy of this one (an earlier merge attempt here rebased it). Only this clone's worktree and
 * its local copy of the branch change; the machine that did the work is never touched.
 */
import { mkdir, readdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { SimpleGit } from 'simple-git';
import { type Result, invalid, notFound, ok, refused } from '../../core/result';
import { canonicalPath, currentBranch, errorText, folderExists, isDirty, isGitFailure, openGit, resolveCommit } from './gitClient';
import { forgetMissingWorktree } from './reconcile';
import { fetchBranch, isAncestor } from './remote';
import { discardSnapshotted, snapshotWip } from './snapshots';
import { verifyWorktreeTopLevel } from './topLevel';
import type { WorkInProgress } from './worktrees';
import { listWorktreesWith } from './worktreeList';

/**
 * Where the task's work is: `worktree`, the worker's worktree in this clone (its own machine);
 * `remote`, the shared remote's copy of the branch (a worker of another machine).
 */
export type MergeSource = 'worktree' | 'remote';

/** The task branch a merge needs here (a MergeRequest is one). */
export interface TaskBranchRequest {
  readonly repoRoot: string;
  readonly worktreePath: string;
  readonly branch: string;
  readonly taskId: string;
  readonly attempt: number;
  readonly remote?: string;
  readonly source?: MergeSource;
}

/**
 * Makes the task branch present in this clone: the worker's own (fetched from the remote when this
 * clone lacks it), or, with `source: 'remote'`, the remote's copy checked out in this clone's worktree.
 */
export async function taskBranchHere(request: TaskBranchRequest): Promise<Result<void>> {
  const remote = request.remote;
  if (request.source !== 'remote') {
    return remote === undefined ? ok(undefined) : ensureLocalBranch(request.repoRoot, remote, request.branch);
  }
  if (remote === undefined) {
    return refused(
      'noRemote',
      `'${request.branch}' was made on another machine and reaches this one only through a shared remote: set "remote" in .foreman/settings.json, or merge on that machine.`,
      { branch: request.branch },
    );
  }
  const copied = await checkOutRemoteCopy({
    repoRoot: request.repoRoot,
    worktreePath: request.worktreePath,
    remote,
    branch: request.branch,
    work: { taskId: request.taskId, attempt: request.attempt },
  });
  return copied.ok ? ok(undefined) : copied;
}

export interface RemoteCopyRequest {
  readonly repoRoot: string;
  /** This clone's worktree for the worker: created, switched or reset here as needed. */
  readonly worktreePath: string;
  readonly remote: string;
  readonly branch: string;
  /** The task being merged: anything left uncommitted in the worktree is snapshotted under it first. */
  readonly work: WorkInProgress;
}

/**
 * Puts this clone's worktree for another machine's worker on the task branch at the remote's copy,
 * and resolves to the worktree's path. The local branch is set to that copy: on this machine it
 * only ever holds copies of the remote (its old tip stays in the branch's reflog). Changes left in
 * the worktree (a verify command's output) are saved to the task's wip ref before they are cleared.
 */
export async function checkOutRemoteCopy(request: RemoteCopyRequest): Promise<Result<string>> {
  const { repoRoot, remote, branch } = request;
  const fetched = await fetchBranch(repoRoot, remote, branch);
  if (!fetched.ok) {
    if (fetched.kind !== 'notFound') return fetched;
    return refused(
      'branchNotPushed',
      `'${branch}' is not on '${remote}': the machine that ran the task has not pushed it (the worker's last error says why). Push it from there, or merge there.`,
      { branch, remote },
    );
  }
  const path = await canonicalPath(resolve(request.worktreePath));
  const present = await ensureWorktreeFolder(repoRoot, path, fetched.value);
  if (!present.ok) return present;
  const worktree = present.value;
  const git = openGit(worktree);
  const busy = await operationInProgress(git, worktree);
  if (busy !== undefined) return operationRefusal(busy, worktree);
  if (await isDirty(git)) {
    const message = `foreman wip: left in this machine's checkout of '${branch}' before merging it from '${remote}'`;
    const saved = await snapshotWip({ worktreePath: worktree, ...request.work, message });
    if (!saved.ok) return saved;
    const cleared = saved.value === undefined ? ok(undefined) : await discardSnapshotted(worktree, saved.value);
    if (!cleared.ok) return cleared;
  }
  if ((await currentBranch(git)) === branch && (await resolveCommit(git, 'HEAD')) === fetched.value) return ok(worktree);
  try {
    await git.raw(['checkout', '--quiet', '-B', branch, fetched.value, '--']);
  } catch (error) {
    if (!isGitFailure(error)) throw error;
    const text = errorText(error);
    const code = /already (checked out|used by worktree)/.test(text) ? 'branchInUse' : 'switchFailed';
    return refused(code, `Could not check out '${remote}/${branch}' in '${worktree}': ${text}`, { branch, path: worktree });
  }
  return ok(worktree);
}

/** The worktree folder at `path`, registered and its own top level: created (detached at `start`) when absent. */
async function ensureWorktreeFolder(repoRoot: string, path: string, start: string): Promise<Result<string>> {
  const git = openGit(repoRoot);
  const entry = (await listWorktreesWith(git)).find((candidate) => candidate.path === path);
  if (entry?.main === true || entry?.bare === true) {
    return invalid('mainCheckout', `'${path}' is the repository's main checkout; Foreman never switches it.`, { path });
  }
  if (entry !== undefined && folderExists(path)) return verifyWorktreeTopLevel(path);
  // Registered but deleted by hand: drop that one registration, then make it again.
  const forgotten = await forgetMissingWorktree(repoRoot, path);
  if (!forgotten.ok) return forgotten;
  if (folderExists(path) && (await readdir(path)).length > 0) {
    return refused(
      'pathOccupied',
      `'${path}' already exists and is not a worktree of this repository; move it away or choose another worktree root.`,
      {
        path,
      },
    );
  }
  await mkdir(dirname(path), { recursive: true });
  try {
    await git.raw(['worktree', 'add', '--quiet', '--detach', '--', path, start]);
  } catch (error) {
    if (!isGitFailure(error)) throw error;
    return refused('worktreeAddFailed', `Could not create the worktree '${path}': ${errorText(error)}`, { path });
  }
  return verifyWorktreeTopLevel(path);
}

/**
 * Makes sure the task branch exists here: a merge on another machine than the one that made the
 * branch starts from the remote's copy (pushed on submit). A local branch is never replaced.
 */
export async function ensureLocalBranch(repoRoot: string, remote: string, branch: string): Promise<Result<void>> {
  const repository = openGit(repoRoot);
  if ((await resolveCommit(repository, `refs/heads/${branch}`)) !== undefined) return ok(undefined);
  const fetched = await fetchBranch(repoRoot, remote, branch);
  if (!fetched.ok) return fetched.kind === 'notFound' ? notFound('branch', branch) : fetched;
  // The old value '' makes update-ref refuse if the branch appeared meanwhile.
  await repository.raw(['update-ref', '-m', `foreman: ${branch} from ${remote}`, `refs/heads/${branch}`, fetched.value, '']);
  return ok(undefined);
}

/**
 * The local task branch is the worker's and wins; it only catches up, by fast-forward, when the
 * remote's copy has commits it lacks and is a descendant (pushed from another clone). A remote copy
 * that diverged (the branch was rebased here after its push) is left as it is.
 */
export async function catchUpWithRemote(worker: SimpleGit, worktree: string, remote: string, branch: string): Promise<Result<void>> {
  const fetched = await fetchBranch(worktree, remote, branch);
  if (!fetched.ok) return fetched.kind === 'notFound' ? ok(undefined) : fetched;
  const local = (await worker.raw(['rev-parse', 'HEAD'])).trim();
  if (fetched.value === local || (await isAncestor(worker, fetched.value, local))) return ok(undefined);
  if (!(await isAncestor(worker, local, fetched.value))) return ok(undefined);
  try {
    await worker.raw(['merge', '--quiet', '--ff-only', fetched.value]);
  } catch (error) {
    if (!isGitFailure(error)) throw error;
    return refused('fastForwardFailed', `Could not bring '${branch}' up to '${remote}/${branch}': ${errorText(error)}`, { branch, remote });
  }
  return ok(undefined);
}

/** Which multi-step git operation a worktree is stopped in the middle of, if any. */
export async function operationInProgress(git: SimpleGit, worktree: string): Promise<string | undefined> {
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

export function operationRefusal(operation: string, worktree: string): Result<never> {
  return refused('operationInProgress', `A ${operation} is in progress in '${worktree}'; finish or abort it first.`, { path: worktree });
}
