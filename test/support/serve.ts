/**
 * The one way tests and benches start `foreman serve`: the built CLI as a child process (argv, no
 * shell), its output collected, stopped with SIGTERM. `startServe` waits for the ready line;
 * `spawnServe` does not, for the tests of what serve does before it is ready. No node:test here.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

/** The built CLI of this checkout (`node scripts/build.mjs`). */
export const builtCli = join(__dirname, '..', '..', 'dist', 'cli.js');

/** What serve prints once it owns the workspace and listens: the endpoint's socket path. */
const readyLine = /foreman serve: owner of .*, endpoint (.*)\n/;

export interface ServeOptions {
  /** After `serve` (default none: with agents). */
  readonly args?: readonly string[];
  /** The child's whole environment (default this process's). */
  readonly env?: NodeJS.ProcessEnv;
  /** Node's own options, before the CLI (say, `--cpu-prof`). */
  readonly nodeOptions?: readonly string[];
}

export interface ServeExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export interface ServeProcess {
  readonly child: ChildProcess;
  /** Everything it printed so far, stdout and stderr together. */
  output(): string;
  /** Whether it has said it owns the workspace. */
  isReady(): boolean;
  /** Settles when it has exited (and its output is closed). */
  readonly exited: Promise<ServeExit>;
  /** SIGTERM unless it has exited, then its exit code. */
  stop(): Promise<number | null>;
}

/** Starts `foreman serve` in `repo` without waiting for anything. */
export function spawnServe(repo: string, options: ServeOptions = {}): ServeProcess {
  const child = spawn(process.execPath, [...(options.nodeOptions ?? []), builtCli, 'serve', ...(options.args ?? [])], {
    cwd: repo,
    env: options.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<ServeExit>((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
  return {
    child,
    output: () => output,
    isReady: () => /foreman serve: owner of /.test(output),
    exited,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return (await exited).code;
    },
  };
}

export interface Server extends ServeProcess {
  readonly pid: number;
  /** The endpoint its ready line named. */
  readonly socketPath: string;
}

/**
 * Starts `foreman serve` in `repo` and resolves once its ready line is out; rejects, with its
 * output, when it exits first or is not ready within `timeoutMs` (default 20 s).
 */
export function startServe(repo: string, options: ServeOptions & { readonly timeoutMs?: number } = {}): Promise<Server> {
  const serve = spawnServe(repo, options);
  const timeoutMs = options.timeoutMs ?? 20_000;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void serve.stop();
      reject(new Error(`foreman serve did not get ready within ${timeoutMs} ms: ${serve.output()}`));
    }, timeoutMs);
    const onData = (): void => {
      const match = readyLine.exec(serve.output());
      if (!match) return;
      clearTimeout(timer);
      serve.child.stdout?.off('data', onData);
      serve.child.stderr?.off('data', onData);
      resolve({ ...serve, pid: serve.child.pid ?? 0, socketPath: match[1] ?? '' });
    };
    serve.child.stdout?.on('data', onData);
    serve.child.stderr?.on('data', onData);
    void serve.exited.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`foreman serve exited ${code} before it was ready: ${serve.output()}`));
    });
  });
}
