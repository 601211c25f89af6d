/**
 * Startup reconciliation (ARCHITECTURE §5): compares the worktrees Foreman expects, one per worker,
 * with `git worktree list --porcelain` and what is on disk. It only reports; repairs are separate
 * calls the caller makes deliberately, and none of them deletes a folder that still exists.
 */
import { resolve } from 'node:path';
import { type Result, ok, refused } from '../../core/result';
import { canonicalPath, commonDirectory, errorText, folderExists, isGitFailure, openGit } from './gitClient';
import { verifyWorktreeTopLevel } from './topLevel';
import { type EnsureWorktreeRequest, type EnsuredWorktree, ensureWorktree, lockedRefusal } from './worktrees';
import { listWorktreesWith } from './worktreeList';

/** A worktree a worker should have. */
export interface ExpectedWorktree {
  readonly workerId: string;
  readonly path: string;
}

export interface WorktreeFinding {
  readonly workerId: string;
  readonly path: string;
}

/** What reconciliation found; every expected worktree appears in exactly one of the first five lists. */
export interface WorktreeReport {
  /** Registered, present, and its own top level. */
  readonly healthy: ReadonlyArray<WorktreeFinding & { readonly branch: string | undefined; readonly locked: boolean }>;
  /** The folder is gone. `registered`: git still lists it (repair: `repairMissingWorktree`). */
  readonly missing: ReadonlyArray<WorktreeFinding & { readonly registered: boolean; readonly locked: boolean }>;
  /** The folder is a worktree of this repository that git lists under another path (repair: `repairWorktreeLink`). */
  readonly moved: ReadonlyArray<WorktreeFinding>;
  /** Registered here and present, but its `.git` link is gone or broken (repair: `repairWorktreeLink`). */
  readonly broken: ReadonlyArray<WorktreeFinding>;
  /** Something else occupies the path: a plain folder or another repository. Never touched. */
  readonly foreign: ReadonlyArray<WorktreeFinding & { readonly topLevel: string | undefined }>;
  /** Worktrees git lists that no worker expects (the user's own, or a removed worker's). Never touched. */
  readonly unclaimed: ReadonlyArray<{ readonly path: string; readonly branch: string | undefined; readonly missing: boolean }>;
}

export async function reconcileWorktrees(repoRoot: string, expected: readonly ExpectedWorktree[]): Promise<WorktreeReport> {
  const git = openGit(repoRoot);
  const entries = await listWorktreesWith(git);
  const commonDir = await commonDirectory(repoRoot);
  const report = { healthy: [], missing: [], moved: [], broken: [], foreign: [], unclaimed: [] } as {
    -readonly [K in keyof WorktreeReport]: Array<WorktreeReport[K][number]>;
  };
  const claimed = new Set<string>();

  for (const { workerId, path: rawPath } of expected) {
    const path = await canonicalPath(resolve(rawPath));
    claimed.add(path);
    const entry = entries.find((candidate) => candidate.path === path);
    const present = folderExists(path);
    if (!present) {
      report.missing.push({ workerId, path, registered: entry !== undefined, locked: entry?.locked !== undefined });
      continue;
    }
    const topLevel = await verifyWorktreeTopLevel(path);
    if (entry !== undefined && !entry.main && topLevel.ok) {
      report.healthy.push({ workerId, path, branch: entry.branch, locked: entry.locked !== undefined });
    } else if (entry === undefined && topLevel.ok && (await commonDirectory(path)) === commonDir) {
      report.moved.push({ workerId, path });
    } else if (entry !== undefined && !entry.main && !topLevel.ok) {
      report.broken.push({ workerId, path });
    } else {
      const details = topLevel.ok ? topLevel.value : topLevel.details?.['topLevel'];
      report.foreign.push({ workerId, path, topLevel: typeof details === 'string' ? details : undefined });
    }
  }
  for (const entry of entries) {
    if (entry.main || claimed.has(entry.path)) continue;
    report.unclaimed.push({ path: entry.path, branch: entry.branch, missing: entry.prunable !== undefined || !folderExists(entry.path) });
  }
  return report;
}

/**
 * Repairs a worktree whose folder was deleted by hand: drops git's stale registration of that one
 * path (not `worktree prune`, which would also drop the user's own stale worktrees), then creates
 * it again on its branch. A locked registration is left alone and reported.
 */
export async function repairMissingWorktree(request: EnsureWorktreeRequest): Promise<Result<EnsuredWorktree>> {
  const path = await canonicalPath(resolve(request.worktreePath));
  if (folderExists(path)) return ensureWorktree(request);
  const forgotten = await forgetMissingWorktree(request.repoRoot, path);
  return forgotten.ok ? ensureWorktree(request) : forgotten;
}

/**
 * Drops git's registration of the one worktree at `path`, whose folder is gone (nothing to do when
 * git does not list it). A locked registration is left alone and reported.
 */
export async function forgetMissingWorktree(repoRoot: string, path: string): Promise<Result<void>> {
  const git = openGit(repoRoot);
  const entry = (await listWorktreesWith(git)).find((candidate) => candidate.path === path);
  if (entry === undefined || folderExists(path)) return ok(undefined);
  if (entry.locked !== undefined) return lockedRefusal(entry);
  try {
    await git.raw(['worktree', 'remove', '--force', '--', path]);
  } catch (error) {
    if (!isGitFailure(error)) throw error;
    return refused('worktreeRepairFailed', `Could not drop the stale worktree '${path}': ${errorText(error)}`, { path });
  }
  return ok(undefined);
}

/**
 * Re-links a worktree folder with the repository: a folder moved by hand (git lists it under its
 * old path) or one whose `.git` file was deleted. Both are `git worktree repair`, which only
 * rewrites the link files and never touches the files in the worktree.
 */
export async function repairWorktreeLink(repoRoot: string, worktreePath: string): Promise<Result<string>> {
  const git = openGit(repoRoot);
  const path = await canonicalPath(resolve(worktreePath));
  const linked = await verifyWorktreeTopLevel(path);
  try {
    // A moved folder still finds the repository itself, so it can be named; a folder without its
    // `.git` file cannot, and is repaired from the registration instead.
    await git.raw(linked.ok ? ['worktree', 'repair', '--', path] : ['worktree', 'repair']);
  } catch (error) {
    if (!isGitFailure(error)) throw error;
    return refused('worktreeRepairFailed', `Could not repair the worktree '${worktreePath}': ${errorText(error)}`, { path });
  }
  return verifyWorktreeTopLevel(path);
}
