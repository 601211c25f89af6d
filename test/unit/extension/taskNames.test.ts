import assert from 'node:assert/strict';
import { test } from 'node:test';
import { english } from '../../../src/extension/localizer';
import { failedText as failedTextIn, taskName, taskNameWithId, taskTitles } from '../../../src/extension/taskNames';
import { heartbeatExpected, shownLiveness } from '../../../src/shared/livenessWords';
import { makeStatus } from '../dashboard/fixtures';

const failedText = (name: string, task: Parameters<typeof failedTextIn>[1]) => failedTextIn(name, task, english);
const status = makeStatus({ workers: 10, tasks: 40 });

test('a task is named by its title, with its id only where both are wanted', () => {
  const titles = taskTitles(status);
  const busy = status.workers.find((worker) => worker.taskId)!;
  const title = status.tasks.find((task) => task.id === busy.taskId)!.title;
  assert.equal(taskName(titles, busy.taskId!), title);
  assert.equal(taskNameWithId(titles, busy.taskId!), `${title} (${busy.taskId})`);
});

test('a task the snapshot does not hold, or one with a blank title, is named by its id', () => {
  const titles = taskTitles({ tasks: [{ ...status.tasks[0]!, id: 'blank', title: '  ' }] });
  assert.equal(taskName(titles, 'blank'), 'blank');
  assert.equal(taskName(titles, 'not-loaded-yet'), 'not-loaded-yet');
  assert.equal(taskNameWithId(titles, 'not-loaded-yet'), 'not-loaded-yet');
});

test('liveness words are shown only while an agent should run; a failed worker does not say DEAD', () => {
  assert.equal(shownLiveness({ state: 'WORKING', liveness: 'WARN' }), 'WARN');
  assert.equal(shownLiveness({ state: 'STALE', liveness: 'DEAD' }), 'DEAD');
  assert.equal(shownLiveness({ state: 'ASSIGNED', liveness: 'STALE' }), 'STALE');
  assert.equal(shownLiveness({ state: 'WORKING', liveness: 'OK' }), undefined);
  // A launch failure leaves the worker FAILED with the verdict DEAD: its state and reason say it in words.
  assert.equal(shownLiveness({ state: 'FAILED', liveness: 'DEAD' }), undefined);
  // In review the one verdict is the monitor's "review overdue" alert; approved or idle, none.
  assert.equal(shownLiveness({ state: 'IN_REVIEW', liveness: 'WARN' }), 'WARN');
  assert.equal(shownLiveness({ state: 'IN_REVIEW', liveness: 'OK' }), undefined);
  assert.equal(shownLiveness({ state: 'APPROVED', liveness: 'WARN' }), undefined);
  assert.deepEqual(['IDLE', 'ASSIGNED', 'WORKING', 'IN_REVIEW', 'APPROVED', 'COMPLETED', 'STALE', 'FAILED'].filter(heartbeatExpected), [
    'ASSIGNED',
    'WORKING',
    'STALE',
  ]);
});

test('a task that failed for good says how many attempts it had and why, in one sentence', () => {
  assert.equal(
    failedText('Add a greeting', { attempt: 1, lastError: 'exit 2' }),
    'Foreman: "Add a greeting" failed after 1 attempt: exit 2.',
  );
  assert.equal(failedText('Add a greeting', { attempt: 3, lastError: null }), 'Foreman: "Add a greeting" failed after 3 attempts.');
  // A reason that is a sentence of its own gets no second full stop.
  assert.equal(
    failedText('hello', { attempt: 1, lastError: "setup failed: '/w/ada' already exists; choose another worktree root." }),
    'Foreman: "hello" failed after 1 attempt: setup failed: \'/w/ada\' already exists; choose another worktree root.',
  );
  // A chain's parent is never attempted itself: no "after 0 attempts".
  assert.equal(
    failedText('Greeting chain', { attempt: 0, lastError: 'chain stopped: "Add a greeting module" (greeting-feature-1) failed' }),
    'Foreman: "Greeting chain" failed: chain stopped: "Add a greeting module" (greeting-feature-1) failed.',
  );
});
