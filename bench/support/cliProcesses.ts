/** Timing real CLI processes against a real `foreman serve`, for the benches that measure start-up. */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { startServe as startServeOf } from '../../test/support/serve';

/** The CLI's entry (the thin client) in this checkout. */
export const cliPath = path.join(__dirname, '..', '..', 'dist', 'cli.js');

/**
 * Spawn to exit of one command, in ms; fails loudly on a non-zero exit, or when stderr holds
 * `failWhen` (a hook that exits 0 by design but says it failed).
 */
export function timed(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  options: { stdin?: string; failWhen?: string } = {},
): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const [file, ...args] = argv;
    if (file === undefined) throw new Error('nothing to run');
    const child = spawn(file, args, { env, stdio: ['pipe', 'ignore', 'pipe'] });
    let errors = '';
    child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    child.stdin.end(options.stdin ?? '');
    child.on('close', (code) => {
      const elapsed = performance.now() - started;
      if (code === 0 && !(options.failWhen !== undefined && errors.includes(options.failWhen))) resolve(elapsed);
      else reject(new Error(`${argv.join(' ')} exited ${code}: ${errors}`));
    });
  });
}

export function git(cwd: string, ...args: string[]): void {
  execFileSync('git', args, { cwd, stdio: 'ignore' });
}

export function foreman(cwd: string, ...args: string[]): string {
  return execFileSync(process.execPath, [cliPath, ...args], { cwd, encoding: 'utf8' });
}

/**
 * A `foreman serve --no-agents` (or with `flags`) in `cwd`, resolved once it says it owns the
 * workspace; `nodeOptions` go before the CLI (say, `--cpu-prof`).
 */
export async function startServe(
  cwd: string,
  flags: readonly string[] = ['--no-agents'],
  nodeOptions: readonly string[] = [],
): Promise<ChildProcess> {
  // A loaded machine may take long to start it: the bench waits as long as it takes, within reason.
  return (await startServeOf(cwd, { args: flags, nodeOptions, timeoutMs: 300_000 })).child;
}
