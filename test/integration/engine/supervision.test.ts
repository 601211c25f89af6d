/**
 * The engine's side of supervising real agents, on the clock the test owns: a supervisor's stall
 * report makes a WORKING worker STALE with its reason; a usage limit PAUSES a worker with its
 * attempt unspent, holds back the idle workers of the same profile, and resumes it at the reset;
 * a worker whose agent cannot run needs setup and hands its task back with the attempt unspent.
 * The real CLIs drive the same requests in test/integration/realAgents/claudeSupervision.test.ts.
 */
import assert from 'node:assert/strict';
import { after, beforeEach, describe, it } from 'node:test';
import { resumeNote } from '../../../src/engine/stateService';
import type { StatusSnapshot } from '../../../src/engine/statusView';
import { type EngineHarness, openEngine } from '../../support/engineHarness';

let harness: EngineHarness;
const harnesses: EngineHarness[] = [];
beforeEach(async () => {
  harness = await openEngine();
  harnesses.push(harness);
});
after(() => harnesses.forEach((h) => h.close()));

const status = (): StatusSnapshot => harness.query('status', {});
const worker = (id: string) => status().workers.find((w) => w.id === id)!;
const task = (id: string) => status().tasks.find((t) => t.id === id)!;
/** The waker re-arms its timers on the next turn of the event loop after a commit. */
const settle = () => new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
const advance = async (ms: number) => {
  await settle();
  harness.clock.advance(ms);
  await settle();
};

async function working(id: string, taskId: string): Promise<void> {
  await harness.value('worker.add', { id });
  await harness.value('task.add', { title: taskId, id: taskId });
  await harness.value('assign', { worker: id, task: taskId });
  await harness.value('start', { worker: id });
}

describe('engine: stalls', () => {
  it("moves a WORKING worker to STALE with the supervisor's reason, fenced by attempt, and nothing else", async () => {
    await working('w1', 't1');
    const late = await harness.run('stall', { worker: 'w1', attempt: 2, reason: 'no output from the agent for 5m00s' });
    assert.ok(!late.ok && late.code === 'staleAttempt');
    const stalled = await harness.value<{ moved: boolean; state: string }>('stall', {
      worker: 'w1',
      attempt: 1,
      reason: 'API retry 7/10: 500 server error, retrying for 2m00s',
    });
    assert.deepEqual(stalled, { worker: 'w1', state: 'STALE', moved: true });
    assert.equal(worker('w1').lastError, 'API retry 7/10: 500 server error, retrying for 2m00s');
    const again = await harness.value<{ moved: boolean }>('stall', { worker: 'w1', attempt: 1, reason: 'again' });
    assert.equal(again.moved, false, 'a worker no longer WORKING is left as it is');
  });
});

describe('engine: usage limits', () => {
  it('pauses with the attempt unspent, holds back the same profile, and resumes at the reset', async () => {
    await working('w1', 't1');
    await harness.value('worker.add', { id: 'w2' });
    harness.engine.startBackground();
    const until = harness.clock.now() + 60_000;
    await harness.value('pause', { worker: 'w1', attempt: 1, reason: 'usage limit reached (five hour)', until });
    assert.equal(worker('w1').state, 'PAUSED');
    assert.equal(worker('w1').pausedUntil, until);
    assert.match(worker('w1').livenessReason, /^paused: usage limit reached \(five hour\) — resumes at \d\d:\d\d:\d\d \(in 1m00s\)$/);
    assert.equal(task('t1').status, 'running');
    assert.equal(task('t1').attempt, 1);

    // w2 runs the same profile: it would hit the same limit, so the queue waits for the reset.
    await harness.value('task.add', { title: 'Next', id: 't2' });
    await settle();
    assert.equal(worker('w2').state, 'IDLE');
    assert.equal(task('t2').status, 'queued');

    await advance(60_010);
    assert.equal(worker('w1').state, 'WORKING', 'resumed at the reset');
    assert.equal(worker('w1').note, resumeNote, 'the agent is told why it continues');
    assert.equal(worker('w1').lastError, null);
    assert.equal(worker('w1').pausedUntil, undefined);
    assert.equal(task('t1').attempt, 1, 'the pause spent no attempt');
    await settle();
    assert.equal(worker('w2').state, 'ASSIGNED', 'the profile runs again once nobody is paused');
  });

  it('a paused worker can be cancelled, and a pause is refused for a worker not WORKING', async () => {
    await working('w1', 't1');
    await harness.value('pause', { worker: 'w1', attempt: 1, reason: 'rate limited (HTTP 429)', until: harness.clock.now() + 1000 });
    await harness.value('cancel', { target: 'w1' });
    assert.equal(worker('w1').state, 'IDLE');
    const refused = await harness.run('pause', { worker: 'w1', attempt: 1, reason: 'again', until: 0 });
    assert.ok(!refused.ok);
  });
});

describe('engine: needs setup', () => {
  it('keeps the worker FAILED with what to do and gives the task back with its attempt unspent', async () => {
    await working('w1', 't1');
    await harness.value('fail', { worker: 'w1', attempt: 1, reason: "authentication failed (HTTP 401): set ANTHROPIC_API_KEY in the profile's env", setup: true });
    assert.equal(worker('w1').state, 'FAILED');
    assert.match(worker('w1').livenessReason, /^needs setup: authentication failed/);
    assert.equal(task('t1').status, 'queued');
    assert.equal(task('t1').attempt, 0);
    assert.equal(await harness.value('claim', { worker: 'w1' }).catch(() => 'refused'), 'refused', 'a worker that needs setup claims nothing');
  });
});
