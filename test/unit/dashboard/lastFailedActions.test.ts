/**
 * The dashboard offers Retry on a free worker next to its failed manual task, first, and nowhere
 * the tables do not allow it; every other button of the worker stays what its state offers.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { workerFits } from '../../../src/core/actions';
import { workerStates } from '../../../src/core/workerMachine';
import { actionsForWorker } from '../../../src/extension/dashboard/actionPolicy';

const failure = { taskId: 'broken', title: 'Broken', status: 'queued', reason: 'exit 1' };

test('Retry on a worker next to its failed manual task, where retryLastTask allows it', () => {
  for (const state of workerStates) {
    const taskId = state === 'IDLE' ? null : 'other';
    const plain = actionsForWorker({ state, taskId, needsInput: null });
    const marked = actionsForWorker({ state, taskId, needsInput: null, lastTaskFailed: failure });
    if (workerFits('retryLastTask', state) && !plain.includes('retry')) assert.deepEqual(marked, ['retry', ...plain], state);
    else assert.deepEqual(marked, plain, state);
  }
  assert.equal(actionsForWorker({ state: 'IDLE', taskId: null, needsInput: null, lastTaskFailed: failure })[0], 'retry');
  assert.ok(!actionsForWorker({ state: 'IDLE', taskId: null, needsInput: null }).includes('retry'));
});

test('no Merge on a worker whose task waits in an open pull request: the forge merges it', () => {
  const approved = { state: 'APPROVED', taskId: 'pr', needsInput: null } as const;
  assert.ok(actionsForWorker(approved).includes('merge'));
  const held = actionsForWorker(approved, true);
  assert.ok(!held.includes('merge'));
  assert.deepEqual(held, actionsForWorker(approved).filter((action) => action !== 'merge'));
});
