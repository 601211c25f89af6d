/** The waker's ordered deadlines (issue 13): the earliest current deadline, whatever was superseded. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DeadlineQueue } from '../../src/base/deadlineQueue';

describe('DeadlineQueue', () => {
  it('gives the earliest deadline, following moves and clears of each key', () => {
    const queue = new DeadlineQueue();
    assert.equal(queue.next(), undefined);
    queue.set('ada', 500);
    queue.set('bob', 300);
    queue.set('cy', 900);
    assert.equal(queue.next(), 300);
    queue.set('bob', 1000); // a heartbeat moved bob's deadline later
    assert.equal(queue.next(), 500);
    queue.set('ada', undefined); // ada went idle: no deadline
    assert.equal(queue.next(), 900);
    queue.set('cy', 100); // earlier, e.g. a wait for input ended long ago
    assert.equal(queue.next(), 100);
    queue.clear();
    assert.equal(queue.next(), undefined);
    assert.equal(queue.size, 0);
  });

  it('takes the keys that are due, once, and keeps the rest', () => {
    const queue = new DeadlineQueue();
    queue.set('ada', 300);
    queue.set('bo', 100);
    queue.set('cy', 200);
    queue.set('bo', 150); // moved: its entry at 100 is stale
    assert.deepEqual(queue.takeDue(99), []);
    assert.deepEqual(queue.takeDue(200), ['bo', 'cy']);
    assert.deepEqual(queue.takeDue(200), [], 'taken keys are gone until set again');
    assert.equal(queue.size, 1);
    queue.set('cy', 200); // read again: still the same deadline, so it is queued again
    assert.equal(queue.next(), 200);
    assert.deepEqual(queue.takeDue(1_000), ['cy', 'ada']);
    assert.equal(queue.next(), undefined);
  });

  it('agrees with a plain minimum over many random moves, and its heap stays bounded', () => {
    let seed = 7;
    const random = (): number => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const queue = new DeadlineQueue();
    const truth = new Map<string, number>();
    for (let step = 0; step < 20_000; step++) {
      const key = `w${Math.floor(random() * 50)}`;
      if (random() < 0.1) {
        queue.set(key, undefined);
        truth.delete(key);
      } else {
        const at = Math.floor(random() * 1_000_000);
        queue.set(key, at);
        truth.set(key, at);
      }
      const expected = truth.size ? Math.min(...truth.values()) : undefined;
      assert.equal(queue.next(), expected, `step ${step}`);
    }
    assert.equal(queue.size, truth.size);
    const heap = (queue as unknown as { heap: unknown[] }).heap;
    assert.ok(heap.length <= 4 * truth.size + 64, `heap of ${heap.length} for ${truth.size} keys`);
  });
});
