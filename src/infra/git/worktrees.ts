/**
 * One worktree per worker, outside the repository by default, reused across that worker's tasks
 * (ARCHITECTURE §5). Switching a worktree to the next task's branch, or removing it, never drops
 * uncommitted work: a dirty worktree is snapshotted and the switch or removal is refused.
 */
import { mkdir, readdir } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { SimpleGit } from 'simple-git';
import { type Failure, type Result, invalid, notFound, ok, refused } from '../../core/result';
import { canonicalPath, currentBranch, errorText, folderExists, isDirty, isGitFailure, openGit, resolveCommit } from './gitClient';
import { checkId, validateBranchName } from './names';
import { snapshotWip } from './snapshots';
import { verifyWorktreeTopLevel } from './topLevel';
import { type WorktreeEntry, listWorktreesWith } from './worktreeList';

/** The task and attempt whose work a worktree may hold; its changes are snapshotted under them. */
export interface WorkInProgress {
  readonly taskId: string;
  readonly attempt: number;
}

export interface EnsureWorktreeRequest {
  readonly repoRoot: string;
  readonly worktreePath: string;
  readonly branch: string;
  /** Where a branch that does not exist yet starts: the base, or a previous attempt's tip. */
  readonly startPoint: string;
  /** The work the worktree holds now, so a refusal to switch can snapshot it first. */
  readonly current?: WorkInProgress;
}

export interface EnsuredWorktree {
  readonly path: string;
  readonly branch: string;
  readonly head: string;
  /** The worktree folder was created by this call (otherwise it was reused). */
  readonly created: boolean;
  /** The branch was created from the start point by this call. */
  readonly branchCreated: boolean;
}

/** `<repo parent>/.foreman-worktrees/<repo name>/<worker id>`, or `<worktreeRoot>/<worker id>`. */
export function defaultWorktreePath(repoRoot: string, workerId: string, worktreeRoot?: string): Result<string> {
  const worker = checkId('worker', workerId);
  if (!worker.ok) return worker;
  const absoluteRepo = resolve(repoRoot);
  const root =
    worktreeRoot !== undefined ? resolve(worktreeRoot) : join(dirname(absoluteRepo), '.foreman-worktrees', basename(absoluteRepo));
  return ok(join(root, worker.value));
}

/**
 * Makes `worktreePath` a worktree of the repository with `branch` checked out, creating the
 * folder, the branch, or both as needed. A worktree on another branch is switched only when clean.
 */
export async function ensureWorktree(request: EnsureWorktreeRequest): Promise<Result<EnsuredWorktree>> {
  const git = openGit(request.repoRoot);
  const branch = await validateBranchName(git, request.branch);
  if (!branch.ok) return branch;
  const path = await canonicalPath(resolve(request.worktreePath));
  const entry = (await listWorktreesWith(git)).find((candidate) => candidate.path === path);

  if (entry === undefined) return createWorktree(git, path, request);
  if (entry.main || entry.bare) {
    return invalid('mainCheckout', `'${request.worktreePath}' is the repository's main checkout; Foreman never switches it.`, { path });
  }
  if (!folderExists(path)) {
    return refused('worktreeMissing', `The worktree folder '${path}' was deleted; reconcile the worktrees to repair it.`, { path });
  }
  // A registered folder whose `.git` link is gone fails the top-level check in switchWorktree.
  return switchWorktree(path, request);
}

async function createWorktree(git: SimpleGit, path: string, request: EnsureWorktreeRequest): Promise<Result<EnsuredWorktree>> {
  if (folderExists(path) && (await readdir(path)).length > 0) {
    return refused(
      'pathOccupied',
      `'${path}' already exists and is not a worktree of this repository; move it away or choose another worktree root.`,
      {
        path,
      },
    );
  }
  const existing = await resolveCommit(git, `refs/heads/${request.branch}`);
  const start = existing === undefined ? await startCommit(git, request.startPoint) : ok(existing);
  if (!start.ok) return start;
  await mkdir(dirname(path), { recursive: true });
  const args =
    existing === undefined
      ? ['worktree', 'add', '-b', request.branch, '--', path, start.value]
      : ['worktree', 'add', '--', path, request.branch];
  try {
    await git.raw(args);
  } catch (error) {
    if (!isGitFailure(error)) throw error;
    return branchFailure('worktreeAddFailed', request.branch, path, error);
  }
  const topLevel = await verifyWorktreeTopLevel(path);
  if (!topLevel.ok) return topLevel;
  return ok({ path: topLevel.value, branch: request.branch, head: start.value, created: true, branchCreated: existing === undefined });
}

async function switchWorktree(path: string, request: EnsureWorktreeRequest): Promise<Result<EnsuredWorktree>> {
  const topLevel = await verifyWorktreeTopLevel(path);
  if (!topLevel.ok) return topLevel;
  const git = openGit(topLevel.value);
  if ((await currentBranch(git)) === request.branch) {
    const head = (await resolveCommit(git, 'HEAD')) ?? '';
    return ok({ path: topLevel.value, branch: request.branch, head, created: false, branchCreated: false });
  }
  if (await isDirty(git)) return dirtyRefusal(topLevel.value, request.current, `switch it to '${request.branch}'`);

  const existing = await resolveCommit(git, `refs/heads/${request.branch}`);
  const start = existing === undefined ? await startCommit(git, request.startPoint) : ok(existing);
  if (!start.ok) return start;
  const args =
    existing === undefined
      ? ['checkout', '--quiet', '-b', request.branch, start.value, '--']
      : ['checkout', '--quiet', '--no-guess', request.branch, '--'];
  try {
    await git.raw(args);
  } catch (error) {
    if (!isGitFailure(error)) throw error;
    return branchFailure('switchFailed', request.branch, path, error);
  }
  return ok({ path: topLevel.value, branch: request.branch, head: start.value, created: false, branchCreated: existing === undefined });
}

/** Resolves a start point to a commit before git sees it, so nothing odd reaches `worktree add`. */
async function startCommit(git: SimpleGit, startPoint: string): Promise<Result<string>> {
  const sha = startPoint.startsWith('-') ? undefined : await resolveCommit(git, startPoint);
  if (sha === undefined) {
    return invalid('invalidStartPoint', `The start point '${startPoint}' is not a commit of this repository.`, { startPoint });
  }
  return ok(sha);
}

function branchFailure(code: string, branch: string, path: string, error: unknown): Failure {
  const text = errorText(error);
  if (/already (checked out|used by worktree)/.test(text)) {
    return refused('branchInUse', `The branch '${branch}' is checked out in another worktree: ${text}`, { branch, path });
  }
  return refused(code, `Could not put '${path}' on branch '${branch}': ${text}`, { branch, path });
}

/**
 * The refusal for a dirty worktree, after snapshotting its changes when we know whose they are.
 * The details carry the snapshot's ref and sha so the caller can record them.
 */
async function dirtyRefusal(path: string, work: WorkInProgress | undefined, action: string): Promise<Failure> {
  if (work === undefined) {
    return refused('dirtyWorktree', `'${path}' has uncommitted changes; commit or snapshot them before Foreman can ${action}.`, { path });
  }
  const snapshot = await snapshotWip({ worktreePath: path, taskId: work.taskId, attempt: work.attempt });
  if (!snapshot.ok) return snapshot;
  return refused(
    'dirtyWorktree',
    `'${path}' has uncommitted changes (saved to refs/foreman/wip/${work.taskId}/${work.attempt}); commit or discard them before Foreman can ${action}.`,
    { path, wipRef: `refs/foreman/wip/${work.taskId}/${work.attempt}`, wipSha: snapshot.value },
  );
}

export interface RemoveWorktreeRequest {
  readonly repoRoot: string;
  readonly worktreePath: string;
  /** Snapshot uncommitted changes under this task and attempt, then remove anyway. */
  readonly preserve?: WorkInProgress;
}

/**
 * Removes a worker's worktree folder and its registration (the branch stays). Refused while it
 * has uncommitted changes, unless `preserve` names where to snapshot them first.
 */
export async function removeWorktree(request: RemoveWorktreeRequest): Promise<Result<{ path: string; wipSha?: string }>> {
  const git = openGit(request.repoRoot);
  const path = await canonicalPath(resolve(request.worktreePath));
  const entry = (await listWorktreesWith(git)).find((candidate) => candidate.path === path);
  if (entry === undefined) return notFound('worktree', path);
  if (entry.main || entry.bare)
    return invalid('mainCheckout', `'${path}' is the repository's main checkout; Foreman never removes it.`, { path });
  if (entry.locked !== undefined) return lockedRefusal(entry);

  let wipSha: string | undefined;
  if (folderExists(path)) {
    const topLevel = await verifyWorktreeTopLevel(path);
    if (!topLevel.ok) return topLevel;
    if (await isDirty(openGit(topLevel.value))) {
      if (request.preserve === undefined) return dirtyRefusal(path, undefined, 'remove it');
      const snapshot = await snapshotWip({ worktreePath: path, taskId: request.preserve.taskId, attempt: request.preserve.attempt });
      if (!snapshot.ok) return snapshot;
      wipSha = snapshot.value;
    }
  }
  try {
    // --force: untracked files would otherwise block removal, and they were just snapshotted.
    await git.raw(['worktree', 'remove', '--force', '--', path]);
  } catch (error) {
    if (!isGitFailure(error)) throw error;
    return refused('worktreeRemoveFailed', `Could not remove the worktree '${path}': ${errorText(error)}`, { path });
  }
  return ok(wipSha === undefined ? { path } : { path, wipSha });
}

export function lockedRefusal(entry: WorktreeEntry): Failure {
  const reason = entry.locked ? ` (${entry.locked})` : '';
  return refused('worktreeLocked', `The worktree '${entry.path}' is locked${reason}; unlock it with 'git worktree unlock' first.`, {
    path: entry.path,
    reason: entry.locked ?? '',
  });
}
