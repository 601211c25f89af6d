/**
 * The queue waker on a clock the test owns. The case here is a race seen on a loaded machine: a
 * task that comes due between the dispatcher's look and the arming of the due timer (the event
 * loop busy for longer than the backoff) must still be dispatched, not wait for another commit.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EngineEvent } from '../../src/engine/unit';
import { Emitter } from '../../src/base/lifetime';
import { QueueWaker } from '../../src/engine/queueWaker';
import { ManualClock } from '../support/manualClock';

const turn = () => new Promise((resolve) => setImmediate(() => setImmediate(resolve)));

test('a task that comes due while the dispatcher runs is dispatched when it is due, not left waiting', async () => {
  const clock = new ManualClock(1_000);
  const commits = new Emitter<readonly EngineEvent[]>();
  const dueAt = 1_100;
  const dispatchedAt: number[] = [];
  const waker = new QueueWaker(
    {
      onDidCommit: commits.event,
      dispatch: () => {
        dispatchedAt.push(clock.now());
        // The first look finds nothing due yet, then the loop is busy past the task's time.
        if (dispatchedAt.length === 1) clock.advance(200);
      },
      nextDue: (now) => (dueAt > now && dispatchedAt.length < 2 ? dueAt : undefined),
      deadlines: () => new Map(),
      sweep: () => undefined,
      reportFailure: (error) => assert.fail(String(error)),
    },
    clock,
  );
  try {
    waker.wake();
    await turn();
    await turn();
    clock.advance(10);
    await turn();
    assert.equal(dispatchedAt.length, 2, `dispatched at ${dispatchedAt.join(', ')}`);
    assert.ok(dispatchedAt[1]! >= dueAt);
  } finally {
    waker.dispose();
    commits.dispose();
  }
});
