/**
 * Codex, the real CLI, through Foreman: `exec --json` read as activity and token usage (each
 * follow-up counted once, prompt-cache tokens apart, priced by model), the thread resumed with
 * `exec resume` on review notes, and a flag Codex no longer knows failing the task at
 * once with Codex's own words. The model is a scripted server.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { codexDefaultModel, costOf, priceOf } from '../../../src/core/modelPrices';
import { reviewUntil } from '../crew/crewHarness';
import { eventsOf, makeRealCrew, requestChangesRound } from './realCrew';

interface LiveStatus {
  readonly workers: Array<{ id: string; state: string; summary: string | null; activity: { text: string } | null; confinement: string | null }>;
  readonly tasks: Array<{
    id: string;
    status: string;
    attempt: number;
    lastError: string | null;
    usage: { inputTokens: number; outputTokens: number; cacheReadTokens: number; cacheWriteTokens: number; costUsd: number };
  }>;
}

/** Each answer's usage as the server sends it; `cached` is part of `input`, as OpenAI counts it. */
const firstRound = [
  { bash: 'sleep 1.5; echo hello > hello.txt', usage: { input: 1000, output: 50 } },
  { text: 'Created hello.txt.', usage: { input: 1200, output: 30, cached: 800 } },
] as const;
const secondRound = [
  { bash: 'echo two > two.txt', usage: { input: 2000, output: 60, cached: 1500 } },
  { text: 'Also created two.txt.', usage: { input: 2100, output: 40, cached: 1900 } },
] as const;

/** What Foreman should count for these answers: fresh input, cache reads and output apart, priced. */
function expectedUsage(steps: ReadonlyArray<{ usage: { input: number; output: number; cached?: number } }>) {
  const tokens = { inputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 0 };
  for (const { usage } of steps) {
    tokens.inputTokens += usage.input - (usage.cached ?? 0);
    tokens.cacheReadTokens += usage.cached ?? 0;
    tokens.outputTokens += usage.output;
  }
  // Codex 0.169 uses gpt-6.1-sol when nothing names a model (the test's config.toml names none).
  const price = priceOf(codexDefaultModel)!;
  return { ...tokens, costUsd: costOf(tokens, price) };
}

function assertUsage(actual: LiveStatus['tasks'][number]['usage'], expected: ReturnType<typeof expectedUsage>, what: string): void {
  const { costUsd, ...tokens } = actual;
  const { costUsd: expectedCost, ...expectedTokens } = expected;
  assert.deepEqual(tokens, expectedTokens, what);
  assert.ok(expectedCost > 0 && Math.abs(costUsd - expectedCost) < 1e-9, `${what}: cost ${costUsd}, expected ${expectedCost}`);
}

test(
  'a codex task: claim, real commands in the worktree, activity and tokens from its events, review, resume counted once, merge',
  { timeout: 150_000 },
  async () => {
    const real = await makeRealCrew('codex');
    const { crew, model } = real;
    model.play(firstRound);
    await crew.addTask('hello', 'Say hello', 'Create hello.txt (unique-first-prompt-marker).');
    const server = await crew.serve();
    try {
      await crew.waitFor(
        'its command as activity, out of its shell wrapper',
        (status) => (status as unknown as LiveStatus).workers[0]!.activity?.text === 'Bash: sleep 1.5; echo hello > hello.txt',
        60_000,
        server,
      );
      const review = (await crew.waitForWorker('ada', 'IN_REVIEW', server, 60_000)) as unknown as LiveStatus;
      assert.equal(review.workers[0]!.summary, 'Created hello.txt.');
      assert.equal(review.workers[0]!.confinement, 'sandbox', "Codex's workspace-write sandbox, on the card");
      assertUsage(review.tasks.find((task) => task.id === 'hello')!.usage, expectedUsage(firstRound), 'the first run');

      const round = await requestChangesRound(real, server, {
        taskId: 'hello',
        note: 'Also create two.txt (unique-note-marker).',
        script: secondRound,
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
      // Codex's `turn.completed` after the resume carries the thread's total; Foreman adds only what is new.
      assert.equal(model.requests.filter((request) => request.api === 'openai').length, 4, 'the server answered four requests, no more');
      assertUsage(
        second.tasks.find((task) => task.id === 'hello')!.usage,
        expectedUsage([...firstRound, ...secondRound]),
        'both runs, each counted once',
      );

      await reviewUntil(crew, (status) => crew.task(status, 'hello').status === 'done', { server, timeoutMs: 30_000 });
      assert.equal(crew.git(['show', 'main:hello.txt']), 'hello');
      assert.equal(crew.git(['show', 'main:two.txt']), 'two');
    } finally {
      await server.stop();
    }
  },
);

test('a flag codex does not know fails the task at once; a 401 makes the worker need setup, the task keeping its attempts', { timeout: 120_000 }, async () => {
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
      'ada needs setup',
      (status) => locked.crew.worker(status, 'ada').state === 'FAILED',
      60_000,
      lockedServer,
    )) as unknown as LiveStatus;
    const task = failed.tasks.find((candidate) => candidate.id === 'locked')!;
    assert.equal(task.status, 'queued');
    assert.equal(task.attempt, 0, 'no attempt spent on a worker that could not start');
    assert.match(locked.crew.worker(failed as never, 'ada').lastError ?? '', /^needs setup: authentication failed: .*401 Unauthorized/);
  } finally {
    await lockedServer.stop();
  }
  assert.equal(model.requests.filter((request) => request.mainLoop).length, 0, 'codex never reached the model with a bad flag');
});
