/**
 * The dashboard's activity feed reads only what is new: the first read asks for the latest page,
 * every later one for the transitions after the last seq it saw, so a refresh costs what changed,
 * not the whole history (issue 13).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TransitionEvent } from '../../../src/core/transitionLog';
import { ActivityFeed } from '../../../src/extension/dashboard/activityFeed';
import { ManualClock } from '../../support/manualClock';
import { FakeSession } from './fakeSession';
import { makeStatus } from './fixtures';

function transition(seq: number): TransitionEvent {
  return {
    seq,
    timestamp: new Date(Date.UTC(2026, 10, 22) + seq * 1000).toISOString(),
    event_type: 'task_state_transition',
    severity: 'info',
    entity_id: `t${seq}`,
    from_state: 'idle',
    to_state: 'queued',
    trigger: 'enqueue',
    actor: 'cli',
    reason: null,
    attempt: 1,
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

test('reads the latest page first, then only the transitions after the last seq it saw', async () => {
  const session = new FakeSession(makeStatus({ workers: 1, tasks: 1 }));
  session.transitions = Array.from({ length: 30 }, (_, index) => transition(index + 1));
  const clock = new ManualClock();
  let loads = 0;
  const feed = new ActivityFeed(session, { log: () => undefined, onDidLoad: () => loads++, clock, minIntervalMs: 1_000, keep: 20 });
  try {
    feed.invalidate();
    clock.advance(0);
    await settle();
    assert.equal(loads, 1);
    assert.deepEqual(
      feed.data()?.transitions.map((item) => item.seq),
      Array.from({ length: 20 }, (_, index) => index + 11),
      'the latest 20 of 30, oldest first',
    );
    const asked = () => session.sent.filter((request) => request.command === 'transitions').map((request) => request.args);
    assert.deepEqual(asked()[0], { afterSeq: 0, limit: 20, latest: true });

    session.transitions.push(transition(31), transition(32));
    feed.invalidate();
    clock.advance(1_000);
    await settle();
    assert.equal(loads, 2);
    assert.deepEqual(asked()[1], { afterSeq: 30, limit: 20, latest: true }, 'only what came after seq 30');
    assert.deepEqual(
      feed.data()?.transitions.map((item) => item.seq),
      Array.from({ length: 20 }, (_, index) => index + 13),
      'the new ones follow, the oldest fall off',
    );

    // More than a page at once: the page replaces what was kept (no gap hidden in the middle).
    for (let seq = 33; seq <= 80; seq++) session.transitions.push(transition(seq));
    feed.invalidate();
    clock.advance(1_000);
    await settle();
    assert.deepEqual(
      feed.data()?.transitions.map((item) => item.seq),
      Array.from({ length: 20 }, (_, index) => index + 61),
    );
  } finally {
    feed.dispose();
  }
});
