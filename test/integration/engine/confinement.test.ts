/**
 * Which confinement a run has (issue 27) travels with its session: the crew says it at launch (a
 * `usage` report with no tokens), the agent's own reports keep it, and `status` shows it on the
 * worker that holds the attempt — nowhere else.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type EngineHarness, openEngine } from '../../support/engineHarness';

let harness: EngineHarness;
before(async () => {
  harness = await openEngine();
  await harness.value('worker.add', { id: 'ada' });
  await harness.value('worker.add', { id: 'bob' });
  await harness.value('task.add', { title: 'Confined', id: 't1' });
  await harness.value('assign', { worker: 'ada', task: 't1' });
});
after(() => harness.close());

const worker = (id: string) => {
  const found = harness.query('status', {}).workers.find((candidate) => candidate.id === id);
  assert.ok(found, id);
  return found;
};

describe('confinement in status', () => {
  it('is null before a launch said, and on a worker without a task', () => {
    assert.equal(worker('ada').confinement, null);
    assert.equal(worker('bob').confinement, null);
  });

  it("is the launch's, kept when the agent's own reports say none, replaced by the next launch's", async () => {
    await harness.value('usage', { worker: 'ada', attempt: 1, kind: 'claude', confinement: 'sandbox' });
    assert.equal(worker('ada').confinement, 'sandbox');
    await harness.value('usage', { worker: 'ada', attempt: 1, kind: 'claude', sessionId: 'session-1', inputTokens: 10, run: true });
    const ada = worker('ada');
    assert.deepEqual(
      { confinement: ada.confinement, sessionId: ada.sessionId, input: ada.usage.inputTokens },
      {
        confinement: 'sandbox',
        sessionId: 'session-1',
        input: 10,
      },
    );
    await harness.value('usage', { worker: 'ada', attempt: 1, kind: 'claude', confinement: 'open' });
    assert.equal(worker('ada').confinement, 'open');
  });

  it('refuses a confinement it does not know', async () => {
    await assert.rejects(
      async () => harness.run('usage', { worker: 'ada', attempt: 1, kind: 'claude', confinement: 'somewhat' as never }),
      /confinement: Invalid option: expected one of "sandbox"\|"allowList"\|"open"\|"none"/,
    );
    assert.equal(worker('ada').confinement, 'open');
  });
});
