/**
 * Real processes for the CLI's tests: temp git repositories, `node dist/cli.js …` children (argv
 * arrays, no shell), and a `foreman serve` child that the test stops with SIGTERM.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { type Run, runProcess } from '../../support/runProcess';

export const cliPath = join(__dirname, '..', '..', '..', 'dist', 'cli.js');

const sandbox = realpathSync(mkdtempSync(join(tmpdir(), 'foreman-cli-')));
after(() => rmSync(sandbox, { recursive: true, force: true }));

/** Git without the machine's configuration; an identity only for the fixture's own commit. */
const gitEnv = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: sandbox, GIT_CONFIG_GLOBAL: '/dev/null' };
/** The CLI sees none of the variables an agent would have, unless a test sets them. */
export const baseEnv = Object.fromEntries(Object.entries(gitEnv).filter(([key]) => !key.startsWith('FOREMAN_')));

let counter = 0;

/** A repository on `main` with one commit. */
export function makeRepo(): string {
  const root = join(sandbox, `repo-${++counter}`);
  mkdirSync(root);
  const git = (...args: string[]): void => void execFileSync('git', args, { cwd: root, env: gitEnv, stdio: 'ignore' });
  git('init', '--quiet', '-b', 'main');
  git('-c', 'user.name=Test', '-c', 'user.email=test@example.com', 'commit', '--quiet', '--allow-empty', '-m', 'initial');
  return root;
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

export interface Server {
  readonly child: ChildProcess;
  readonly pid: number;
  readonly socketPath: string;
  /** Everything it printed so far. */
  output(): string;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

/** Starts `foreman serve` and waits for its ready line. */
export function startServe(repo: string, options: Pick<RunOptions, 'env'> = {}): Promise<Server> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliPath, 'serve', '--no-agents'], {
      cwd: repo,
      env: { ...baseEnv, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let ready = false;
    const exited = new Promise<number | null>((done) => child.on('close', (code) => done(code)));
    const timer = setTimeout(() => reject(new Error(`foreman serve did not get ready: ${output}`)), 20_000);
    const onData = (chunk: string): void => {
      output += chunk;
      const match = /foreman serve: owner of .*, endpoint (.*)\n/.exec(output);
      if (match && !ready) {
        ready = true;
        clearTimeout(timer);
        resolve({
          child,
          pid: child.pid!,
          socketPath: match[1]!,
          output: () => output,
          stop: async () => {
            if (child.exitCode === null) child.kill('SIGTERM');
            return exited;
          },
        });
      }
    };
    child.stdout.setEncoding('utf8').on('data', onData);
    child.stderr.setEncoding('utf8').on('data', onData);
    void exited.then((code) => {
      if (!ready) {
        clearTimeout(timer);
        reject(new Error(`foreman serve exited ${code} before it was ready: ${output}`));
      }
    });
  });
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
