import { spawn } from 'node:child_process';
import { type Result, ok, refused } from '../../core/result';
import { type Clock, systemClock } from '../../engine/ports';
import { withoutStoreConnection } from './storeSecrets';

/** Keep this much of the verify command's output for the failure message. */
const tailBytes = 2000;

/**
 * Seed 003's validating step: runs the verify command (an argv array, never a shell) in a
 * worktree; exit 0 passes, anything else fails with the end of its output.
 */
export function verifyRunner(
  argv: readonly string[],
  timeoutMs = 15 * 60_000,
  clock: Clock = systemClock,
): ((worktree: string) => Promise<Result<void>>) | undefined {
  const [command, ...args] = argv;
  if (!command) return undefined;
  return (worktree) =>
    new Promise((resolve) => {
      // It runs code an agent wrote: the store's password and address stay with Foreman here too.
      const env = withoutStoreConnection(process.env);
      const child = spawn(command, args, { cwd: worktree, env, shell: false, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
      let output = '';
      const keep = (chunk: Buffer) => (output = (output + chunk.toString('utf8')).slice(-tailBytes));
      child.stdout.on('data', keep);
      child.stderr.on('data', keep);
      const timer = clock.setTimeout(() => {
        try {
          if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
        } catch {
          // Already gone.
        }
      }, timeoutMs);
      child.on('error', (error) => {
        timer.dispose();
        resolve(refused('verifyFailed', `verify command ${JSON.stringify(argv)} could not start: ${error.message}`));
      });
      child.on('close', (code, signal) => {
        timer.dispose();
        if (code === 0) resolve(ok(undefined));
        else
          resolve(
            refused(
              'verifyFailed',
              `verify ${JSON.stringify(argv)} ${signal ? `was killed by ${signal}` : `exited ${code}`}: ${output.trim().split('\n').slice(-5).join(' | ')}`,
            ),
          );
      });
    });
}
