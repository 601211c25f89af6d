/**
 * What the CLI tells a newcomer (issue 11, item 6 and `foreman wait`): heartbeat and liveness from
 * one source, what a merge landed where, the version, and waiting for a state. Real `node
 * dist/cli.js` children on real git repositories; no owner, so every call takes the lock itself.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { baseEnv, cliPath, foreman, foremanJson, makeRepo } from './harness';

async function ok(repo: string, args: string[]): Promise<string> {
  const run = await foreman(repo, args);
  assert.equal(run.code, 0, `foreman ${args.join(' ')}: ${run.stdout}${run.stderr}`);
  return run.stdout;
}

/** The HEARTBEAT and LIVENESS cells of a worker's row in a `worker list` or `status` table. */
function rowOf(table: string, worker: string): { heartbeat: string; liveness: string } {
  const lines = table.split('\n');
  const header = lines.find((line) => line.startsWith('WORKER '))!;
  const row = lines.find((line) => line.startsWith(`${worker} `))!;
  assert.ok(header && row, `no row for ${worker} in:\n${table}`);
  const cellAt = (column: string, next: string) => row.slice(header.indexOf(column), header.indexOf(next)).trim();
  return { heartbeat: cellAt('HEARTBEAT', 'USAGE'), liveness: row.slice(header.indexOf('LIVENESS')).trim() };
}

/** A liveness reason may name a heartbeat age only when the HEARTBEAT column shows that same age. */
function assertAgrees(cells: { heartbeat: string; liveness: string }, where: string): void {
  const claimed = /heartbeat (\S+) ago/.exec(cells.liveness);
  if (cells.heartbeat === '-') assert.equal(claimed, null, `${where}: HEARTBEAT "-" beside "${cells.liveness}"`);
  if (claimed) assert.equal(cells.heartbeat, `${claimed[1]} ago`, `${where}: HEARTBEAT "${cells.heartbeat}" beside "${cells.liveness}"`);
}

function mainCommit(repo: string): string {
  return execFileSync('git', ['rev-parse', 'main'], { cwd: repo, encoding: 'utf8' }).trim();
}

describe('cli: heartbeat and liveness agree', () => {
  it('never says "heartbeat 0s ago" beside no heartbeat, in worker list and status alike', async () => {
    const repo = makeRepo();
    await ok(repo, ['init']);
    await ok(repo, ['worker', 'add', 'ada']);
    await ok(repo, ['task', 'add', 'First', '--id', 't1', '--manual']);
    await ok(repo, ['assign', 'ada', 't1']);
    for (const command of [['worker', 'list'], ['status']]) {
      const cells = rowOf(await ok(repo, command), 'ada');
      assert.equal(cells.heartbeat, '-');
      assert.match(cells.liveness, /^OK no heartbeat since it was assigned \S+ ago$/);
      assertAgrees(cells, command.join(' '));
    }
    const [worker] = await foremanJson<Array<{ heartbeatAgeMs: number | null; livenessReason: string }>>(repo, ['worker', 'list']);
    assert.equal(worker!.heartbeatAgeMs, null);
    assert.doesNotMatch(worker!.livenessReason, /^heartbeat/);

    // A heartbeat from before the worker's latest transition is shown as it is, and not claimed as current.
    await ok(repo, ['start', 'ada']);
    await ok(repo, ['heartbeat', 'ada', '--attempt', '1']);
    const beating = rowOf(await ok(repo, ['worker', 'list']), 'ada');
    assert.match(beating.liveness, /^OK heartbeat \S+ ago/);
    assertAgrees(beating, 'after a heartbeat');
    await ok(repo, ['submit', 'ada', '--summary', 'done']);
    await ok(repo, ['request-changes', 'ada', '--note', 'once more']);
    for (const command of [['worker', 'list'], ['status']]) {
      const cells = rowOf(await ok(repo, command), 'ada');
      assert.notEqual(cells.heartbeat, '-', 'the earlier heartbeat is still shown');
      assertAgrees(cells, `${command.join(' ')} after request-changes`);
    }
  });
});

describe('cli: merge, version', () => {
  it('says which task merged from which branch into which base, and the new base commit', async () => {
    const repo = makeRepo();
    await ok(repo, ['init']);
    await ok(repo, ['worker', 'add', 'ada']);
    await ok(repo, ['task', 'add', 'Add a greeting', '--id', 'greet', '--manual']);
    await ok(repo, ['assign', 'ada', 'greet']);
    const started = await foremanJson<{ worktree: string }>(repo, ['start', 'ada']);
    writeFileSync(join(started.worktree, 'hello.txt'), 'hello\n');
    await ok(repo, ['submit', 'ada', '--summary', 'greeting']);
    await ok(repo, ['approve', 'ada']);
    const before = mainCommit(repo);
    const printed = await ok(repo, ['merge', 'ada']);
    const after = mainCommit(repo);
    assert.notEqual(after, before);
    assert.equal(
      printed,
      [
        'merged task "Add a greeting" (greet) from branch ada/greet into main',
        `main is now at ${after.slice(0, 12)} (was ${before.slice(0, 12)})`,
        'worker ada: IDLE',
        '',
      ].join('\n'),
    );
    assert.equal(readFileSync(join(repo, 'hello.txt'), 'utf8'), 'hello\n', 'the work is on main, checked out');
  });

  it('prints the package version for --version and -V', async () => {
    const repo = makeRepo();
    const { version } = JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as { version: string };
    assert.equal(await ok(repo, ['--version']), `foreman ${version}\n`);
    assert.equal(await ok(repo, ['-V']), `foreman ${version}\n`);
    assert.deepEqual(await foremanJson(repo, ['--version']), { version });
    assert.match((await ok(repo, ['help'])).toString(), /--version, -V/);
  });
});

describe('cli: wait', () => {
  it('waits for a worker to reach a state, reporting progress on stderr', async () => {
    const repo = makeRepo();
    await ok(repo, ['init']);
    await ok(repo, ['worker', 'add', 'ada']);
    await ok(repo, ['task', 'add', 'Work', '--id', 'w', '--manual']);
    await ok(repo, ['assign', 'ada', 'w']);
    await ok(repo, ['start', 'ada']);

    const child = spawn(process.execPath, [cliPath, 'wait', 'ada', '--state', 'in_review', '--timeout', '0'], {
      cwd: repo,
      env: baseEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    // Submit only once the wait has seen the worker WORKING, so it really waited.
    await new Promise<void>((resolve) =>
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        stderr += chunk;
        if (stderr.includes('\n')) resolve();
      }),
    );
    assert.match(stderr, /^foreman: waiting for IN_REVIEW: ada is WORKING on w \(/);
    await ok(repo, ['submit', 'ada', '--summary', 'done']);
    assert.equal(await exited, 0, stderr);
    assert.match(stdout, /^ada is IN_REVIEW on w \(OK waiting for review/);
    await ok(repo, ['approve', 'ada']);
  });

  it('answers at once when the worker is already there, and takes several states', async () => {
    const repo = makeRepo();
    await ok(repo, ['init']);
    await ok(repo, ['worker', 'add', 'ada']);
    const worker = await foremanJson<{ id: string; state: string }>(repo, ['wait', 'ada', '--state', 'working,IDLE']);
    assert.deepEqual({ id: worker.id, state: worker.state }, { id: 'ada', state: 'IDLE' });
  });

  it('refuses bad input, an unknown worker, a FAILED worker and a timeout, each with its exit code', async () => {
    const repo = makeRepo();
    await ok(repo, ['init']);
    await ok(repo, ['worker', 'add', 'ada']);
    const bad = await foreman(repo, ['wait', 'ada', '--state', 'reviewing']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /state: a state is one of idle, assigned, working, in_review/);
    assert.equal((await foreman(repo, ['wait', 'ada'])).code, 2);
    const noWorker = await foreman(repo, ['wait', '--state', 'working']);
    assert.equal(noWorker.code, 2);
    assert.match(noWorker.stderr, /worker: missing; name the worker/);
    assert.match((await foreman(repo, ['wait', 'ada', '--state', 'working', '--timeout', '1.5'])).stderr, /timeout: whole seconds/);
    const badTimeout = await foreman(repo, ['wait', 'ada', '--state', 'working', '--timeout', 'soon']);
    assert.equal(badTimeout.code, 2);
    assert.match(badTimeout.stderr, /timeout: expected a number of seconds/);
    assert.equal((await foreman(repo, ['wait', 'Bad_Id', '--state', 'working'])).code, 2);
    assert.equal((await foreman(repo, ['wait', 'bob', '--state', 'working'])).code, 4);

    const timedOut = await foreman(repo, ['wait', 'ada', '--state', 'in_review', '--timeout', '1', '--json']);
    assert.equal(timedOut.code, 3);
    assert.equal((JSON.parse(timedOut.stdout) as { error: { code: string } }).error.code, 'timedOut');
    assert.match(timedOut.stderr, /waiting for IN_REVIEW: ada is IDLE/);

    await ok(repo, ['task', 'add', 'Doomed', '--id', 'd', '--manual', '--max-attempts', '1']);
    await ok(repo, ['assign', 'ada', 'd']);
    await ok(repo, ['fail', 'ada', '--reason', 'broken build', '--final']);
    const failed = await foreman(repo, ['wait', 'ada', '--state', 'in_review']);
    assert.equal(failed.code, 3);
    assert.match(failed.stderr, /ada FAILED: broken build; .*foreman reset ada/);
  });
});
