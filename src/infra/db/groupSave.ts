/**
 * Group commit for the sql.js store (issue 13): durable writes made inside `run` are written to the
 * journal at once but fsync'd together at the end of the event-loop turn, with whatever else was
 * written meanwhile. Whoever tells anyone of such a write waits for `whenSaved()` first (the
 * endpoint does: with 8 clients, one fsync per write was a third of the owner's time).
 *
 * The fsync runs on the thread pool (issue 34): the owner's thread answers other requests while the
 * disk works, and writes committed meanwhile wait for the next save, which starts when this one
 * returns. An answer still leaves only after the fsync that covers its write has returned.
 */
import { NextTurnScheduler } from '../../base/async';

interface Waiter {
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

export class GroupSave {
  private deferring = false;
  /** Durable writes committed whose records no save started since then covers. */
  private unsaved = false;
  /** Waiting for the next save to start and return. */
  private waiters: Waiter[] = [];
  /** Waiting for the save under way: it covers their writes. */
  private riding: Waiter[] = [];
  private running = false;
  /** Counts saves, so that one ended by `savedElsewhere` meanwhile keeps out. */
  private generation = 0;
  private readonly turn = new NextTurnScheduler(() => this.saveNow());

  /** `save` fsyncs what is unsaved (and raises the acknowledged mark), or rejects (or throws) why it cannot. */
  constructor(private readonly save: () => Promise<void>) {}

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

  /** Something else (a close's synchronous fsync) has saved everything written so far. */
  savedElsewhere(): void {
    this.unsaved = false;
    this.generation++;
    this.running = false;
    const riding = this.riding;
    this.riding = [];
    for (const waiter of riding) waiter.resolve();
  }

  /** Resolves once every durable write so far is fsync'd; rejects if that failed. */
  whenSaved(): Promise<void> {
    if (!this.unsaved && !this.running) return Promise.resolve();
    return new Promise((resolve, reject) => {
      if (this.unsaved) {
        this.waiters.push({ resolve, reject });
        this.turn.schedule();
      } else this.riding.push({ resolve, reject });
    });
  }

  /** The group save: one fsync for every write since the last, then its waiters. One at a time. */
  saveNow(): void {
    if (this.running) return;
    const waiters = this.waiters;
    this.waiters = [];
    if (!this.unsaved) {
      for (const waiter of waiters) waiter.resolve();
      return;
    }
    this.unsaved = false;
    this.riding = waiters;
    this.running = true;
    const generation = this.generation;
    let saving: Promise<void>;
    try {
      saving = this.save();
    } catch (error) {
      saving = Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    saving.then(
      () => this.ended(generation, undefined),
      (error: unknown) => this.ended(generation, error ?? new Error('the save failed')),
    );
  }

  private ended(generation: number, error: unknown): void {
    if (generation !== this.generation) return;
    this.running = false;
    const riding = this.riding;
    this.riding = [];
    // A failed fsync leaves its writes unknown: later waiters hear so from the next save's refusal.
    if (error !== undefined) this.unsaved = true;
    for (const waiter of riding) {
      if (error === undefined) waiter.resolve();
      else waiter.reject(error);
    }
    // Writes committed meanwhile are saved next; after a failure, only waiters need an answer.
    if (this.waiters.length > 0 || (this.unsaved && error === undefined)) this.turn.schedule();
  }
}
