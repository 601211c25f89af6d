/**
 * Codex, the real CLI, through Foreman: `exec --json` read as activity and token usage, the thread
 * resumed with `exec resume` on review notes, and a flag Codex no longer knows failing the task at
 * once with Codex's own words. The model is a scripted server.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { reviewUntil } from '../crew/crewHarness';
import { eventsOf, makeRealCrew, requestChangesRound } from './realCrew';

interface LiveStatus {
  readonly workers: Array<{ id: string; state: string; summary: string | null; activity: { text: string } | null }>;
  readonly tasks: Array<{
    id: string;
    status: string;
    attempt: number;
    lastError: string | null;
    usage: { inputTokens: number; outputTokens: number; costUsd: number };
  }>;
}

test(
  'a codex task: claim, real commands in the worktree, activity and tokens from its events, review, resume, merge',
  { timeout: 150_000 },
  async () => {
    const real = await makeRealCrew('codex');
    const { crew, model } = real;
    model.play([{ bash: 'sleep 1.5; echo hello > hello.txt' }, { text: 'Created hello.txt.' }]);
    await crew.addTask('hello', 'Say hello', 'Create hello.txt (unique-first-prompt-marker).');
    const server = await crew.serve();
    try {
      await crew.waitFor(
        'its command as activity',
        (status) => /^Bash: .*echo hello > hello\.txt/.test((status as unknown as LiveStatus).workers[0]!.activity?.text ?? ''),
        60_000,
        server,
      );
      const review = (await crew.waitForWorker('ada', 'IN_REVIEW', server, 60_000)) as unknown as LiveStatus;
      assert.equal(review.workers[0]!.summary, 'Created hello.txt.');
      const usage = review.tasks.find((task) => task.id === 'hello')!.usage;
      assert.ok(usage.inputTokens > 0 && usage.outputTokens > 0, JSON.stringify(usage));
      assert.equal(usage.costUsd, 0, 'Codex reports tokens, not money');

      const round = await requestChangesRound(real, server, {
        taskId: 'hello',
        note: 'Also create two.txt (unique-note-marker).',
        script: [{ bash: 'echo two > two.txt' }, { text: 'Also created two.txt.' }],
        file: 'two.txt',
      });
      const second = round.status as unknown as LiveStatus;
      const resumed = round.requests;
      assert.match(resumed[0] ?? '', /unique-first-prompt-marker[\s\S]*unique-note-marker/, 'exec resume sent the earlier conversation');
      assert.match(second.workers[0]!.summary ?? '', /Also created two\.txt\.[\s\S]*continued its session/);
      const sessions = eventsOf(crew.root, 'hello', 1).filter((event) => event['type'] === 'session');
      assert.deepEqual(
        sessions.map((event) => event['resumed']),
        [false, true],
      );
      assert.equal(sessions[0]!['sessionId'], sessions[1]!['sessionId']);

      await reviewUntil(crew, (status) => crew.task(status, 'hello').status === 'done', { server, timeoutMs: 30_000 });
      assert.equal(crew.git(['show', 'main:hello.txt']), 'hello');
      assert.equal(crew.git(['show', 'main:two.txt']), 'two');
    } finally {
      await server.stop();
    }
  },
);

test('a usage error (a flag codex does not know) and a 401 each fail the task at once with the reason', { timeout: 120_000 }, async () => {
  const { crew, model } = await makeRealCrew('codex', { profile: { args: ['--full-auto'] } });
  await crew.addTask('flag', 'Old flag', 'Do anything.');
  const server = await crew.serve();
  try {
    const failed = (await crew.waitFor(
      'the task failed',
      (status) => crew.task(status, 'flag').status === 'failed',
      60_000,
      server,
    )) as unknown as LiveStatus;
    const task = failed.tasks.find((candidate) => candidate.id === 'flag')!;
    assert.equal(task.attempt, 1, 'no retry burnt on a configuration problem');
    assert.match(task.lastError ?? '', /the agent CLI refused its arguments: error: unexpected argument '--full-auto' found/);
  } finally {
    await server.stop();
  }

  const locked = await makeRealCrew('codex');
  locked.model.failWith(401);
  await locked.crew.addTask('locked', 'Locked out', 'Do anything.');
  const lockedServer = await locked.crew.serve();
  try {
    const failed = (await locked.crew.waitFor(
      'the task failed',
      (status) => locked.crew.task(status, 'locked').status === 'failed',
      60_000,
      lockedServer,
    )) as unknown as LiveStatus;
    const task = failed.tasks.find((candidate) => candidate.id === 'locked')!;
    assert.equal(task.attempt, 1);
    assert.match(task.lastError ?? '', /authentication failed: .*401 Unauthorized/);
  } finally {
    await lockedServer.stop();
  }
  assert.equal(model.requests.filter((request) => request.mainLoop).length, 0, 'codex never reached the model with a bad flag');
});
