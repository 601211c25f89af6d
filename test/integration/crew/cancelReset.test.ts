/**
 * `foreman cancel` and `foreman reset` let go of a worker's task. Whatever its worktree holds
 * uncommitted (the agent's edits, untracked files) is saved to `refs/foreman/wip/<task>/<attempt>`
 * first, the main checkout is never touched, and the worker can take its next task afterwards.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { type CrewRepo, makeCrew, reviewUntil } from './crewHarness';

/** The file's text in a wip snapshot. */
function inWip(crew: CrewRepo, task: string, attempt: number, file: string): string | undefined {
  return crew.tryGit(['show', `refs/foreman/wip/${task}/${attempt}:${file}`]);
}

test(
  'cancel saves the untracked files of a working agent to a wip ref; the worker goes on to its next task',
  { timeout: 60_000 },
  async () => {
    const crew = await makeCrew({ workers: ['w1'] });
    await crew.addTask('long-job', 'Long job', 'write notes/agent.txt from the agent\nsleep 30000\ncommit never reached');
    const before = crew.checkout();
    const server = await crew.serve();
    try {
      await crew.waitForWorker('w1', 'WORKING', server);
      await crew.waitForLog('long-job', 1, /sleep 30000 ms/);
      const pid = crew.agentRecord('w1')?.pid;
      assert.ok(pid, 'the agent is recorded');
      // Something of the user's (or another tool's) in the worktree, untracked as well.
      mkdirSync(join(crew.worktreeOf('w1'), 'scratch'), { recursive: true });
      writeFileSync(join(crew.worktreeOf('w1'), 'scratch', 'user.txt'), 'typed by hand\n');

      await crew.ok(['cancel', 'w1']);
      assert.equal(inWip(crew, 'long-job', 1, 'notes/agent.txt'), 'from the agent');
      assert.equal(inWip(crew, 'long-job', 1, 'scratch/user.txt'), 'typed by hand');
      const status = await crew.status();
      assert.equal(crew.task(status, 'long-job').status, 'cancelled');
      assert.equal(crew.worker(status, 'w1').state, 'IDLE');
      assert.deepEqual(crew.checkout(), before, 'the main checkout is unchanged');
      assert.equal(crew.agentRecord('w1'), undefined, 'the agent is gone');

      // The worker is not stuck on the cancelled task's leftovers.
      await crew.addTask('next-job', 'Next job', 'write next.txt next\ncommit next job');
      await reviewUntil(crew, (s) => crew.task(s, 'next-job').status === 'done', { server, timeoutMs: 20_000 });
      assert.equal(crew.git(['show', 'main:next.txt']), 'next');
      assert.equal(crew.tryGit(['show', 'main:notes/agent.txt']), undefined, 'the cancelled work did not reach main');
    } finally {
      await server.stop();
    }
  },
);

test(
  'reset of a FAILED worker saves its untracked files to a wip ref; the worker goes on to its next task',
  { timeout: 60_000 },
  async () => {
    const crew = await makeCrew({ workers: ['w1'] });
    await crew.addTask('doomed', 'Doomed', 'write partial.txt half done\nfail on purpose', '--max-attempts', '1');
    const before = crew.checkout();
    const server = await crew.serve();
    try {
      const failed = await crew.waitForWorker('w1', 'FAILED', server);
      assert.equal(crew.task(failed, 'doomed').status, 'failed');
      // The failed attempt was saved when the agent exited non-zero.
      assert.equal(inWip(crew, 'doomed', 1, 'partial.txt'), 'half done');
      // Written after the failure: only the reset's snapshot can hold it.
      writeFileSync(join(crew.worktreeOf('w1'), 'after-failure.txt'), 'investigating\n');

      await crew.ok(['reset', 'w1']);
      assert.equal(inWip(crew, 'doomed', 1, 'after-failure.txt'), 'investigating');
      assert.equal(inWip(crew, 'doomed', 1, 'partial.txt'), 'half done');
      assert.equal(crew.worker(await crew.status(), 'w1').state, 'IDLE');
      assert.deepEqual(crew.checkout(), before, 'the main checkout is unchanged');

      await crew.addTask('next-job', 'Next job', 'write next.txt next\ncommit next job');
      await reviewUntil(crew, (s) => crew.task(s, 'next-job').status === 'done', { server, timeoutMs: 20_000 });
      assert.equal(crew.git(['show', 'main:next.txt']), 'next');
    } finally {
      await server.stop();
    }
  },
);
