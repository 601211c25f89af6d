/**
 * Claude Code supervised as the seeds promise, with the CLI's default retries on: its own API
 * retries are shown as they happen and, going on past their bound, make the worker STALE with
 * their words; a model that never answers is STALE for silence; a budget stop and an
 * authentication failure fail the task for good at once, in words. The model is a scripted server
 * that answers with the errors (and `retry-after`) the real service sends.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eventsOf, makeRealCrew } from './realCrew';

interface LiveWorker {
  readonly id: string;
  readonly state: string;
  readonly liveness: string;
  readonly livenessReason: string;
  readonly lastError: string | null;
  readonly activity: { text: string } | null;
}
const ada = (status: unknown): LiveWorker => (status as { workers: LiveWorker[] }).workers.find((worker) => worker.id === 'ada')!;

test(
  "Claude's own API retries show as activity, then past their bound make the worker STALE with the retry's words",
  { timeout: 120_000 },
  async () => {
    // Eight server errors a second apart: Claude (max 10 retries) would go on for eight seconds.
    const { crew, model } = await makeRealCrew('claude', { settings: { agentRetryMs: 4000, agentSilenceMs: 60_000 } });
    model.play(Array.from({ length: 8 }, () => ({ fail: 500, retryAfterSeconds: 1 })));
    await crew.addTask('flaky', 'Flaky model', 'Do anything.');
    const server = await crew.serve();
    try {
      const retrying = await crew.waitFor('the retry shown', (status) => /^API retry \d+\/10: 500 server error/.test(ada(status).activity?.text ?? ''), 30_000, server);
      assert.equal(ada(retrying).state, 'WORKING');
      const stale = await crew.waitFor('ada STALE', (status) => ada(status).state === 'STALE', 30_000, server);
      assert.match(ada(stale).lastError ?? '', /^API retry \d+\/10: 500 server error, retrying for [4-9]s/);
      const retries = eventsOf(crew.root, 'flaky', 1).filter((event) => event['type'] === 'retry');
      assert.ok(retries.length >= 3, `retries were read: ${JSON.stringify(retries)}`);
      assert.equal(retries[0]!['status'], 500);
    } finally {
      await server.stop();
    }
  },
);

test('a model that never answers makes the worker STALE for silence, with that reason', { timeout: 120_000 }, async () => {
  const { crew, model } = await makeRealCrew('claude', { settings: { agentSilenceMs: 3000 } });
  model.play([{ hang: true }]);
  await crew.addTask('silent', 'Silent model', 'Do anything.');
  const server = await crew.serve();
  try {
    const started = await crew.waitFor('the agent started', (status) => /^started claude \(pid \d+\)$/.test(ada(status).activity?.text ?? ''), 30_000, server);
    assert.equal(ada(started).state, 'WORKING', 'the card says the agent runs, not "setting up the worktree"');
    const stale = await crew.waitFor('ada STALE', (status) => ada(status).state === 'STALE', 30_000, server);
    assert.match(ada(stale).lastError ?? '', /^no output from the agent for [3-9]s/);
  } finally {
    await server.stop();
  }
});

test('a budget stop fails the task for good at once, in words', { timeout: 120_000 }, async () => {
  const { crew, model } = await makeRealCrew('claude', { profile: { maxBudgetUsd: 0.0001 } });
  model.play([{ bash: 'echo one > one.txt' }, { bash: 'echo two > two.txt' }, { text: 'Done.' }]);
  await crew.addTask('costly', 'Costly', 'Write two files.');
  const server = await crew.serve();
  try {
    await crew.failedForGoodAtOnce('ada', 'costly', /^stopped at its budget after spending \$0\.\d+ \(the profile's maxBudgetUsd\)/, server);
  } finally {
    await server.stop();
  }
});

test('a usage limit pauses the worker, spends no attempt, holds back its profile, and resumes the same session', { timeout: 120_000 }, async () => {
  // A 429 whose retry-after Claude will not wait out: it ends its run on the limit.
  const { crew, model } = await makeRealCrew('claude', { settings: { agentLimitPauseMs: 8000 } });
  model.play([{ fail: 429, retryAfterSeconds: 3600 }, { bash: 'echo resumed > resumed.txt' }, { text: 'Resumed and wrote resumed.txt.' }]);
  await crew.ok(['worker', 'add', 'bea', '--agent', 'claude']);
  await crew.addTask('limited', 'Limited', 'Write resumed.txt.');
  const server = await crew.serve();
  try {
    const paused = await crew.waitFor('ada PAUSED', (status) => ada(status).state === 'PAUSED', 60_000, server);
    assert.match(ada(paused).livenessReason, /^paused: rate limited \(HTTP 429\) — resumes at \d\d:\d\d:\d\d \(in \d+s\)$/);
    assert.equal(crew.task(paused, 'limited').attempt, 1);
    // Another worker of the same profile would run into the same limit: it waits.
    await crew.addTask('other', 'Other', 'Anything.');
    const meanwhile = await crew.status();
    assert.equal(crew.worker(meanwhile, 'bea').state, 'IDLE');
    assert.equal(crew.task(meanwhile, 'other').status, 'queued');
    await crew.ok(['cancel', 'other']);

    const review = await crew.waitForWorker('ada', 'IN_REVIEW', server, 60_000);
    assert.equal(crew.task(review, 'limited').attempt, 1, 'the pause spent no attempt');
    assert.equal(crew.git(['show', 'ada/limited:resumed.txt']), 'resumed');
    const sessions = eventsOf(crew.root, 'limited', 1).filter((event) => event['type'] === 'session');
    assert.deepEqual(
      sessions.map((event) => event['resumed']),
      [false, true],
    );
    assert.equal(sessions[0]!['sessionId'], sessions[1]!['sessionId'], 'the same session continued');
    const transitions = (await crew.transitions()).filter((row) => row.entity_id === 'ada').map((row) => row.trigger);
    assert.ok(transitions.includes('limitReached') && transitions.includes('resume'), transitions.join(', '));
  } finally {
    await server.stop();
  }
});

test('a rate limit Claude keeps retrying past its bound is waited out paused, then the same session goes on', { timeout: 120_000 }, async () => {
  const { crew, model } = await makeRealCrew('claude', { settings: { agentRetryMs: 2500 } });
  const limited = { fail: 429, retryAfterSeconds: 1 } as const;
  model.play([limited, limited, limited, limited, limited, { bash: 'echo through > through.txt' }, { text: 'Got through.' }]);
  await crew.addTask('throttled', 'Throttled', 'Write through.txt.');
  const server = await crew.serve();
  try {
    const paused = await crew.waitFor('ada PAUSED', (status) => ada(status).state === 'PAUSED', 60_000, server);
    assert.match(ada(paused).livenessReason, /^paused: API retry \d+\/10: 429 rate limited, retrying for \d+s — resumes at /);
    const review = await crew.waitForWorker('ada', 'IN_REVIEW', server, 90_000);
    assert.equal(crew.task(review, 'throttled').attempt, 1, 'waiting out a rate limit spent no attempt');
    assert.equal(crew.git(['show', 'ada/throttled:through.txt']), 'through');
    const sessions = eventsOf(crew.root, 'throttled', 1).filter((event) => event['type'] === 'session');
    assert.ok(sessions.length >= 2 && sessions.every((event) => event['sessionId'] === sessions[0]!['sessionId']), JSON.stringify(sessions));
  } finally {
    await server.stop();
  }
});
