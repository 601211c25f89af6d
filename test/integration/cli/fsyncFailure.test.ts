/**
 * A failed fsync, injected into a real process by strace (issue 28, item 3): the kernel's EIO, not
 * a mock. Whatever a failed fsync covered may or may not be on disk, so Foreman answers "outcome
 * unknown" (never "not done"), `serve` stops taking writes, releases the lock and exits non-zero
 * so a supervisor restarts it, and the next open tells what is really there.
 *
 * strace attaches to the process (ptrace) and makes every fsync(2) fail with EIO from then on; the
 * write(2) calls still go through, as they do when a disk fails its flush.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { pollUntil } from '../../support/pollUntil';
import { runProcess } from '../../support/runProcess';
import { baseEnv, cliPath, foreman, foremanJson, servedRepo } from './harness';

const hasStrace = spawnSync('strace', ['-V']).status === 0;
const failEveryFsync = ['-qq', '-o', '/dev/null', '-e', 'trace=fsync,fdatasync', '-e', 'inject=fsync,fdatasync:error=EIO'];

interface TaskJson {
  readonly id: string;
}

async function taskIds(repo: string): Promise<string[]> {
  const status = await foremanJson<{ tasks: TaskJson[] }>(repo, ['status']);
  return status.tasks.map((task) => task.id).sort();
}

/**
 * Attaches strace to `pid` and every thread of it (`-f`: the group's fsync runs on libuv's thread
 * pool), resolved once it is attached (from then on every fsync fails).
 */
async function injectEio(pid: number): Promise<ChildProcess> {
  const tracer = spawn('strace', ['-f', '-p', String(pid), ...failEveryFsync.filter((arg) => arg !== '-qq')], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let said = '';
  tracer.stderr.setEncoding('utf8').on('data', (chunk: string) => (said += chunk));
  await pollUntil(() => /attached/.test(said) || undefined, { what: `strace to attach to ${pid} (${said})`, timeoutMs: 10_000 });
  return tracer;
}

/** Errors with --json go to stdout as {"error": …}. */
function errorOf(stdout: string): { code: string; message: string } {
  return (JSON.parse(stdout) as { error: { code: string; message: string } }).error;
}

describe('a failed fsync (EIO from the kernel, through strace)', { skip: !hasStrace && 'strace is not installed' }, () => {
  const tracers: ChildProcess[] = [];
  after(() => tracers.forEach((tracer) => tracer.kill()));

  it('serve answers "outcome unknown", stops taking writes, exits non-zero with the lock released; the next open has the write', async () => {
    const { repo, server } = await servedRepo([]);
    await foremanJson<TaskJson>(repo, ['task', 'add', 'before', '--id', 'before']);
    const exited = new Promise<number | null>((resolve) =>
      server.child.exitCode === null ? server.child.on('close', (code) => resolve(code)) : resolve(server.child.exitCode),
    );
    tracers.push(await injectEio(server.pid));

    const add = await foreman(repo, ['task', 'add', 'during', '--id', 'during', '--json']);
    assert.equal(add.code, 3, `${add.stdout}${add.stderr}`);
    const error = errorOf(add.stdout);
    assert.equal(error.code, 'outcomeUnknown', error.message);
    assert.match(error.message, /cannot tell whether/);
    assert.match(error.message, /look .* before repeating/);
    assert.doesNotMatch(error.message, /not done/);

    const code = await exited;
    assert.equal(code, 1, `serve must exit non-zero so a supervisor restarts it:\n${server.output()}`);
    assert.match(server.output(), /stopped taking writes/);
    assert.equal(existsSync(join(repo, '.foreman', 'owner.lock')), false, 'the lock is released');

    // The next open (a one-shot call) reads what is on disk: here the write did reach the file.
    assert.deepEqual(await taskIds(repo), ['before', 'during']);
    const again = await foreman(repo, ['task', 'add', 'after', '--id', 'after']);
    assert.equal(again.code, 0, again.stderr);
  });

  it('a one-shot call whose fsync fails says "outcome unknown" (exit 3), and the workspace opens after', async () => {
    const { repo, server } = await servedRepo([]);
    await foremanJson<TaskJson>(repo, ['task', 'add', 'before', '--id', 'before']);
    await server.stop();
    // Only the journal's fsyncs fail (-P): the lock and the other files are written as usual.
    const journal = join(repo, '.foreman', 'foreman.journal');
    const strace = ['-f', '-P', journal, ...failEveryFsync, process.execPath, cliPath, 'task', 'add', 'x', '--id', 'x', '--json'];
    const run = await runProcess('strace', strace, { cwd: repo, env: baseEnv });
    assert.equal(run.code, 3, `${run.stdout}${run.stderr}`);
    const error = errorOf(run.stdout);
    assert.equal(error.code, 'outcomeUnknown', error.message);
    assert.equal(existsSync(join(repo, '.foreman', 'owner.lock')), false, 'the lock is released');
    // What was acknowledged is there; x was written before its fsync failed, so the next open finds it.
    assert.deepEqual(await taskIds(repo), ['before', 'x']);
    const again = await foreman(repo, ['task', 'add', 'after', '--id', 'after']);
    assert.equal(again.code, 0, again.stderr);
  });
});
