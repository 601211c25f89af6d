/**
 * Moving a base branch safely (ARCHITECTURE §5): forward only, and never over what someone else
 * changed meanwhile. Where the base is checked out, git's `merge --ff-only` in that checkout
 * refuses rather than overwrite a person's uncommitted edits; elsewhere the ref moves by a
 * compare-and-swap `update-ref`. The merge queue (mergeQueue.ts) and the catch-up with a shared
 * remote (`syncLocalBase`) both move it this way.
 */
import type { SimpleGit } from 'simple-git';
import { type Result, ok, refused } from '../../core/result';
import { GitExitError, errorText, folderExists, isGitFailure, openGit, resolveCommit } from './gitClient';
import { fetchBranch, isAncestor } from './remote';
import { listWorktreesWith, worktreeWithBranch } from './worktreeList';

/**
 * Brings this clone's base up to the remote's where that is a fast-forward (its checkout, if any,
 * has no edits in the way), so new task branches start from what the crew merged on any machine.
 * Resolves to the base's sha afterwards; a base with commits of its own is left alone.
 */
export async function syncLocalBase(repoRoot: string, remote: string, base: string): Promise<Result<string>> {
  const repository = openGit(repoRoot);
  const fetched = await fetchBranch(repoRoot, remote, base);
  if (!fetched.ok) return fetched;
  const local = await resolveCommit(repository, `refs/heads/${base}`);
  if (local === undefined || local === fetched.value || !(await isAncestor(repository, local, fetched.value))) {
    return ok(local ?? fetched.value);
  }
  // Not in the merge queue (a task's start must not wait for another's verify): both moves of the
  // local base are compare-and-swaps or ff-only merges, so a race refuses one and loses nothing.
  const advanced = await advanceBase(repository, base, local, fetched.value, `foreman: ${base} from ${remote}`);
  return advanced.ok ? ok(fetched.value) : advanced;
}

/**
 * Moves the base from `baseBefore` to `tip`, a descendant of it. Where the base is checked out,
 * `merge --ff-only` runs in that checkout: git then updates the files and refuses, changing
 * nothing, if that would overwrite the user's uncommitted edits. Elsewhere the ref is swapped
 * only if it still points at `baseBefore`.
 */
export async function advanceBase(
  repository: SimpleGit,
  base: string,
  baseBefore: string,
  tip: string,
  subject: string,
): Promise<Result<void>> {
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
