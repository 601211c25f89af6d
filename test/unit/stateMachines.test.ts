import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TaskStatus, nextTaskStatus, taskStatuses, taskTriggers } from '../../src/core/taskMachine';
import { WorkerState, nextWorkerState, workerStates, workerTriggers } from '../../src/core/workerMachine';

/**
 * Every (state × trigger) pair of both machines, written out by hand from ARCHITECTURE §3 so the
 * table in the code is checked against an independent copy, not against itself.
 */
const legalWorker: Record<string, string> = {
  'IDLE assign': 'ASSIGNED',
  'ASSIGNED start': 'WORKING',
  'ASSIGNED setupFailed': 'FAILED',
  'ASSIGNED cancel': 'IDLE',
  'WORKING submit': 'IN_REVIEW',
  'WORKING workFailed': 'FAILED',
  'WORKING heartbeatTimeout': 'STALE',
  'WORKING limitReached': 'PAUSED',
  'WORKING cancel': 'IDLE',
  'IN_REVIEW approve': 'APPROVED',
  'IN_REVIEW requestChanges': 'WORKING',
  'IN_REVIEW reviewTimeout': 'STALE',
  'IN_REVIEW cancel': 'IDLE',
  'APPROVED merge': 'COMPLETED',
  'APPROVED mergeConflict': 'WORKING',
  'APPROVED checkFailed': 'WORKING',
  'APPROVED reviewComments': 'WORKING',
  'APPROVED pullRequestClosed': 'IN_REVIEW',
  'APPROVED cancel': 'IDLE',
  'COMPLETED recycle': 'IDLE',
  'STALE recover': 'WORKING',
  'STALE dead': 'FAILED',
  'STALE cancel': 'IDLE',
  'PAUSED resume': 'WORKING',
  'PAUSED cancel': 'IDLE',
  'FAILED reset': 'IDLE',
};

const legalTask: Record<string, string> = {
  'idle enqueue': 'queued',
  'idle run': 'running',
  'queued claim': 'running',
  'queued cancel': 'cancelled',
  'queued reset': 'idle',
  'running complete': 'done',
  'running fail': 'failed',
  'running cancel': 'cancelled',
  'done reset': 'idle',
  'failed reset': 'idle',
  'failed retry': 'queued',
  'cancelled reset': 'idle',
  'cancelled retry': 'queued',
};

describe('worker state machine', () => {
  assert.equal(workerStates.length, 9);
  for (const state of workerStates) {
    for (const trigger of workerTriggers) {
      const expected = legalWorker[`${state} ${trigger}`];
      it(`${state} --${trigger}--> ${expected ?? 'refused'}`, () => {
        const result = nextWorkerState(state, trigger);
        if (expected) {
          assert.deepEqual(result, { ok: true, value: expected });
        } else {
          assert.equal(result.ok, false);
          if (!result.ok) {
            assert.equal(result.kind, 'refused');
            assert.equal(result.code, 'illegalTransition');
            assert.match(result.message, new RegExp(`${state} cannot ${trigger}`));
            assert.deepEqual(result.details, { entity: 'worker', from: state, trigger });
          }
        }
      });
    }
  }

  it('has exactly the legal pairs listed', () => {
    const count = workerStates.flatMap((s) => workerTriggers.filter((t) => nextWorkerState(s, t).ok)).length;
    assert.equal(count, Object.keys(legalWorker).length);
  });

  it('refusals list the triggers that are allowed', () => {
    const result = nextWorkerState(WorkerState.Completed, 'approve');
    assert.ok(!result.ok && result.message.endsWith('allowed triggers are: recycle.'));
  });
});

describe('task state machine', () => {
  assert.equal(taskStatuses.length, 6);
  for (const status of taskStatuses) {
    for (const trigger of taskTriggers) {
      const expected = legalTask[`${status} ${trigger}`];
      it(`${status} --${trigger}--> ${expected ?? 'refused'}`, () => {
        const result = nextTaskStatus(status, trigger);
        if (expected) {
          assert.deepEqual(result, { ok: true, value: expected });
        } else {
          assert.ok(!result.ok && result.kind === 'refused' && result.code === 'illegalTransition');
          assert.deepEqual(result.details, { entity: 'task', from: status, trigger });
        }
      });
    }
  }

  it('has exactly the legal pairs listed', () => {
    const count = taskStatuses.flatMap((s) => taskTriggers.filter((t) => nextTaskStatus(s, t).ok)).length;
    assert.equal(count, Object.keys(legalTask).length);
  });

  it('done is only left by a reset', () => {
    assert.deepEqual(nextTaskStatus(TaskStatus.Done, 'reset'), { ok: true, value: 'idle' });
    assert.equal(nextTaskStatus(TaskStatus.Done, 'retry').ok, false);
  });
});
