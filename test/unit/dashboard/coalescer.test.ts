/** The dashboard's coalescer on the manual clock: at most one run per interval, however many requests. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Coalescer } from '../../../src/extension/dashboard/coalescer';
import { ManualClock } from '../../support/manualClock';

test('a burst of requests in a quiet period runs the job once, on the next turn of the clock', () => {
  const clock = new ManualClock();
  let runs = 0;
  const coalescer = new Coalescer(() => runs++, 250, clock);
  for (let i = 0; i < 1000; i++) coalescer.request();
  assert.equal(runs, 0, 'never synchronously');
  assert.equal(coalescer.pending, true);
  clock.advance(0);
  assert.equal(runs, 1);
  assert.equal(coalescer.pending, false);
});

test('a request soon after a run waits until the interval since that run has passed', () => {
  const clock = new ManualClock();
  let runs = 0;
  const coalescer = new Coalescer(() => runs++, 250, clock);
  coalescer.request();
  clock.advance(0);
  clock.advance(100);
  coalescer.request();
  coalescer.request();
  clock.advance(149);
  assert.equal(runs, 1);
  clock.advance(1);
  assert.equal(runs, 2, 'ran 250 ms after the first run');
  clock.advance(1_000);
  coalescer.request();
  clock.advance(0);
  assert.equal(runs, 3, 'after a quiet interval the next request runs at once');
});

test('dispose drops a waiting run', () => {
  const clock = new ManualClock();
  let runs = 0;
  const coalescer = new Coalescer(() => runs++, 250, clock);
  coalescer.request();
  coalescer.dispose();
  coalescer.request();
  clock.advance(1_000);
  assert.equal(runs, 0);
  assert.equal(clock.pendingTimers(), 0);
});
