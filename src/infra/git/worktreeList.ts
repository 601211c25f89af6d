/**
 * `git worktree list --porcelain`, parsed: the registry git keeps of a repository's worktrees.
 * Reconciliation, branch deletion and the merge queue all ask it where a branch is checked out.
 */
import type { SimpleGit } from 'simple-git';
import { canonicalPath, openGit } from './gitClient';

/** One worktree git knows about. */
export interface WorktreeEntry {
  /** Canonical path (real path when the folder exists). */
  readonly path: string;
  readonly head: string | undefined;
  /** Short branch name, undefined when detached or bare. */
  readonly branch: string | undefined;
  readonly bare: boolean;
  readonly detached: boolean;
  /** Lock reason ('' when locked without one); undefined when not locked. */
  readonly locked: string | undefined;
  /** Why git considers it prunable (its folder is gone); undefined otherwise. */
  readonly prunable: string | undefined;
  /** The main worktree is always listed first. */
  readonly main: boolean;
}

export async function listWorktrees(repoRoot: string): Promise<WorktreeEntry[]> {
  return listWorktreesWith(openGit(repoRoot));
}

export async function listWorktreesWith(git: SimpleGit): Promise<WorktreeEntry[]> {
  // Without -z (git 2.36+) a path containing a newline would break the parse; Foreman's own
  // worktree paths are built from validated ids and never contain one.
  const output = await git.raw(['worktree', 'list', '--porcelain']);
  const entries: WorktreeEntry[] = [];
  for (const block of output.split('\n\n')) {
    const fields = new Map<string, string>();
    for (const line of block.split('\n')) {
      if (line.length === 0) continue;
      const space = line.indexOf(' ');
      fields.set(space < 0 ? line : line.slice(0, space), space < 0 ? '' : line.slice(space + 1));
    }
    const path = fields.get('worktree');
    if (path === undefined) continue;
    const branchRef = fields.get('branch');
    entries.push({
      path: await canonicalPath(path),
      head: fields.get('HEAD'),
      branch: branchRef?.startsWith('refs/heads/') ? branchRef.slice('refs/heads/'.length) : branchRef,
      bare: fields.has('bare'),
      detached: fields.has('detached'),
      locked: fields.get('locked'),
      prunable: fields.get('prunable'),
      main: entries.length === 0,
    });
  }
  return entries;
}

/** The worktree where `branch` is checked out, if any (git allows at most one), even if its folder is gone. */
export function worktreeWithBranch(entries: readonly WorktreeEntry[], branch: string): WorktreeEntry | undefined {
  return entries.find((entry) => entry.branch === branch);
}
