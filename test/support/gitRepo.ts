/**
 * The one way a test makes a real git repository in a folder: on `main`, with a first commit of
 * the files it is given. Every fixture (CLI, agents, git layer, engine, UI tests) calls this with
 * its own options. No node:test here: child processes of the engine tests load it too.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export interface GitIdentity {
  readonly name: string;
  readonly email: string;
}

/** The identity test repositories commit with unless a fixture names its own. */
export const testIdentity: GitIdentity = { name: 'Test User', email: 'test@example.com' };

export interface GitRepoOptions {
  /** The first commit's files, path → text; none: an empty first commit. */
  readonly files?: Readonly<Record<string, string>>;
  /** Who makes the first commit (default `testIdentity`). */
  readonly identity?: GitIdentity;
  /**
   * Whether `identity` is written into the repository's config (default true), so later commits
   * in it have one; false: it is given to the first commit alone, and the repository has none.
   */
  readonly configureIdentity?: boolean;
  /** The first commit's message (default `initial`). */
  readonly message?: string;
  /** git's environment (default this process's). */
  readonly env?: NodeJS.ProcessEnv;
  /** A bare repository to make at this path, as `origin`, with `main` pushed to it. */
  readonly origin?: string;
}

/**
 * Keeps this process's git (and its children's) from the machine's configuration: no system or
 * global config, HOME an empty folder in `sandbox`; the only identity is what a repository sets.
 */
export function isolateGitFromMachine(sandbox: string): void {
  process.env['GIT_CONFIG_NOSYSTEM'] = '1';
  delete process.env['GIT_CONFIG_GLOBAL'];
  delete process.env['XDG_CONFIG_HOME'];
  process.env['HOME'] = join(sandbox, 'home');
  mkdirSync(process.env['HOME']);
}

/** Makes `dir` (and its parents) a repository on `main` with one commit; returns `dir`. */
export function makeGitRepo(dir: string, options: GitRepoOptions = {}): string {
  const identity = options.identity ?? testIdentity;
  const git = (...args: string[]): void =>
    void execFileSync('git', args, { cwd: dir, stdio: 'pipe', ...(options.env ? { env: options.env } : {}) });
  mkdirSync(dir, { recursive: true });
  git('init', '--quiet', '--initial-branch=main');
  const configure = options.configureIdentity ?? true;
  if (configure) {
    git('config', 'user.name', identity.name);
    git('config', 'user.email', identity.email);
  }
  const files = Object.entries(options.files ?? {});
  for (const [path, text] of files) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  if (files.length > 0) git('add', '--', ...files.map(([path]) => path));
  const author = configure ? [] : ['-c', `user.name=${identity.name}`, '-c', `user.email=${identity.email}`];
  git(...author, 'commit', '--quiet', ...(files.length === 0 ? ['--allow-empty'] : []), '-m', options.message ?? 'initial');
  if (options.origin !== undefined) {
    git('init', '--quiet', '--bare', '--initial-branch=main', options.origin);
    git('remote', 'add', 'origin', options.origin);
    git('push', '--quiet', 'origin', 'main');
  }
  return dir;
}
