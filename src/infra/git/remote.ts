/**
 * The shared remote of a crew spread over several machines (issue 14): task branches are pushed
 * there on submit so any machine can review them, and the base is fetched from and pushed back to
 * it by the merge queue. Every push is a plain one: git refuses anything but a fast-forward, and
 * Foreman never passes --force in any spelling (`+refspec`, --force-with-lease, --mirror).
 */
import type { SimpleGit } from 'simple-git';
import { type Result, invalid, notFound, ok, refused } from '../../core/result';
import { GitExitError, errorText, isGitFailure, lines, openGit, resolveCommit } from './gitClient';
import { validateBranchName } from './names';

/** Same rule as the settings' `remoteNameSchema`: nothing git could read as an option or a path. */
const remoteNamePattern = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,99}$/;

/**
 * How long a fetch or push may stay silent before it is given up (they run `--quiet`). A merge
 * holds the crew's merge lock meanwhile: a remote that never answers must not hold it for ever.
 */
export const remoteSilenceTimeoutMs = 5 * 60_000;

/** A client for talking to the remote from `directory` (the repository or one of its worktrees). */
function remoteGit(directory: string): SimpleGit {
  return openGit(directory, { silenceTimeoutMs: remoteSilenceTimeoutMs });
}

/** The remote-tracking ref a fetched branch is kept in: `refs/remotes/<remote>/<branch>`. */
export function trackingRef(remote: string, branch: string): string {
  return `refs/remotes/${remote}/${branch}`;
}

/** Checks that `remote` is a remote of the clone at `repoRoot` (`git remote`), naming the ones it has otherwise. */
export async function checkRemote(repoRoot: string, remote: string): Promise<Result<string>> {
  if (!remoteNamePattern.test(remote) || remote.includes('..') || remote.endsWith('.lock')) {
    return invalid('invalidRemote', `'${remote.slice(0, 100)}' is not a git remote name (e.g. origin).`, { remote });
  }
  const remotes = lines(await openGit(repoRoot).raw(['remote']));
  if (!remotes.includes(remote)) {
    const known = remotes.length > 0 ? `it has ${remotes.join(', ')}` : 'it has none';
    return invalid(
      'unknownRemote',
      `The repository has no remote '${remote}' (${known}); add it with 'git remote add' or change the setting.`,
      {
        remote,
        remotes,
      },
    );
  }
  return ok(remote);
}

/**
 * Fetches `branch` from the remote into its tracking ref and resolves to the fetched tip;
 * notFound when the remote has no such branch. The tracking ref follows the remote wherever it
 * went, as git's default refspec does: it is a local copy of the remote's state, not anyone's work.
 */
export async function fetchBranch(directory: string, remote: string, branch: string): Promise<Result<string>> {
  const git = remoteGit(directory);
  const name = await validateBranchName(git, branch);
  if (!name.ok) return name;
  const ref = trackingRef(remote, branch);
  try {
    await git.raw(['fetch', '--quiet', '--no-tags', '--no-write-fetch-head', '--', remote, `+refs/heads/${branch}:${ref}`]);
  } catch (error) {
    if (!isGitFailure(error)) throw error;
    if (/couldn't find remote ref/i.test(errorText(error))) return notFound('remoteBranch', `${remote}/${branch}`);
    return refused('fetchFailed', `Could not fetch '${branch}' from '${remote}': ${errorText(error)}`, { remote, branch });
  }
  const sha = await resolveCommit(git, ref);
  return sha === undefined ? notFound('remoteBranch', `${remote}/${branch}`) : ok(sha);
}

/**
 * Pushes `source` (a sha or a local ref) to `refs/heads/<branch>` on the remote, as a fast-forward
 * only. Refusals: `pushRejected` when the remote's branch has commits the push lacks (someone moved
 * it meanwhile), `pushDeclined` when a hook or protection rule there refused it, `pushFailed` for
 * anything else (no network, no permission).
 */
export async function pushFastForward(directory: string, remote: string, source: string, branch: string): Promise<Result<void>> {
  const git = remoteGit(directory);
  const name = await validateBranchName(git, branch);
  if (!name.ok) return name;
  try {
    await git.raw(['push', '--quiet', '--porcelain', '--no-verify', '--', remote, `${source}:refs/heads/${branch}`]);
    return ok(undefined);
  } catch (error) {
    if (!isGitFailure(error)) throw error;
    // --porcelain puts the per-ref status on stdout: `!<TAB>src:dst<TAB>[rejected] (fetch first)`.
    const text = error instanceof GitExitError ? `${error.stdout}\n${error.stderr}` : errorText(error);
    const details = { remote, branch };
    if (/\[rejected\]|non-fast-forward|fetch first/.test(text)) {
      return refused(
        'pushRejected',
        `'${remote}' refused '${branch}': it has commits this push does not (not a fast-forward); nothing was forced.`,
        details,
      );
    }
    if (/\[remote rejected\]/.test(text)) {
      return refused('pushDeclined', `'${remote}' declined the push of '${branch}': ${firstLine(text)}`, details);
    }
    return refused('pushFailed', `Could not push '${branch}' to '${remote}': ${errorText(error)}`, details);
  }
}

function firstLine(text: string): string {
  return (
    text
      .split('\n')
      .find((line) => line.includes('[remote rejected]'))
      ?.trim() ?? text.trim()
  );
}

/** Whether `ancestor` is reachable from `descendant` (equal counts). */
export async function isAncestor(git: SimpleGit, ancestor: string, descendant: string): Promise<boolean> {
  try {
    await git.raw(['merge-base', '--is-ancestor', ancestor, descendant]);
    return true;
  } catch (error) {
    if (error instanceof GitExitError && error.exitCode === 1) return false;
    throw error;
  }
}

/**
 * A branch to look at: the local one when this clone has it, otherwise the remote's, fetched into
 * its tracking ref (a reviewer on another machine than the worker's). Resolves to a full ref name.
 */
export async function reviewRef(repoRoot: string, branch: string, remote: string | undefined): Promise<Result<string>> {
  const git = openGit(repoRoot);
  const name = await validateBranchName(git, branch);
  if (!name.ok) return name;
  const local = `refs/heads/${branch}`;
  if ((await resolveCommit(git, local)) !== undefined) return ok(local);
  if (remote === undefined) return notFound('branch', branch);
  const fetched = await fetchBranch(repoRoot, remote, branch);
  return fetched.ok ? ok(trackingRef(remote, branch)) : fetched;
}
