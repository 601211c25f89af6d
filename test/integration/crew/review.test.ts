/**
 * Review outcomes with real agents: "changes requested" relaunches the agent on the same branch
 * with the note in its prompt, and the merge and squash strategies land the work on main with
 * Foreman's trailers.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { groupAlive, makeCrew, reviewUntil, sandboxPath } from './crewHarness';

test('request-changes relaunches the agent on the same branch with the note; both rounds reach main', { timeout: 60_000 }, async () => {
  const crew = await makeCrew({ workers: ['w1'] });
  await crew.ok(['task', 'add', 'Greeting', '--id', 'greet', '--prompt', 'write hello.txt hello\ncommit first draft']);
  const server = await crew.serve();
  try {
    await crew.waitForWorker('w1', 'IN_REVIEW', server);
    const branchBefore = crew.git(['rev-parse', 'w1/greet']);
    await crew.ok(['request-changes', 'w1', '--note', 'write bye.txt bye\ncommit address review']);
    const reviewed = await crew.waitFor(
      'a second round in review',
      (status) => crew.worker(status, 'w1').state === 'IN_REVIEW' && crew.tryGit(['show', 'w1/greet:bye.txt']) !== undefined,
      20_000,
      server,
    );
    assert.equal(crew.worker(reviewed, 'w1').branch, 'w1/greet', 'the same branch');
    assert.equal(crew.git(['merge-base', '--is-ancestor', branchBefore, 'w1/greet']), '', 'the first round is kept');
    // The relaunch saw the note: its log names the directive it came from.
    const log = crew.attemptLog('greet', crew.worker(reviewed, 'w1').attempt);
    assert.match(log, /skipping 2 directive\(s\) already done/);
    assert.match(log, /write bye\.txt/);

    await reviewUntil(crew, (status) => crew.task(status, 'greet').status === 'done', { server, timeoutMs: 20_000 });
    assert.equal(crew.git(['show', 'main:hello.txt']), 'hello');
    assert.equal(crew.git(['show', 'main:bye.txt']), 'bye');
    assert.deepEqual(crew.git(['log', '--format=%s', 'main']).split('\n'), ['address review', 'first draft', 'initial']);
  } finally {
    await server.stop();
  }
});

for (const strategy of ['merge', 'squash'] as const) {
  test(
    `mergeStrategy ${strategy}: the task lands on main as one ${strategy} commit with Foreman's trailers`,
    { timeout: 60_000 },
    async () => {
      const crew = await makeCrew({ workers: ['w1'], settings: { mergeStrategy: strategy } });
      await crew.ok([
        'task',
        'add',
        'Two steps',
        '--id',
        'two',
        '--prompt',
        'write a.txt one\ncommit step one\nwrite b.txt two\ncommit step two',
      ]);
      const server = await crew.serve();
      try {
        await reviewUntil(crew, (status) => crew.task(status, 'two').status === 'done', { server, timeoutMs: 20_000 });
      } finally {
        await server.stop();
      }
      assert.equal(crew.git(['show', 'main:a.txt']), 'one');
      assert.equal(crew.git(['show', 'main:b.txt']), 'two');
      const parents = crew.git(['log', '-1', '--format=%P', 'main']).split(' ');
      assert.equal(parents.length, strategy === 'merge' ? 2 : 1);
      const firstParentSubjects = crew.git(['log', '--first-parent', '--format=%s', 'main']).split('\n');
      assert.equal(firstParentSubjects.length, 2, `one commit on top of the initial one: ${firstParentSubjects.join(' | ')}`);
      const trailers = crew.git(['log', '-1', '--format=%(trailers:only,unfold)', 'main']);
      assert.match(trailers, /^Foreman-Task: two$/m);
      assert.match(trailers, /^Foreman-Worker: w1$/m);
      assert.match(trailers, /^Foreman-Attempt: 1$/m);
    },
  );
}

test(
  'an agent that submits by itself and keeps running is stopped before the merge; what it wrote after submitting lands too',
  { timeout: 60_000 },
  async () => {
    const script = sandboxPath('lingering-agent.js');
    writeFileSync(
      script,
      [
        "const { execFileSync } = require('node:child_process');",
        "const fs = require('node:fs');",
        "fs.writeFileSync('report.md', 'done\\n');",
        "execFileSync('foreman', ['submit', '--summary', 'submitted by the agent'], { stdio: 'inherit' });",
        "fs.writeFileSync('late.txt', 'written after submit\\n');",
        'setInterval(() => {}, 1000);',
      ].join('\n'),
    );
    const crew = await makeCrew({ settings: { agents: { lingering: { command: process.execPath, args: [script] } } } });
    await crew.ok(['worker', 'add', 'w1', '--agent', 'lingering']);
    await crew.addTask('report', 'Report', 'Write the report');
    const server = await crew.serve();
    try {
      const review = await crew.waitForWorker('w1', 'IN_REVIEW', server);
      assert.equal(crew.worker(review, 'w1').state, 'IN_REVIEW');
      const pid = crew.agentRecord('w1')?.pid;
      assert.ok(pid && groupAlive(pid), 'the agent still runs after submitting');
      await crew.waitFor('the late file', () => existsSync(join(crew.worktreeOf('w1'), 'late.txt')), 10_000, server);
      await crew.ok(['approve', 'w1']);
      await crew.ok(['merge', 'w1']);
      assert.equal(groupAlive(pid), false, 'the agent was stopped for the merge');
      assert.equal(crew.git(['show', 'main:report.md']), 'done');
      assert.equal(crew.git(['show', 'main:late.txt']), 'written after submit');
      // What it wrote after submitting is committed at the merge titled by the task, with its summary.
      assert.match(crew.git(['log', '-1', '--format=%s%n%n%b', 'main']), /^Report\n\nsubmitted by the agent\n\nForeman-Task: report\n/);
      assert.equal(crew.task(await crew.status(), 'report').status, 'done');
    } finally {
      await server.stop();
    }
  },
);
