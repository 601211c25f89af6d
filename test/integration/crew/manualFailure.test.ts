/**
 * A failed `--manual` task never runs again by itself (the queue does not hand manual tasks out),
 * so the free worker next to it says why and offers Retry (issue 27, finding 11): its status names
 * the task and the agent's own last words, the dashboard and the tree offer Retry on it, and Retry
 * (an assign of that task to it) runs it again. Once the worker has run another task, its old
 * failure is not its "last task" any more.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { actionsForWorker } from '../../../src/extension/dashboard/actionPolicy';
import { workerContextValue } from '../../../src/extension/tree/workerContextValue';
import { type Status, type WorkerStatus, makeCrew } from './crewHarness';

function offersRetry(worker: WorkerStatus): void {
  const shaped = { ...worker, needsInput: null };
  assert.ok(actionsForWorker(shaped).includes('retry'), `the dashboard offers Retry on ${worker.id}`);
  assert.equal(workerContextValue(shaped, false), 'worker.IDLE.lastFailed', 'the tree row carries the marker its Retry menu matches');
}

test('an IDLE worker next to its failed manual task says why and offers Retry; Retry runs it again', { timeout: 60_000 }, async () => {
  const crew = await makeCrew({ workers: ['w1', 'w2'] });
  await crew.addTask('broken', 'Broken build', 'fail the tests are red', '--manual');
  await crew.addTask('once', 'One shot', 'fail no luck today', '--manual', '--max-attempts', '1');
  await crew.addTask('fine', 'Fine work', 'write ok.txt ok\ncommit ok', '--manual');
  const server = await crew.serve();
  try {
    // Attempts left: the task is queued again, the worker freed; nothing would ever run it.
    await crew.ok(['assign', 'w1', 'broken']);
    const requeued = await crew.waitFor(
      'broken to fail once',
      (status) => crew.task(status, 'broken').attempt === 1 && crew.task(status, 'broken').status === 'queued',
      20_000,
      server,
    );
    const w1 = crew.worker(requeued, 'w1');
    assert.equal(w1.state, 'IDLE');
    assert.match(
      w1.livenessReason,
      /^last task broken failed: pid \d+ exited 1 at [\d:]+: demo-agent: .*the tests are red — Retry to run it again$/,
    );
    assert.deepEqual(
      { ...w1.lastTaskFailed, reason: undefined },
      { taskId: 'broken', title: 'Broken build', status: 'queued', reason: undefined },
    );
    offersRetry(w1);
    const listed = await crew.ok(['status']);
    assert.match(listed, /w1 +IDLE .*last task broken failed/);

    // No attempt left: the worker holds it FAILED as before; once reset, the free worker says why.
    await crew.ok(['assign', 'w2', 'once']);
    await crew.waitForWorker('w2', 'FAILED', server);
    await crew.ok(['reset', 'w2']);
    const reset = await crew.status();
    const w2 = crew.worker(reset, 'w2');
    assert.equal(w2.lastTaskFailed?.status, 'failed');
    assert.match(w2.livenessReason, /^last task once failed: .*no luck today — Retry to run it again$/);

    // Retry on w1 is an assign of its task: a second attempt runs (and fails the same way).
    await crew.ok(['assign', 'w1', 'broken']);
    await crew.waitFor(
      'a second attempt of broken',
      (status) => crew.task(status, 'broken').attempt === 2 && crew.worker(status, 'w1').state === 'IDLE',
      20_000,
      server,
    );

    // w2 runs another task: its old failure is no longer its last task.
    await crew.ok(['assign', 'w2', 'fine']);
    await crew.waitForWorker('w2', 'IN_REVIEW', server);
    await crew.ok(['approve', 'w2']);
    await crew.ok(['merge', 'w2']);
    const after: Status = await crew.status();
    assert.equal(crew.worker(after, 'w2').state, 'IDLE');
    assert.equal(crew.worker(after, 'w2').lastTaskFailed, undefined);
    assert.equal(crew.worker(after, 'w2').livenessReason, 'idle');
    assert.deepEqual(actionsForWorker({ ...crew.worker(after, 'w2'), needsInput: null }).includes('retry'), false);
  } finally {
    await server.stop();
  }
});
