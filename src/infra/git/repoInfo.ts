/**
 * What Foreman needs to know about a repository when it is initialised: that it is one, where its
 * root is, and which branch is checked out (the default base, ARCHITECTURE §5).
 */
import { realpath } from 'node:fs/promises';
import { resolve } from 'node:path';
import { type Result, invalid, ok } from '../../core/result';
import { currentBranch, errorText, folderExists, isGitFailure, openGit, resolveCommit } from './gitClient';

export interface RepoInfo {
  /** Real path of the checkout's top level. */
  readonly root: string;
  /** The branch checked out; undefined when HEAD is detached. */
  readonly currentBranch: string | undefined;
  /** The commit checked out; undefined before the first commit. */
  readonly head: string | undefined;
  /** The folder is a linked worktree of another checkout rather than the main one. */
  readonly linkedWorktree: boolean;
}

export async function initRepoInfo(repoRoot: string): Promise<Result<RepoInfo>> {
  if (!folderExists(repoRoot)) {
    return invalid('notAGitRepository', `'${repoRoot}' does not exist.`, { path: repoRoot });
  }
  const root = await realpath(repoRoot);
  const git = openGit(root);
  let output: string;
  try {
    output = await git.raw(['rev-parse', '--is-bare-repository', '--show-toplevel', '--absolute-git-dir', '--git-common-dir']);
  } catch (error) {
    if (!isGitFailure(error)) throw error;
    return invalid('notAGitRepository', `'${repoRoot}' is not a git repository (${errorText(error)}); run 'git init' there first.`, {
      path: repoRoot,
    });
  }
  const [bare, topLevel = '', gitDir = '', commonDir = ''] = output.split('\n');
  if (bare === 'true' || topLevel.length === 0) {
    return invalid('bareRepository', `'${repoRoot}' is a bare repository; Foreman needs a checkout.`, { path: repoRoot });
  }
  const realTopLevel = await realpath(topLevel);
  if (realTopLevel !== root) {
    return invalid('notRepositoryRoot', `'${repoRoot}' is inside the repository at '${realTopLevel}'; open that folder instead.`, {
      path: repoRoot,
      topLevel: realTopLevel,
    });
  }
  const absoluteCommon = await realpath(resolve(root, commonDir)).catch(() => commonDir);
  return ok({
    root,
    currentBranch: await currentBranch(git),
    head: await resolveCommit(git, 'HEAD'),
    linkedWorktree: (await realpath(gitDir).catch(() => gitDir)) !== absoluteCommon,
  });
}
