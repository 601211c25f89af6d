/** The liveness ticker of the window (sessionRegistry.ts), on the manual clock. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LivenessTicker, ageTickMs } from '../../../src/extension/livenessTicker';
import { ManualClock } from '../../support/manualClock';

/** A folder's session as the ticker reads it: workers holding a task or not, and its rechecks counted. */
function session() {
  const state = { owners: [] as unknown[], workers: [] as Array<{ taskId: string | null }>, rechecks: 0 };
  return {
    state,
    snapshot: () => ({ owners: state.owners, workers: state.workers }),
    recheckWorkers: () => void state.rechecks++,
  };
}

test('reads the workers again every tick while one holds a task, and stops when none does', () => {
  const clock = new ManualClock();
  const a = session();
  const b = session();
  const ticker = new LivenessTicker(() => [a, b], clock);
  ticker.update();
  assert.equal(ticker.running, false, 'nobody busy: no timer');
  assert.equal(clock.pendingTimers(), 0);

  a.state.workers = [{ taskId: 't1' }];
  ticker.update();
  ticker.update();
  assert.equal(clock.pendingTimers(), 1, 'one timer, however often the views change');
  clock.advance(ageTickMs * 3);
  assert.equal(a.state.rechecks, 3);
  assert.equal(b.state.rechecks, 3, 'every session is read again, not only the busy one');

  a.state.workers = [{ taskId: null }];
  ticker.update();
  assert.equal(ticker.running, false);
  clock.advance(ageTickMs * 3);
  assert.equal(a.state.rechecks, 3);
});

test('another owner of a shared store keeps it ticking (its lease is seen gone only by reading), until it is disposed', () => {
  const clock = new ManualClock();
  const a = session();
  a.state.owners = [{ id: 'o2' }];
  const ticker = new LivenessTicker(() => [a], clock);
  ticker.update();
  clock.advance(ageTickMs);
  assert.equal(a.state.rechecks, 1);
  ticker.dispose();
  ticker.update();
  clock.advance(ageTickMs * 2);
  assert.equal(a.state.rechecks, 1);
  assert.equal(clock.pendingTimers(), 0);
});
