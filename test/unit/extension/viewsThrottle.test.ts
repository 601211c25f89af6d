/** The one throttle between commits and the views (issue 31), on the manual clock. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type StatusDelta, type ViewsChange, noChange } from '../../../src/extension/statusModel';
import { ViewsThrottle } from '../../../src/extension/viewsThrottle';
import { ManualClock } from '../../support/manualClock';

/** A session whose next delta the test sets, as a commit would leave its ids. */
function session(root: string) {
  let next: StatusDelta = noChange;
  let taken = 0;
  return {
    root,
    commit(workers: string[], tasks: string[] = []) {
      next = {
        workers: new Set([...next.workers, ...workers]),
        tasks: new Set([...next.tasks, ...tasks]),
        membership: next.membership,
        totals: next.totals,
      };
    },
    takeChanges(): StatusDelta {
      taken++;
      const delta = next;
      next = noChange;
      return delta;
    },
    get taken() {
      return taken;
    },
  };
}

function setup() {
  const clock = new ManualClock();
  const a = session('/a');
  const b = session('/b');
  const throttle = new ViewsThrottle(() => [a, b], 250, clock);
  const heard: ViewsChange[] = [];
  throttle.onDidChange((change) => heard.push(change));
  const commit = (s: ReturnType<typeof session>, workers: string[], tasks: string[] = []) => {
    s.commit(workers, tasks);
    throttle.changed();
  };
  return { clock, a, b, throttle, heard, commit };
}

test('the first change of a quiet period goes out on the next turn of the clock, with the ids of every commit in it', () => {
  const { clock, a, b, heard, commit } = setup();
  commit(a, ['w1']);
  commit(a, ['w2'], ['t1']);
  commit(b, [], ['t9']);
  assert.equal(heard.length, 0, 'never synchronously');
  clock.advance(0);
  assert.equal(heard.length, 1);
  assert.deepEqual([...heard[0]!.deltas.get('/a')!.workers], ['w1', 'w2']);
  assert.deepEqual([...heard[0]!.deltas.get('/a')!.tasks], ['t1']);
  assert.deepEqual([...heard[0]!.deltas.get('/b')!.tasks], ['t9']);
  assert.equal(heard[0]!.sessionsChanged, false);
});

test('changes soon after a run wait until the interval since that run has passed, then go out once', () => {
  const { clock, a, heard, commit } = setup();
  commit(a, ['w1']);
  clock.advance(0);
  clock.advance(100);
  for (let i = 0; i < 1000; i++) commit(a, [`w${i % 7}`]);
  clock.advance(149);
  assert.equal(heard.length, 1, 'nothing before 250 ms since the last run');
  clock.advance(1);
  assert.equal(heard.length, 2);
  assert.equal(heard[1]!.deltas.get('/a')!.workers.size, 7, 'a thousand commits, the seven rows they named');
  clock.advance(1000);
  assert.equal(heard.length, 2, 'nothing more without a change');
});

test('a folder that comes or goes is said once, and only in the run that follows', () => {
  const { clock, throttle, heard } = setup();
  throttle.sessionsMoved();
  clock.advance(0);
  throttle.changed();
  clock.advance(300);
  assert.deepEqual(
    heard.map((change) => change.sessionsChanged),
    [true, false],
  );
  assert.equal(heard[1]!.deltas.size, 0, 'a run with nothing changed is still heard, with no deltas');
});

test('a session that cannot read keeps its ids for the next run; the others go out', () => {
  const { clock, a, b, throttle, heard, commit } = setup();
  const take = a.takeChanges.bind(a);
  let broken = true;
  a.takeChanges = () => {
    if (broken) throw new Error('store closing');
    return take();
  };
  commit(a, ['w1']);
  commit(b, ['x1']);
  clock.advance(0);
  assert.deepEqual([...heard[0]!.deltas.keys()], ['/b']);
  broken = false;
  throttle.changed();
  clock.advance(250);
  assert.deepEqual([...heard[1]!.deltas.get('/a')!.workers], ['w1']);
});

test('after dispose nothing runs and nothing is heard', () => {
  const { clock, a, throttle, heard, commit } = setup();
  commit(a, ['w1']);
  throttle.dispose();
  commit(a, ['w2']);
  clock.advance(1000);
  assert.equal(heard.length, 0);
  assert.equal(a.taken, 0);
});
