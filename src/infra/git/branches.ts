/**
 * Task branches: how far ahead of the base they are, what they change, and deleting them. A branch
 * with commits that are not in the base is never deleted without an explicit `force`
 * (ARCHITECTURE §5): that is exactly the work a careless cleanup loses.
 */
import type { SimpleGit } from 'simple-git';
import { type Result, notFound, ok, refused } from '../../core/result';
import { errorText, isGitFailure, nulFields, openGit, resolveCommit } from './gitClient';
import { validateBranchName } from './names';
import { fetchBranch } from './remote';
import { listWorktreesWith, worktreeWithBranch } from './worktreeList';

/** One file a task branch changes, for "show changes". */
export interface ChangedFile {
  readonly status: 'added' | 'modified' | 'deleted' | 'renamed' | 'copied' | 'typeChanged' | 'other';
  readonly path: string;
  /** The path before a rename or copy. */
  readonly previousPath?: string;
}

export interface DeleteBranchOptions {
  /** The branch whose commits count as merged. */
  readonly base: string;
  /** The user's explicit confirmation that commits not in the base may go. */
  readonly force?: boolean;
}

/** The commit a local branch points at, after validating the name; notFound when there is none. */
export async function branchTip(git: SimpleGit, branch: string): Promise<Result<string>> {
  const name = await validateBranchName(git, branch);
  if (!name.ok) return name;
  const sha = await resolveCommit(git, `refs/heads/${branch}`);
  return sha === undefined ? notFound('branch', branch) : ok(sha);
}

/** How many commits `branch` has that `base` does not. */
export async function commitsAhead(repoRoot: string, branch: string, base: string): Promise<Result<number>> {
  const git = openGit(repoRoot);
  const tips = await bothTips(git, branch, base);
  if (!tips.ok) return tips;
  return ok(await countCommits(git, tips.value.base, tips.value.branch));
}

/** Commits reachable from `to` and not from `from`. */
export async function countCommits(git: SimpleGit, from: string, to: string): Promise<number> {
  return Number((await git.raw(['rev-list', '--count', `${from}..${to}`, '--'])).trim());
}

/**
 * Deletes a local branch. Refused while it is checked out in a worktree, and refused with
 * `unmergedWork` when it has commits the base lacks, unless `force`. The deletion is a
 * compare-and-swap on the tip that was checked, so a commit landing meanwhile is not lost either.
 */
export async function deleteBranch(
  repoRoot: string,
  branch: string,
  options: DeleteBranchOptions,
): Promise<Result<{ sha: string; commitsAhead: number }>> {
  const git = openGit(repoRoot);
  const tips = await bothTips(git, branch, options.base);
  if (!tips.ok) return tips;
  const holder = worktreeWithBranch(await listWorktreesWith(git), branch);
  if (holder !== undefined) {
    return refused('branchCheckedOut', `The branch '${branch}' is checked out in '${holder.path}'; switch that worktree away first.`, {
      branch,
      path: holder.path,
    });
  }
  const ahead = await countCommits(git, tips.value.base, tips.value.branch);
  if (ahead > 0 && options.force !== true) {
    return refused(
      'unmergedWork',
      `The branch '${branch}' has ${ahead} commit(s) that are not in '${options.base}'; merge it, or delete it with force to discard them.`,
      { branch, base: options.base, commits: ahead, sha: tips.value.branch },
    );
  }
  try {
    await git.raw(['update-ref', '-m', `foreman: delete ${branch}`, '-d', `refs/heads/${branch}`, tips.value.branch]);
  } catch (error) {
    if (!isGitFailure(error)) throw error;
    return refused('branchMoved', `The branch '${branch}' changed while deleting it; nothing was deleted: ${errorText(error)}`, { branch });
  }
  return ok({ sha: tips.value.branch, commitsAhead: ahead });
}

/**
 * What `branch` changes since it left `base` (three-dot: the base's own later commits are not
 * shown). With `remote`, a branch this clone does not have is fetched from there first: a reviewer
 * on another machine than the worker's sees the branch as it was pushed on submit.
 */
export async function changedFiles(
  repoRoot: string,
  base: string,
  branch: string,
  options: { readonly remote?: string } = {},
): Promise<Result<ChangedFile[]>> {
  const git = openGit(repoRoot);
  const tips = await bothTips(
    git,
    branch,
    base,
    options.remote === undefined ? undefined : { directory: repoRoot, remote: options.remote },
  );
  if (!tips.ok) return tips;
  const output = await git.raw([
    'diff',
    '--name-status',
    '-z',
    '--find-renames',
    '--no-color',
    '--no-ext-diff',
    '--no-relative',
    `${tips.value.base}...${tips.value.branch}`,
    '--',
  ]);
  return ok(parseNameStatus(nulFields(output)));
}

const statusWords: Record<string, ChangedFile['status']> = {
  A: 'added',
  M: 'modified',
  D: 'deleted',
  R: 'renamed',
  C: 'copied',
  T: 'typeChanged',
};

function parseNameStatus(fields: readonly string[]): ChangedFile[] {
  const files: ChangedFile[] = [];
  for (let index = 0; index < fields.length;) {
    const code = fields[index] ?? '';
    const status = statusWords[code.charAt(0)] ?? 'other';
    if (status === 'renamed' || status === 'copied') {
      files.push({ status, previousPath: fields[index + 1] ?? '', path: fields[index + 2] ?? '' });
      index += 3;
    } else {
      files.push({ status, path: fields[index + 1] ?? '' });
      index += 2;
    }
  }
  return files;
}

/** The tips of both branches; with `fetchFrom`, a branch missing here is fetched from that remote. */
async function bothTips(
  git: SimpleGit,
  branch: string,
  base: string,
  fetchFrom?: { readonly directory: string; readonly remote: string },
): Promise<Result<{ branch: string; base: string }>> {
  let branchSha = await branchTip(git, branch);
  if (!branchSha.ok && branchSha.kind === 'notFound' && fetchFrom !== undefined) {
    branchSha = await fetchBranch(fetchFrom.directory, fetchFrom.remote, branch);
  }
  if (!branchSha.ok) return branchSha;
  const baseSha = await branchTip(git, base);
  if (!baseSha.ok) return baseSha;
  return ok({ branch: branchSha.value, base: baseSha.value });
}
