/** Lifetimes (issue 12): what a store, a base class and a single-slot holder do with what they own. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DisposableBase, DisposableStore, MutableDisposable } from '../../src/base/lifetime';

function tracked(log: string[], name: string) {
  return { dispose: () => log.push(name) };
}

describe('lifecycle primitives', () => {
  it('a DisposableStore disposes in reverse order, once, and disposes what is added after it at once', () => {
    const log: string[] = [];
    const store = new DisposableStore();
    store.add(tracked(log, 'a'));
    store.add(tracked(log, 'b'));
    store.dispose();
    store.dispose();
    assert.deepEqual(log, ['b', 'a']);
    assert.equal(store.isDisposed, true);
    store.add(tracked(log, 'late'));
    assert.deepEqual(log, ['b', 'a', 'late'], 'a late addition does not leak');
  });

  it('a MutableDisposable holds one: setting another disposes the one before, and dispose ends it', () => {
    const log: string[] = [];
    const slot = new MutableDisposable<{ dispose(): void }>();
    slot.value = tracked(log, 'first');
    slot.value = tracked(log, 'second');
    assert.deepEqual(log, ['first']);
    slot.clear();
    assert.deepEqual(log, ['first', 'second']);
    assert.equal(slot.value, undefined);
    slot.value = tracked(log, 'third');
    slot.dispose();
    slot.value = tracked(log, 'after');
    assert.deepEqual(log, ['first', 'second', 'third', 'after']);
    assert.equal(slot.value, undefined);
  });

  it('a DisposableBase ends everything it registered when it is disposed', () => {
    const log: string[] = [];
    class Owner extends DisposableBase {
      readonly timer = this._register(new MutableDisposable());
      constructor() {
        super();
        this._register(tracked(log, 'subscription'));
        this.timer.value = tracked(log, 'timer');
      }
      get ended(): boolean {
        return this.isDisposed;
      }
    }
    const owner = new Owner();
    assert.equal(owner.ended, false);
    owner.dispose();
    assert.deepEqual(log, ['subscription', 'timer']);
    assert.equal(owner.ended, true);
  });
});
