/**
 * Timing and ordering primitives, modelled on VS Code's `src/vs/base/common/async.ts`: one way to
 * serialise work per key and one way to run something later, so the code has no hand-kept
 * promise tails, swapped timers or `disposed` flags of its own.
 */
import { type Disposable, MutableDisposable } from './lifetime';
import { type Clock, systemClock } from './clock';

/**
 * Runs the operations queued under one key one after another, in the order they were queued;
 * different keys run independently. A failed operation rejects its own promise only: the next one
 * under the key still runs.
 */
export class SequencerByKey<K> {
  private readonly tails = new Map<K, Promise<unknown>>();

  queue<T>(key: K, operation: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const current: Promise<T> = previous
      .catch(() => undefined)
      .then(() => operation())
      .finally(() => {
        // Forget the key once its queue drains, so the map holds only keys with work in flight.
        if (this.tails.get(key) === current) this.tails.delete(key);
      });
    this.tails.set(key, current);
    return current;
  }

  /** Whether an operation under `key` is running or waiting. */
  has(key: K): boolean {
    return this.tails.has(key);
  }
}

/**
 * Runs `runner` once, `delayMs` after the last `schedule` (scheduling again moves the run), on the
 * clock it is given. `cancel` drops the pending run; after `dispose` nothing runs any more.
 */
export class RunOnceScheduler implements Disposable {
  private readonly timer = new MutableDisposable<Disposable>();
  private runner: (() => void) | undefined;

  constructor(
    runner: () => void,
    private readonly delayMs: number,
    private readonly clock: Clock = systemClock,
  ) {
    this.runner = runner;
  }

  /** Whether a run is waiting. */
  get isScheduled(): boolean {
    return this.timer.value !== undefined;
  }

  /** (Re)arms the run for `delayMs` from now, replacing a pending one. */
  schedule(delayMs = this.delayMs): void {
    if (this.runner === undefined) return;
    this.timer.value = this.clock.setTimeout(() => {
      // Cleared before the run, so the runner may schedule the next one.
      this.timer.clear();
      this.runner?.();
    }, delayMs);
  }

  cancel(): void {
    this.timer.clear();
  }

  dispose(): void {
    this.runner = undefined;
    this.timer.dispose();
  }
}

/**
 * Runs `runner` once at the end of this turn of the event loop (`setImmediate`), however many times
 * it is scheduled before then: work that batches what one turn produced (a group save).
 */
export class NextTurnScheduler {
  private scheduled = false;

  constructor(private readonly runner: () => void) {}

  schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.runner();
    });
  }
}
