// The context keys the window sets from its sessions' state (src/extension/contextKeys.ts): what
// the Get Started walkthrough ticks its steps by, whoever set the workspace up.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { zeroUsage } from '../../../src/core/agentEvents';
import type { StatusSnapshot, TaskStatusView, WorkerStatus } from '../../../src/engine/statusView';
import { contextKeys } from '../../../src/extension/contextKeys';
import { groupName } from '../../../src/extension/tree/queueGrouping';

const session = (workers: Array<Partial<WorkerStatus>>, tasks: Array<Partial<TaskStatusView>>, ownerNote?: string) => ({
  ownerNote,
  snapshot: (): StatusSnapshot =>
    ({ baseBranch: 'main', workers, tasks, usage: zeroUsage, owners: [] }) as unknown as StatusSnapshot,
});

test('no folder with Foreman: nothing is set up', () => {
  assert.deepEqual(contextKeys([]), {
    'foreman.active': false,
    'foreman.noWorkers': true,
    'foreman.noTasks': true,
    'foreman.readOnly': false,
    'foreman.hasWorker': false,
    'foreman.hasTask': false,
    'foreman.hasReview': false,
  });
});

test('each first-run step from the state: initialised, a worker, a task, a review or a merge', () => {
  assert.equal(contextKeys([session([], [])])['foreman.active'], true);
  const working = contextKeys([session([{ id: 'ada', state: 'WORKING' }], [{ id: 't-1', status: 'running' }])]);
  assert.equal(working['foreman.hasWorker'], true);
  assert.equal(working['foreman.hasTask'], true);
  assert.equal(working['foreman.hasReview'], false);
  for (const state of ['IN_REVIEW', 'APPROVED', 'COMPLETED']) {
    assert.equal(contextKeys([session([{ id: 'ada', state }], [])])['foreman.hasReview'], true, state);
  }
  // Merged long ago: the worker is IDLE again, the task is Done.
  assert.equal(contextKeys([session([{ id: 'ada', state: 'IDLE' }], [{ id: 't-1', status: 'done' }])])['foreman.hasReview'], true);
});

test('a read-only folder among several makes the window read-only', () => {
  const keys = contextKeys([session([], []), session([], [], 'read-only: owned by another window (pid 7)')]);
  assert.equal(keys['foreman.readOnly'], true);
});

test('queue groups are named in task words: a task nobody queued is "To assign", not a worker\'s "Idle"', () => {
  assert.equal(groupName('idle'), 'To assign');
  assert.equal(groupName('running'), 'In progress');
  assert.equal(groupName('done'), 'Done');
});
