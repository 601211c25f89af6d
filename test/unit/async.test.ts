/** Ordering and timing primitives (issue 12): a sequencer per key and a run-once scheduler on the manual clock. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RunOnceScheduler, SequencerByKey } from '../../src/base/async';
import { ManualClock } from '../support/manualClock';

/** A promise the test settles by hand, to hold an operation open. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

describe('SequencerByKey', () => {
  it('runs the operations of one key one at a time, in the order they were queued', async () => {
    const sequencer = new SequencerByKey<string>();
    const log: string[] = [];
    const first = gate();
    const a = sequencer.queue('repo', async () => {
      log.push('a start');
      await first.opened;
      log.push('a end');
      return 'a';
    });
    const b = sequencer.queue('repo', () => {
      log.push('b');
      return Promise.resolve('b');
    });
    await new Promise(setImmediate);
    assert.deepEqual(log, ['a start'], 'b waits while a runs');
    first.open();
    assert.deepEqual(await Promise.all([a, b]), ['a', 'b']);
    assert.deepEqual(log, ['a start', 'a end', 'b']);
  });

  it('runs different keys independently', async () => {
    const sequencer = new SequencerByKey<string>();
    const held = gate();
    const slow = sequencer.queue('one', () => held.opened.then(() => 'one'));
    assert.equal(await sequencer.queue('two', () => Promise.resolve('two')), 'two', 'two did not wait for one');
    held.open();
    assert.equal(await slow, 'one');
  });

  it('a failure rejects only its own operation; the next one under the key still runs', async () => {
    const sequencer = new SequencerByKey<string>();
    const failing = sequencer.queue('repo', () => Promise.reject(new Error('merge failed')));
    const throwing = sequencer.queue('repo', () => {
      throw new Error('thrown before any await');
    });
    const next = sequencer.queue('repo', () => Promise.resolve('ran'));
    await assert.rejects(failing, /merge failed/);
    await assert.rejects(throwing, /thrown before any await/);
    assert.equal(await next, 'ran');
  });

  it('forgets a key once its queue has drained', async () => {
    const sequencer = new SequencerByKey<string>();
    const held = gate();
    const running = sequencer.queue('repo', () => held.opened);
    assert.equal(sequencer.has('repo'), true);
    held.open();
    await running;
    assert.equal(sequencer.has('repo'), false);
  });
});

describe('RunOnceScheduler', () => {
  it('runs once, the delay after schedule, on the clock it is given', () => {
    const clock = new ManualClock();
    let runs = 0;
    const scheduler = new RunOnceScheduler(() => runs++, 100, clock);
    scheduler.schedule();
    assert.equal(scheduler.isScheduled, true);
    clock.advance(99);
    assert.equal(runs, 0);
    clock.advance(1);
    assert.equal(runs, 1);
    assert.equal(scheduler.isScheduled, false);
    clock.advance(1_000);
    assert.equal(runs, 1, 'once per schedule');
  });

  it('scheduling again moves the run, and a delay given to schedule overrides the default', () => {
    const clock = new ManualClock();
    let runs = 0;
    const scheduler = new RunOnceScheduler(() => runs++, 100, clock);
    scheduler.schedule();
    clock.advance(60);
    scheduler.schedule();
    clock.advance(60);
    assert.equal(runs, 0, 'the second schedule replaced the first');
    clock.advance(40);
    assert.equal(runs, 1);
    scheduler.schedule(5);
    clock.advance(5);
    assert.equal(runs, 2);
    assert.equal(clock.pendingTimers(), 0, 'no timer is left behind');
  });

  it('cancel drops the pending run; dispose ends it and refuses new ones', () => {
    const clock = new ManualClock();
    let runs = 0;
    const scheduler = new RunOnceScheduler(() => runs++, 10, clock);
    scheduler.schedule();
    scheduler.cancel();
    assert.equal(scheduler.isScheduled, false);
    clock.advance(10);
    assert.equal(runs, 0);
    scheduler.schedule();
    scheduler.dispose();
    scheduler.schedule();
    clock.advance(10);
    assert.equal(runs, 0);
    assert.equal(scheduler.isScheduled, false);
    assert.equal(clock.pendingTimers(), 0);
  });

  it('the runner may schedule the next run', () => {
    const clock = new ManualClock();
    const at: number[] = [];
    const start = clock.now();
    const scheduler: RunOnceScheduler = new RunOnceScheduler(
      () => {
        at.push(clock.now() - start);
        if (at.length < 3) scheduler.schedule();
      },
      10,
      clock,
    );
    scheduler.schedule();
    for (let step = 0; step < 10; step++) clock.advance(10);
    assert.deepEqual(at, [10, 20, 30]);
    assert.equal(scheduler.isScheduled, false);
  });
});
