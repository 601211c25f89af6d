import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { WorkerStatus } from '../../../src/engine/statusView';
import { english } from '../../../src/extension/localizer';
import { WaitingWorkers, waitEnded as waitEndedIn } from '../../../src/extension/waitingWorkers';

const waitEnded = (...args: [Parameters<typeof waitEndedIn>[0], Parameters<typeof waitEndedIn>[1]]) => waitEndedIn(...args, english);
import { makeStatus } from '../dashboard/fixtures';

const base = makeStatus({ workers: 3, tasks: 10 }).workers.find((worker) => worker.state === 'WORKING')!;
const waiting = (patch: Partial<WorkerStatus>): WorkerStatus => ({
  ...base,
  needsInput: { message: 'Allow Bash: git push?', at: 1 },
  ...patch,
});

test('a wait is announced once per worker, attempt and message', () => {
  const tracker = new WaitingWorkers();
  const first = waiting({});
  assert.deepEqual(tracker.newlyWaiting([first, { ...base, id: 'quiet' }]), [first]);
  assert.deepEqual(tracker.newlyWaiting([first]), [], 'the same wait seen again');
  assert.deepEqual(
    tracker.newlyWaiting([{ ...first, needsInput: { message: 'Allow Bash: git push?', at: 99 } }]),
    [],
    'a later time is the same wait',
  );
  const another = waiting({ needsInput: { message: 'Allow Write: .env?', at: 2 } });
  assert.deepEqual(tracker.newlyWaiting([another]), [another], 'a new question');
  const retried = waiting({ attempt: base.attempt + 1 });
  assert.deepEqual(tracker.newlyWaiting([retried]), [retried], 'the same question in the next attempt');
  const otherWorker = waiting({ id: 'someone-else' });
  assert.deepEqual(tracker.newlyWaiting([otherWorker]), [otherWorker]);
});

test('workers that do not wait are never announced', () => {
  const tracker = new WaitingWorkers();
  assert.deepEqual(tracker.newlyWaiting(makeStatus({ workers: 20, tasks: 40 }).workers), []);
});

test('an answer fits only the very wait the person saw', () => {
  const asked = waiting({});
  assert.equal(waitEnded(asked, asked), undefined, 'still the same question');
  assert.match(waitEnded(asked, undefined) ?? '', /is gone/);
  assert.match(waitEnded(asked, { ...asked, needsInput: null }) ?? '', /not waiting for an answer any more \(it is WORKING\)/);
  assert.match(
    waitEnded(asked, { ...asked, needsInput: { message: 'Allow Write: .env?', at: 2 } }) ?? '',
    /now asks something else: Allow Write: \.env\?/,
  );
  // The same words asked again later are a new question: the first answer was already given.
  assert.ok(waitEnded(asked, { ...asked, needsInput: { message: 'Allow Bash: git push?', at: 5 } }));
  // A row that did not show the question (a palette pick) accepts whatever the worker asks now.
  assert.equal(waitEnded({ id: asked.id, needsInput: null }, asked), undefined);
});
