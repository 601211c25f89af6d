/**
 * Commits Foreman makes on a worker's behalf, e.g. the edits an agent left uncommitted when it
 * exited. Every such commit carries the `Foreman-Task`, `Foreman-Worker` and `Foreman-Attempt`
 * trailers (ARCHITECTURE §5) so `git log` alone tells which task and attempt produced it.
 */
import { type Result, ok, refused } from '../../core/result';
import { errorText, isDirty, isGitFailure, openGit, openGitForCommits } from './gitClient';
import { checkAttempt, checkId } from './names';
import { verifyWorktreeTopLevel } from './topLevel';

export interface ForemanTrailers {
  readonly taskId: string;
  readonly workerId: string;
  readonly attempt: number;
}

export interface LeftoversRequest extends ForemanTrailers {
  readonly worktreePath: string;
  /** Subject (and body) of the commit; a default naming the task and attempt is used otherwise. */
  readonly message?: string;
}

/** Checks the ids and renders the trailer block. */
export function trailerBlock(trailers: ForemanTrailers): Result<string> {
  const task = checkId('task', trailers.taskId);
  if (!task.ok) return task;
  const worker = checkId('worker', trailers.workerId);
  if (!worker.ok) return worker;
  const attempt = checkAttempt(trailers.attempt);
  if (!attempt.ok) return attempt;
  return ok(`Foreman-Task: ${task.value}\nForeman-Worker: ${worker.value}\nForeman-Attempt: ${attempt.value}`);
}

/**
 * The trailers go into their own last paragraph (what `git interpret-trailers` reads), rather than
 * through `commit --trailer`, which needs git 2.32.
 */
export function withTrailers(message: string, trailers: string): string {
  return `${message.trimEnd()}\n\n${trailers}\n`;
}

/**
 * Commits everything uncommitted in the worktree, untracked files included (ignored files are
 * not). Resolves to the new commit's sha, or undefined when the worktree was clean.
 */
export async function commitLeftovers(request: LeftoversRequest): Promise<Result<string | undefined>> {
  const trailers = trailerBlock(request);
  if (!trailers.ok) return trailers;
  const topLevel = await verifyWorktreeTopLevel(request.worktreePath);
  if (!topLevel.ok) return topLevel;
  const worktree = topLevel.value;
  if (!(await isDirty(openGit(worktree)))) return ok(undefined);

  const subject = request.message ?? `foreman: work left uncommitted by task ${request.taskId}, attempt ${request.attempt}`;
  return commitAll(worktree, withTrailers(subject, trailers.value));
}

/**
 * `add --all` and commit. Hooks are skipped (`--no-verify`): this commit preserves work that
 * already exists, and a failing lint hook must not be the reason it stays uncommitted; checking
 * the work is the merge queue's verify step. `--cleanup=whitespace` keeps lines starting with '#'.
 */
export async function commitAll(worktree: string, message: string): Promise<Result<string>> {
  const git = await openGitForCommits(worktree);
  try {
    await git.raw(['add', '--all', '--', '.']);
    await git.raw(['commit', '--no-verify', '--cleanup=whitespace', '--allow-empty-message', '-m', message]);
    return ok((await git.raw(['rev-parse', 'HEAD'])).trim());
  } catch (error) {
    if (!isGitFailure(error)) throw error;
    const text = errorText(error);
    // A stale index.lock is what an agent killed in the middle of a git command leaves behind.
    const code = text.includes('index.lock') ? 'indexLocked' : 'commitFailed';
    return refused(code, `Could not commit the changes in '${worktree}': ${text}`, { path: worktree });
  }
}
