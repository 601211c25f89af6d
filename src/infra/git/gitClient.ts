/**
 * The one place that creates simple-git instances (ARCHITECTURE §5: simple-git only, argv arrays,
 * never a shell). Everything else in this folder asks for a client here, so environment handling,
 * the fallback identity and error reading are decided once.
 */
import { existsSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import { resolve } from 'node:path';
import { GitError, simpleGit, type SimpleGit } from 'simple-git';

/** Used only when the repository has no `user.name` / `user.email` of its own (or global). */
export const fallbackIdentity = { name: 'Foreman', email: 'foreman@localhost' } as const;

/**
 * Configuration that keeps git from doing things behind our back in automated runs: auto-stashing
 * (a stash pop can conflict and strand the user's edits in a stash), rebasing other branches along
 * with ours (`updateRefs`), or squashing fixups. Unknown keys are ignored by older git versions.
 */
const automationConfig = [
  'rebase.autoStash=false',
  'rebase.autoSquash=false',
  'rebase.updateRefs=false',
  'merge.autoStash=false',
  'advice.detachedHead=false',
];

/**
 * Variables that simple-git refuses to pass on explicitly (its unsafe-operation guard), plus the
 * ones that would redirect git away from the folder we name. When we must set an environment (a
 * temporary index), we start from the inherited one without these. Dropping them can only make a
 * snapshot include more, never less: e.g. a global excludes file from GIT_CONFIG_GLOBAL.
 */
const droppedVariables = new Set(
  [
    'editor pager prefix ssh_askpass git_askpass git_config git_config_global git_config_system git_config_count',
    'git_editor git_exec_path git_external_diff git_pager git_proxy_command git_template_dir git_sequence_editor',
    'git_ssh git_ssh_command git_dir git_work_tree git_index_file git_common_dir git_object_directory',
    'git_alternate_object_directories git_namespace',
  ]
    .join(' ')
    .split(' '),
);

export interface OpenGitOptions {
  /** Run with this index file instead of the real one (snapshots never touch the real index). */
  readonly indexFile?: string;
  /** Add the fallback identity for whichever of name/email is not configured. */
  readonly identity?: { readonly name?: string; readonly email?: string };
  /**
   * Kill git when it has been silent this long (a remote that never answers, a credential prompt
   * with nobody to answer it); the call then fails like any other git failure.
   */
  readonly silenceTimeoutMs?: number;
}

/** A simple-git client rooted at `directory`, which must exist (simple-git refuses otherwise). */
export function openGit(directory: string, options: OpenGitOptions = {}): SimpleGit {
  const config = [...automationConfig];
  if (options.identity?.name) config.push(`user.name=${options.identity.name}`);
  if (options.identity?.email) config.push(`user.email=${options.identity.email}`);
  const git = simpleGit({
    baseDir: directory,
    config,
    trimmed: false,
    maxConcurrentProcesses: 4,
    errors: exitCodeErrors,
    ...(options.silenceTimeoutMs !== undefined ? { timeout: { block: options.silenceTimeoutMs } } : {}),
  });
  if (options.indexFile !== undefined) {
    git.env({ ...scrubbedEnvironment(), GIT_INDEX_FILE: options.indexFile });
  }
  return git;
}

/**
 * A failed git command with its exit code and both output streams. simple-git on its own treats a
 * non-zero exit as success when stderr is empty, and `git merge` reports a conflict on stdout only;
 * so every non-zero exit becomes this error, and callers expecting "exit 1 = absent" catch it.
 */
export class GitExitError extends GitError {
  constructor(
    readonly exitCode: number,
    readonly stdout: string,
    readonly stderr: string,
  ) {
    super(undefined, stderr.trim() || stdout.trim() || `git exited with code ${exitCode}`);
  }
}

function exitCodeErrors(
  error: Buffer | Error | undefined,
  result: { exitCode: number; stdOut: Buffer[]; stdErr: Buffer[] },
): Buffer | Error | undefined {
  // A negative or missing code means git did not run at all (e.g. not installed): keep that error.
  if (!(result.exitCode > 0)) return error;
  return new GitExitError(result.exitCode, Buffer.concat(result.stdOut).toString('utf8'), Buffer.concat(result.stdErr).toString('utf8'));
}

function scrubbedEnvironment(): Record<string, string> {
  const environment: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    const lower = key.toLowerCase();
    if (value === undefined || droppedVariables.has(lower) || /^git_config_(key|value)_\d+$/.test(lower)) continue;
    environment[key] = value;
  }
  return environment;
}

/**
 * A client for commands that write commits. The fallback identity is added only for the parts the
 * user has not configured, so a configured identity always wins (and environment variables such as
 * GIT_AUTHOR_NAME beat `-c` anyway).
 */
export async function openGitForCommits(directory: string, options: Omit<OpenGitOptions, 'identity'> = {}): Promise<SimpleGit> {
  const probe = openGit(directory);
  // Exit 1 without output means neither key is set.
  const configured = await probe.raw(['config', '--get-regexp', '^user\\.(name|email)$']).catch(absentOnExit1);
  const keys = new Set(configured.split('\n').map((line) => line.split(' ', 1)[0]));
  const identity = {
    ...(keys.has('user.name') ? {} : { name: fallbackIdentity.name }),
    ...(keys.has('user.email') ? {} : { email: fallbackIdentity.email }),
  };
  return openGit(directory, { ...options, identity });
}

/** The text git printed for a failed command, trimmed; for other errors their message. */
export function errorText(error: unknown): string {
  if (error instanceof GitError) return error.message.trim();
  if (error instanceof Error) return error.message;
  return String(error);
}

/** True for a failure git itself reported (non-zero exit with output), as opposed to a bug. */
export function isGitFailure(error: unknown): error is GitError {
  return error instanceof GitError;
}

/** Lines of output, without the empty tail. */
export function lines(output: string): string[] {
  return output.split('\n').filter((line) => line.length > 0);
}

/** NUL-separated output (`-z`), without the empty tail. */
export function nulFields(output: string): string[] {
  return output.split('\0').filter((field) => field.length > 0);
}

/** The real path of an existing folder, or the path made absolute when it does not exist (yet). */
export async function canonicalPath(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch {
    return path;
  }
}

export function folderExists(path: string): boolean {
  return existsSync(path);
}

/** The sha a name points at as a commit, or undefined when it does not resolve. */
export async function resolveCommit(git: SimpleGit, name: string): Promise<string | undefined> {
  const output = await git.raw(['rev-parse', '--verify', '--quiet', '--end-of-options', `${name}^{commit}`]).catch(absentOnExit1);
  const sha = output.trim();
  return sha.length > 0 ? sha : undefined;
}

/** The short name of the branch checked out, or undefined when HEAD is detached. */
export async function currentBranch(git: SimpleGit): Promise<string | undefined> {
  const name = (await git.raw(['symbolic-ref', '--quiet', '--short', 'HEAD']).catch(absentOnExit1)).trim();
  return name.length > 0 ? name : undefined;
}

/** For `--quiet` lookups, where exit 1 without a message means "not there": yields ''. */
export function absentOnExit1(error: unknown): string {
  if (error instanceof GitExitError && error.exitCode === 1 && error.stderr.trim().length === 0) return '';
  throw error;
}

/** Whether the worktree has uncommitted changes, untracked files included (ignored ones are not). */
export async function isDirty(git: SimpleGit): Promise<boolean> {
  const status = await git.raw(['status', '--porcelain=v1', '-z', '--untracked-files=all', '--ignore-submodules=none']);
  return status.length > 0;
}

/** The repository's shared git folder as seen from `path`, or undefined outside any repository. */
export async function commonDirectory(path: string): Promise<string | undefined> {
  try {
    const output = (await openGit(path).raw(['rev-parse', '--git-common-dir'])).trim();
    return await canonicalPath(resolve(path, output));
  } catch (error) {
    if (!isGitFailure(error)) throw error;
    return undefined;
  }
}
