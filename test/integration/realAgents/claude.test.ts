/**
 * Claude Code, the real CLI, through Foreman: stream-json read as events, hooks reporting to the
 * `foreman` CLI, the permission gate asking a person, sessions resumed on review notes, and
 * honest outcomes (authentication failure, no changes). The model is a scripted server.
 */
import assert from 'node:assert/strict';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { reviewUntil } from '../crew/crewHarness';
import { eventsOf, makeRealCrew, requestChangesRound } from './realCrew';

interface LiveWorker {
  readonly id: string;
  readonly state: string;
  readonly liveness: string;
  readonly livenessReason: string;
  readonly summary: string | null;
  readonly lastError: string | null;
  readonly activity: { text: string } | null;
  readonly needsInput: { message: string } | null;
  readonly usage: { inputTokens: number; outputTokens: number; costUsd: number };
}
interface LiveStatus {
  readonly workers: LiveWorker[];
  readonly tasks: Array<{ id: string; status: string; attempt: number; lastError: string | null; usage: LiveWorker['usage'] }>;
}

test(
  'a claude task: real tool calls in the worktree, hook heartbeats with activity, cost, review, merge',
  { timeout: 120_000 },
  async () => {
    const { crew, model } = await makeRealCrew('claude');
    model.play([{ bash: 'sleep 1.5 && echo hello > hello.txt' }, { text: 'Added hello.txt with a greeting.' }]);
    await crew.addTask('hello', 'Say hello', 'Create hello.txt containing hello.');
    const server = await crew.serve();
    try {
      const seen = await crew.waitFor(
        'the hook reports the tool call as activity',
        (status) => {
          const ada = (status as unknown as LiveStatus).workers[0]!;
          return ada.activity?.text === 'Bash: sleep 1.5 && echo hello > hello.txt';
        },
        60_000,
        server,
      );
      assert.equal((seen as unknown as LiveStatus).workers[0]!.state, 'WORKING');
      const review = (await crew.waitForWorker('ada', 'IN_REVIEW', server, 60_000)) as unknown as LiveStatus;
      const ada = review.workers[0]!;
      assert.equal(ada.summary, 'Added hello.txt with a greeting.', "the review summary is the agent's own last message");
      const task = review.tasks.find((candidate) => candidate.id === 'hello')!;
      assert.ok(task.usage.inputTokens > 0 && task.usage.outputTokens > 0 && task.usage.costUsd > 0, JSON.stringify(task.usage));
      assert.deepEqual(ada.usage, task.usage);
      const events = eventsOf(crew.root, 'hello', 1);
      assert.ok(
        events.some(
          (event) => event['type'] === 'tool' && event['name'] === 'Bash' && event['detail'] === 'sleep 1.5 && echo hello > hello.txt',
        ),
      );
      const settingsFile = join(crew.root, '.foreman', 'logs', 'hello', 'attempt-1.claude-settings.json');
      assert.ok(existsSync(settingsFile), 'the settings Foreman generated live in .foreman, not in .claude');
      assert.ok(!existsSync(join(crew.worktreeOf('ada'), '.claude')));
      const transitions = await crew.transitions();
      assert.ok(transitions.some((row) => row.entity_id === 'ada' && row.trigger === 'submit' && row.actor === 'crew'));

      await reviewUntil(crew, (status) => crew.task(status, 'hello').status === 'done', { server, timeoutMs: 30_000 });
      assert.equal(crew.git(['show', 'main:hello.txt']), 'hello');
    } finally {
      await server.stop();
    }
  },
);

test('a tool call outside the allow-list waits for a person: needs-input, never STALE, then allowed', { timeout: 120_000 }, async () => {
  const { crew, model } = await makeRealCrew('claude', { profile: { allowedTools: ['Read', 'Edit', 'Write'] } });
  model.play([{ bash: "node -e \"require('fs').writeFileSync('made.txt', 'by node')\"" }, { text: 'Made made.txt.' }]);
  await crew.addTask('gate', 'Make a file', 'Make made.txt with node.');
  const server = await crew.serve();
  try {
    const waiting = (await crew.waitFor(
      'ada waiting for a person',
      (status) => (status as unknown as LiveStatus).workers[0]!.needsInput !== null,
      60_000,
      server,
    )) as unknown as LiveStatus;
    assert.match(waiting.workers[0]!.needsInput!.message, /^permission to use Bash: node -e/);
    // Longer than staleMs (6 s): a wait for a person is not silence.
    const waitedFrom = Date.now();
    while (Date.now() - waitedFrom < 7_500) {
      const ada = ((await crew.status()) as unknown as LiveStatus).workers[0]!;
      assert.equal(ada.state, 'WORKING', `still working while it waits: ${JSON.stringify(ada)}`);
      assert.match(ada.livenessReason, /^waiting for you: permission to use Bash/);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    assert.ok(!existsSync(join(crew.worktreeOf('ada'), 'made.txt')), 'nothing ran before the answer');
    await crew.ok(['answer', 'ada', 'allow']);
    const review = (await crew.waitForWorker('ada', 'IN_REVIEW', server, 60_000)) as unknown as LiveStatus;
    assert.equal(review.workers[0]!.needsInput, null);
    assert.equal(crew.git(['show', 'ada/gate:made.txt']), 'by node');
    const again = await crew.foreman(['answer', 'ada', 'deny']);
    assert.equal(again.code, 3, 'nothing waits any more');
  } finally {
    await server.stop();
  }
});

test('Request Changes resumes the same Claude session: the model sees the earlier conversation', { timeout: 120_000 }, async () => {
  const real = await makeRealCrew('claude');
  const { crew, model } = real;
  model.play([{ bash: 'echo one > one.txt' }, { text: 'Wrote one.txt.' }]);
  await crew.addTask('twice', 'Two rounds', 'Write one.txt (unique-first-prompt-marker).');
  const server = await crew.serve();
  try {
    await crew.waitForWorker('ada', 'IN_REVIEW', server, 60_000);
    const round = await requestChangesRound(real, server, {
      taskId: 'twice',
      note: 'Please also write two.txt (unique-note-marker).',
      script: [{ bash: 'echo two > two.txt' }, { text: 'Also wrote two.txt.' }],
      file: 'two.txt',
    });
    const review = round.status as unknown as LiveStatus;
    const resumed = round.requests;
    assert.ok(resumed.length > 0);
    assert.match(resumed[0]!, /unique-first-prompt-marker/, 'the resumed run sent the first conversation again');
    assert.match(resumed[0]!, /unique-note-marker/);
    assert.match(review.workers[0]!.summary ?? '', /Also wrote two\.txt\.[\s\S]*continued its session/);
    const sessions = eventsOf(crew.root, 'twice', 1).filter((event) => event['type'] === 'session');
    assert.equal(sessions.length, 2, JSON.stringify(sessions));
    assert.equal(sessions[0]!['sessionId'], sessions[1]!['sessionId'], 'one session id for both runs');
    assert.deepEqual(
      sessions.map((event) => event['resumed']),
      [false, true],
    );
    // Each run's usage is counted once: the second run does not read the first run's output again.
    const usages = eventsOf(crew.root, 'twice', 1).filter((event) => event['type'] === 'usage');
    assert.equal(usages.length, 2);
    const inputTokens = usages.reduce((sum, event) => sum + (event['usage'] as { inputTokens: number }).inputTokens, 0);
    assert.equal(review.tasks.find((task) => task.id === 'twice')!.usage.inputTokens, inputTokens);
  } finally {
    await server.stop();
  }
});

test('a follow-up whose session is gone starts afresh with the whole prompt and the note, and says so', { timeout: 120_000 }, async () => {
  const real = await makeRealCrew('claude');
  const { crew, model, home } = real;
  model.play([{ bash: 'echo one > one.txt' }, { text: 'Wrote one.txt.' }]);
  await crew.addTask('lost', 'Lost session', 'Write one.txt (unique-first-prompt-marker).');
  const server = await crew.serve();
  try {
    await crew.waitForWorker('ada', 'IN_REVIEW', server, 60_000);
    rmSync(join(home, '.claude', 'projects'), { recursive: true, force: true });
    const round = await requestChangesRound(real, server, {
      taskId: 'lost',
      note: 'Also write two.txt (unique-note-marker).',
      script: [{ bash: 'echo two > two.txt' }, { text: 'Wrote two.txt.' }],
      file: 'two.txt',
    });
    const review = round.status as unknown as LiveStatus;
    const fresh = round.requests;
    assert.match(fresh[0] ?? '', /Lost session[\s\S]*unique-first-prompt-marker[\s\S]*unique-note-marker/, 'the whole task and the note');
    assert.match(review.workers[0]!.summary ?? '', /a fresh start \(its earlier session was gone\)/);
    const sessions = eventsOf(crew.root, 'lost', 1).filter((event) => event['type'] === 'session');
    assert.deepEqual(
      sessions.map((event) => event['resumed']),
      [false, false],
    );
    assert.notEqual(sessions[0]!['sessionId'], sessions[1]!['sessionId']);
  } finally {
    await server.stop();
  }
});

test('an authentication failure: the worker needs setup at once, in words, and the task keeps its attempts', { timeout: 120_000 }, async () => {
  const { crew, model } = await makeRealCrew('claude');
  model.failWith(401);
  await crew.addTask('locked', 'Locked out', 'Do anything.');
  const server = await crew.serve();
  try {
    const failed = (await crew.waitFor('ada needs setup', (status) => crew.worker(status, 'ada').state === 'FAILED', 60_000, server)) as unknown as LiveStatus;
    // Read from the stream's structured field at Claude's first retry: its ten retries cannot fix a key.
    assert.match(failed.workers[0]!.lastError ?? '', /^needs setup: authentication failed \(HTTP 401\): set ANTHROPIC_API_KEY in the profile's env/);
    assert.match(failed.workers[0]!.livenessReason, /^needs setup: /);
    const task = failed.tasks.find((candidate) => candidate.id === 'locked')!;
    assert.equal(task.status, 'queued', 'the task waits for a worker that can run it');
    assert.equal(task.attempt, 0, 'no attempt spent on a worker that could not start');

    // Fixed (the key works again) and reset: the same task runs on its first attempt.
    model.failWith(undefined);
    model.play([{ bash: 'echo in > in.txt' }, { text: 'Got in.' }]);
    await crew.ok(['reset', 'ada']);
    const review = await crew.waitForWorker('ada', 'IN_REVIEW', server, 60_000);
    assert.equal(crew.task(review, 'locked').attempt, 1);
    await crew.ok(['cancel', 'locked']);
    await crew.waitForWorker('ada', 'IDLE', server, 30_000);

    model.play([{ text: 'Nothing needed changing.' }]);
    await crew.addTask('empty', 'Nothing to do', 'Look around.');
    const empty = (await crew.waitFor(
      'the empty task failed',
      (status) => crew.task(status, 'empty').status === 'failed',
      60_000,
      server,
    )) as unknown as LiveStatus;
    const emptyTask = empty.tasks.find((candidate) => candidate.id === 'empty')!;
    assert.equal(emptyTask.lastError, 'finished without changes: Nothing needed changing.');
    assert.equal(emptyTask.attempt, 1);
  } finally {
    await server.stop();
  }
});
