/**
 * Real processes for the CLI's tests: temp git repositories, `node dist/cli.js …` children (argv
 * arrays, no shell), and a `foreman serve` child that the test stops with SIGTERM.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { makeGitRepo } from '../../support/gitRepo';
import { type Run, runProcess } from '../../support/runProcess';
import { builtCli, type Server, startServe as startServeOf } from '../../support/serve';

export const cliPath = builtCli;

const sandbox = realpathSync(mkdtempSync(join(tmpdir(), 'foreman-cli-')));
after(() => rmSync(sandbox, { recursive: true, force: true }));

/** Git without the machine's configuration; an identity only for the fixture's own commit. */
const gitEnv = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: sandbox, GIT_CONFIG_GLOBAL: '/dev/null' };
/** The CLI sees none of the variables an agent would have, unless a test sets them. */
export const baseEnv = Object.fromEntries(Object.entries(gitEnv).filter(([key]) => !key.startsWith('FOREMAN_')));

let counter = 0;

/** A repository on `main` with one empty commit and no identity of its own. */
export function makeRepo(): string {
  return makeGitRepo(join(sandbox, `repo-${++counter}`), { configureIdentity: false, env: gitEnv });
}

export function tempFolder(): string {
  const folder = join(sandbox, `folder-${++counter}`);
  mkdirSync(folder);
  return folder;
}

export type { Run };

export interface RunOptions {
  readonly env?: Record<string, string>;
  readonly cwd?: string;
  /** What the command reads on stdin (default: nothing). */
  readonly stdin?: string;
}

/** Runs `foreman <args>` in `repo` and collects its output. */
export function foreman(repo: string, args: readonly string[], options: RunOptions = {}): Promise<Run> {
  return runProcess(process.execPath, [cliPath, ...args], {
    cwd: options.cwd ?? repo,
    env: { ...baseEnv, ...options.env },
    ...(options.stdin !== undefined ? { stdin: options.stdin } : {}),
  });
}

/** Runs a command that must succeed with `--json` and returns its parsed value. */
export async function foremanJson<T = unknown>(repo: string, args: readonly string[], options: RunOptions = {}): Promise<T> {
  const run = await foreman(repo, [...args, '--json'], options);
  if (run.code !== 0) throw new Error(`foreman ${args.join(' ')} exited ${run.code}: ${run.stdout}${run.stderr}`);
  return JSON.parse(run.stdout) as T;
}

export type { Server };

/** Starts `foreman serve --no-agents` with the CLI's environment and waits for its ready line. */
export function startServe(repo: string, options: Pick<RunOptions, 'env'> = {}): Promise<Server> {
  return startServeOf(repo, { args: ['--no-agents'], env: { ...baseEnv, ...options.env } });
}

/** A repository with Foreman initialised, a `foreman serve` owning it, and these workers added through it. */
export async function servedRepo(workers: readonly string[]): Promise<{ repo: string; server: Server }> {
  const repo = makeRepo();
  const init = await foreman(repo, ['init']);
  if (init.code !== 0) throw new Error(`foreman init exited ${init.code}: ${init.stderr}`);
  const server = await startServe(repo);
  for (const worker of workers) {
    const added = await foreman(repo, ['worker', 'add', worker]);
    if (added.code !== 0) throw new Error(`foreman worker add ${worker} exited ${added.code}: ${added.stderr}`);
  }
  return { repo, server };
}
