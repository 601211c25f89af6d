/**
 * Group commit for the sql.js store (issue 13): durable writes made inside `run` are written to the
 * journal at once but fsync'd together at the end of the event-loop turn, with whatever else was
 * written meanwhile. Whoever tells anyone of such a write waits for `whenSaved()` first (the
 * endpoint does: with 8 clients, one fsync per write was a third of the owner's time).
 */
import { NextTurnScheduler } from '../../engine/async';

export class GroupSave {
  private deferring = false;
  /** Durable writes committed whose records are written but not yet fsync'd. */
  private unsaved = false;
  private waiters: Array<{ resolve: () => void; reject: (error: unknown) => void }> = [];
  private readonly turn = new NextTurnScheduler(() => this.saveNow());

  /** `save` fsyncs what is unsaved (and raises the acknowledged mark), or throws why it cannot. */
  constructor(private readonly save: () => void) {}

  /** Whether a durable write now leaves its fsync to the group. */
  get deferringNow(): boolean {
    return this.deferring;
  }

  run<T>(fn: () => T): T {
    const was = this.deferring;
    this.deferring = true;
    try {
      return fn();
    } finally {
      this.deferring = was;
    }
  }

  /** A deferred durable write was committed: save it (and its turn's others) soon. */
  committed(): void {
    this.unsaved = true;
    this.turn.schedule();
  }

  /** Something else (a close, a checkpoint) has saved everything written so far. */
  savedElsewhere(): void {
    this.unsaved = false;
  }

  /** Resolves once every durable write so far is fsync'd; rejects if that failed. */
  whenSaved(): Promise<void> {
    if (!this.unsaved) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.waiters.push({ resolve, reject });
      this.turn.schedule();
    });
  }

  /** The group save: one fsync for every write since the last, then the waiters. */
  saveNow(): void {
    const waiters = this.waiters;
    this.waiters = [];
    try {
      if (this.unsaved) this.save();
      this.unsaved = false;
    } catch (error) {
      for (const waiter of waiters) waiter.reject(error);
      return;
    }
    for (const waiter of waiters) waiter.resolve();
  }
}
