/** The clock port (src/base/clock.ts): intervals and bounded sleeps, on the manual clock and the system's. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { systemClock } from '../../src/engine/ports';
import { ManualClock } from '../support/manualClock';

test('an interval runs once per period passed, in order with the timeouts, until disposed', () => {
  const clock = new ManualClock();
  const heard: string[] = [];
  const ticks = clock.every(() => heard.push('tick'), 100);
  clock.setTimeout(() => heard.push('once'), 150);
  clock.advance(99);
  assert.deepEqual(heard, []);
  clock.advance(1);
  assert.deepEqual(heard, ['tick']);
  clock.advance(250);
  assert.deepEqual(heard, ['tick', 'once', 'tick', 'tick']);
  ticks.dispose();
  clock.advance(1_000);
  assert.equal(heard.length, 4);
  assert.equal(clock.pendingTimers(), 0);
});

test('a sleep ends when its time has passed, or sooner when what it waits on settles', async () => {
  const clock = new ManualClock();
  let slept = false;
  const sleeping = clock.sleep(1_000).then(() => (slept = true));
  clock.advance(999);
  await Promise.resolve();
  assert.equal(slept, false);
  clock.advance(1);
  await sleeping;
  assert.equal(slept, true);

  let finish: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (finish = resolve));
  const bounded = clock.sleep(60_000, done);
  assert.equal(clock.pendingTimers(), 1);
  finish();
  await bounded;
  assert.equal(clock.pendingTimers(), 0, 'its timer is cleared once it ended early');
});

test("the system clock's bounded sleep ends with what it waits on, even when that fails, and holds the process meanwhile", async () => {
  const failed = Promise.reject(new Error('gone'));
  const sleeping = systemClock.sleep(60_000, failed).then(() => 'ended');
  // Settling is a few microtasks; the next turn of the event loop comes after them.
  const nextTurn = new Promise((resolve) => setImmediate(() => resolve('still sleeping')));
  assert.equal(await Promise.race([sleeping, nextTurn]), 'ended');
  let ticks = 0;
  const thirdTick = new Promise<void>((resolve) => {
    const timer = systemClock.every(() => {
      if (++ticks < 3) return;
      timer.dispose();
      resolve();
    }, 1);
  });
  // An interval keeps no process alive; the sleep does, until the interval's third tick ends it.
  await systemClock.sleep(60_000, thirdTick);
  assert.equal(ticks, 3);
});
