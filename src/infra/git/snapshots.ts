/**
 * Wip snapshots: "never lose work" (ARCHITECTURE §5). Before anything resets, reassigns or removes
 * a worktree, its uncommitted and untracked changes are written to `refs/foreman/wip/<task>/<attempt>`
 * without touching the worktree or its index: a temporary index file, `add -A`, `write-tree`,
 * `commit-tree`, and a compare-and-swap `update-ref`.
 */
import { copyFile, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { SimpleGit } from 'simple-git';
import { type Result, invalid, notFound, ok, refused } from '../../core/result';
import { errorText, isDirty, isGitFailure, lines, nulFields, openGit, openGitForCommits, resolveCommit } from './gitClient';
import { parseWipRef, wipRefFor, wipRefPrefix } from './names';
import { verifyWorktreeTopLevel } from './topLevel';

export interface SnapshotRequest {
  readonly worktreePath: string;
  readonly taskId: string;
  readonly attempt: number;
  /** Commit message of the snapshot; a default naming the task and attempt is used otherwise. */
  readonly message?: string;
}

/** One saved snapshot, as `foreman wip list` shows it. */
export interface WipSnapshot {
  readonly ref: string;
  readonly taskId: string;
  readonly attempt: number;
  readonly sha: string;
  /** Committer date of the snapshot, ISO 8601. */
  readonly date: string;
  /** Paths the snapshot changes relative to the commit it was taken on. */
  readonly files: readonly string[];
}

/**
 * Saves the worktree's uncommitted and untracked (not ignored) changes. Resolves to the snapshot's
 * sha, or undefined when there was nothing to save. Taking a second snapshot for the same task and
 * attempt keeps the first one reachable as the new snapshot's second parent.
 */
export async function snapshotWip(request: SnapshotRequest): Promise<Result<string | undefined>> {
  const ref = wipRefFor(request.taskId, request.attempt);
  if (!ref.ok) return ref;
  const topLevel = await verifyWorktreeTopLevel(request.worktreePath);
  if (!topLevel.ok) return topLevel;
  const worktree = topLevel.value;

  const git = openGit(worktree);
  const head = await resolveCommit(git, 'HEAD');
  const previous = await resolveCommit(git, ref.value);
  const realIndex = resolve(worktree, (await git.raw(['rev-parse', '--git-path', 'index'])).trim());

  const scratch = await mkdtemp(join(tmpdir(), 'foreman-index-'));
  try {
    const indexFile = join(scratch, 'index');
    const tree = await writeWorktreeTree(worktree, indexFile, realIndex, head);
    const baseTree = head === undefined ? undefined : (await git.raw(['rev-parse', `${head}^{tree}`])).trim();
    const previousTree = previous === undefined ? undefined : (await git.raw(['rev-parse', `${previous}^{tree}`])).trim();
    if (tree === previousTree) return ok(previous);
    if (tree === baseTree || (head === undefined && (await isEmptyTree(git, tree)))) return ok(undefined);

    const message = request.message ?? `foreman wip: task ${request.taskId}, attempt ${request.attempt}`;
    const trailers = `Foreman-Task: ${request.taskId}\nForeman-Attempt: ${request.attempt}`;
    const parents = [head, previous].flatMap((parent) => (parent === undefined ? [] : ['-p', parent]));
    const committer = await openGitForCommits(worktree);
    const sha = (await committer.raw(['commit-tree', '--no-gpg-sign', ...parents, '-m', message, '-m', trailers, tree])).trim();
    try {
      // Compare-and-swap: a concurrent snapshot of the same attempt makes this fail instead of
      // silently replacing what the other one saved.
      const expectedOld = previous ?? '0'.repeat(sha.length);
      await git.raw(['update-ref', '-m', message, ref.value, sha, expectedOld]);
    } catch (error) {
      if (!isGitFailure(error)) throw error;
      return refused('wipRefMoved', `The snapshot ${ref.value} changed while saving; the new one is still ${sha}.`, {
        ref: ref.value,
        sha,
      });
    }
    return ok(sha);
  } catch (error) {
    if (!isGitFailure(error)) throw error;
    return refused('snapshotFailed', `Could not snapshot '${request.worktreePath}': ${errorText(error)}`, { path: request.worktreePath });
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/**
 * Clears a worktree's uncommitted and untracked changes, but only when the snapshot `sha` holds
 * exactly them: its first parent is HEAD and its tree is the worktree's. This is what lets a worker
 * move on to its next task after the last one's leftovers were saved; anything changed since the
 * snapshot makes it refuse. Ignored files stay (snapshots never held them).
 */
export async function discardSnapshotted(worktreePath: string, sha: string): Promise<Result<void>> {
  const topLevel = await verifyWorktreeTopLevel(worktreePath);
  if (!topLevel.ok) return topLevel;
  const worktree = topLevel.value;
  const git = openGit(worktree);
  const scratch = await mkdtemp(join(tmpdir(), 'foreman-index-'));
  try {
    const head = await resolveCommit(git, 'HEAD');
    const realIndex = resolve(worktree, (await git.raw(['rev-parse', '--git-path', 'index'])).trim());
    const tree = await writeWorktreeTree(worktree, join(scratch, 'index'), realIndex, head);
    const savedTree = (await git.raw(['rev-parse', '--verify', '--end-of-options', `${sha}^{tree}`])).trim();
    if (head === undefined || (await resolveCommit(git, `${sha}^1`)) !== head || tree !== savedTree) {
      return refused('notSnapshotted', `'${worktreePath}' has changes that ${sha} does not hold; nothing was discarded.`, {
        path: worktreePath,
        sha,
      });
    }
    await git.raw(['reset', '--quiet', '--hard', 'HEAD', '--']);
    await git.raw(['clean', '--quiet', '--force', '-d', '--', '.']);
    return ok(undefined);
  } catch (error) {
    if (!isGitFailure(error)) throw error;
    return refused('discardFailed', `Could not clear '${worktreePath}': ${errorText(error)}`, { path: worktreePath });
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/**
 * The tree of everything in the worktree, built in a throwaway index. Starting from a copy of the
 * real index keeps git's file-stat cache (only changed files get hashed) and its skip-worktree bits
 * (a sparse checkout's absent files are not recorded as deleted); without one, start from HEAD.
 */
async function writeWorktreeTree(worktree: string, indexFile: string, realIndex: string, head: string | undefined): Promise<string> {
  const scratchGit = openGit(worktree, { indexFile });
  const hasRealIndex = await stat(realIndex).then(
    (info) => info.isFile(),
    () => false,
  );
  if (hasRealIndex) {
    await copyFile(realIndex, indexFile);
  } else {
    await scratchGit.raw(head === undefined ? ['read-tree', '--empty'] : ['read-tree', head]);
  }
  await scratchGit.raw(['add', '--all', '--', '.']);
  return (await scratchGit.raw(['write-tree'])).trim();
}

async function isEmptyTree(git: SimpleGit, tree: string): Promise<boolean> {
  return (await git.raw(['ls-tree', tree])).length === 0;
}

/** Every wip snapshot in the repository, ordered by task and attempt. */
export async function listWip(repoRoot: string): Promise<WipSnapshot[]> {
  const git = openGit(repoRoot);
  const format = '%(refname)%00%(objectname)%00%(committerdate:iso-strict)%00%(parent)';
  const output = await git.raw(['for-each-ref', `--format=${format}`, wipRefPrefix]);
  const snapshots: WipSnapshot[] = [];
  for (const line of lines(output)) {
    const [ref = '', sha = '', date = '', parents = ''] = line.split('\0');
    const parsed = parseWipRef(ref);
    if (parsed === undefined) continue;
    const files = await filesChanged(git, sha, parents.split(' ')[0] || undefined);
    snapshots.push({ ref, taskId: parsed.taskId, attempt: parsed.attempt, sha, date, files });
  }
  return snapshots.sort((a, b) => a.taskId.localeCompare(b.taskId) || a.attempt - b.attempt);
}

async function filesChanged(git: SimpleGit, sha: string, parent: string | undefined): Promise<string[]> {
  const range = parent === undefined ? ['--root', sha] : [parent, sha];
  return nulFields(await git.raw(['diff-tree', '-r', '--name-only', '-z', '--no-commit-id', '--no-renames', ...range]));
}

export interface RestoreRequest {
  readonly worktreePath: string;
  /** A wip ref, `refs/foreman/wip/<task>/<attempt>`. */
  readonly ref: string;
}

/**
 * Applies a snapshot's changes (relative to the commit it was taken on) to a clean worktree, as
 * unstaged changes. Refuses a dirty worktree, so restoring can never overwrite newer edits, and
 * `git apply` is all-or-nothing, so a snapshot that does not fit changes nothing.
 */
export async function restoreWip(request: RestoreRequest): Promise<Result<{ sha: string; files: string[] }>> {
  if (parseWipRef(request.ref) === undefined) {
    return invalid('invalidWipRef', `'${request.ref}' is not a wip ref (refs/foreman/wip/<task>/<attempt>).`, { ref: request.ref });
  }
  const topLevel = await verifyWorktreeTopLevel(request.worktreePath);
  if (!topLevel.ok) return topLevel;
  const git = openGit(topLevel.value);
  const sha = await resolveCommit(git, request.ref);
  if (sha === undefined) return notFound('wipSnapshot', request.ref);
  if (await isDirty(git)) {
    return refused(
      'dirtyWorktree',
      `'${request.worktreePath}' has uncommitted changes; snapshot or commit them before restoring ${request.ref}.`,
      {
        path: request.worktreePath,
      },
    );
  }
  const parent = await resolveCommit(git, `${sha}^1`);
  const files = await filesChanged(git, sha, parent);
  if (files.length === 0) return ok({ sha, files });

  const scratch = await mkdtemp(join(tmpdir(), 'foreman-patch-'));
  try {
    const patch = join(scratch, 'wip.patch');
    // Fixed prefixes and no external diff or textconv, whatever the user's diff settings say, so
    // `git apply` reads back exactly the bytes of the snapshot.
    const base = parent ?? (await emptyTree(git));
    await git.raw([
      'diff',
      '--binary',
      '--full-index',
      '--no-color',
      '--no-ext-diff',
      '--no-textconv',
      '--no-relative',
      '--src-prefix=a/',
      '--dst-prefix=b/',
      `--output=${patch}`,
      base,
      sha,
      '--',
    ]);
    await git.raw(['apply', '--binary', '--whitespace=nowarn', '--', patch]);
    return ok({ sha, files });
  } catch (error) {
    if (!isGitFailure(error)) throw error;
    return refused('wipDoesNotApply', `The snapshot ${request.ref} does not apply to '${request.worktreePath}': ${errorText(error)}`, {
      ref: request.ref,
    });
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** The empty tree of this repository's hash function (sha1 or sha256). */
async function emptyTree(git: SimpleGit): Promise<string> {
  const format = (await git.raw(['rev-parse', '--show-object-format']).catch(() => 'sha1')).trim();
  return format === 'sha256'
    ? '6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321'
    : '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
}
