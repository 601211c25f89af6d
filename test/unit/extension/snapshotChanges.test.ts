import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { StatusSnapshot } from '../../../src/engine/statusView';
import { SnapshotChanges } from '../../../src/extension/snapshotChanges';
import { makeStatus } from '../dashboard/fixtures';

const start = makeStatus({ workers: 4, tasks: 12 });
const working = start.workers.find((worker) => worker.state === 'WORKING')!;
const running = start.tasks.find((task) => task.status === 'running' && !task.parentId)!;

function withChanges(patch: {
  worker?: Partial<StatusSnapshot['workers'][number]>;
  task?: Partial<StatusSnapshot['tasks'][number]>;
}): StatusSnapshot {
  return {
    ...start,
    workers: start.workers.map((worker) => (worker.id === working.id ? { ...worker, ...patch.worker } : worker)),
    tasks: start.tasks.map((task) => (task.id === running.id ? { ...task, ...patch.task } : task)),
  };
}

test('the first snapshot is the baseline: what was already so is not announced', () => {
  assert.deepEqual(new SnapshotChanges().next(start), []);
});

test('a read-only window learns the states reached between two snapshots it read', () => {
  const changes = new SnapshotChanges();
  changes.next(start);
  assert.deepEqual(changes.next(start), [], 'nothing moved');
  assert.deepEqual(changes.next(withChanges({ worker: { state: 'IN_REVIEW' }, task: { status: 'failed' } })), [
    { kind: 'worker', id: working.id, to: 'IN_REVIEW' },
    { kind: 'task', id: running.id, to: 'failed' },
  ]);
  assert.deepEqual(changes.next(withChanges({ worker: { state: 'IN_REVIEW' }, task: { status: 'failed' } })), [], 'seen once');
});

test('the same state in a new attempt is a change, and so is a worker or task that appears', () => {
  const changes = new SnapshotChanges();
  changes.next(start);
  assert.deepEqual(changes.next(withChanges({ task: { attempt: running.attempt + 1 } })), [
    { kind: 'task', id: running.id, to: 'running' },
  ]);
  const added = { ...start, workers: [...start.workers, { ...working, id: 'newcomer' }] };
  const next = new SnapshotChanges();
  next.next(start);
  assert.deepEqual(next.next(added), [{ kind: 'worker', id: 'newcomer', to: 'WORKING' }]);
});
