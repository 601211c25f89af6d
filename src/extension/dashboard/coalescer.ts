import { RunOnceScheduler } from '../../base/async';
import type { Disposable } from '../../base/lifetime';
import { type Clock, systemClock } from '../../engine/ports';

/**
 * Runs a job at most once per interval however often it is requested: the first request of a
 * quiet period runs on the next turn of the clock (so a synchronous burst collapses into one run),
 * later ones wait until the interval since the last run has passed.
 */
export class Coalescer implements Disposable {
  private readonly scheduler: RunOnceScheduler;
  private lastRunAt = Number.NEGATIVE_INFINITY;

  constructor(
    job: () => void,
    private readonly intervalMs: number,
    private readonly clock: Clock = systemClock,
  ) {
    this.scheduler = new RunOnceScheduler(
      () => {
        this.lastRunAt = this.clock.now();
        job();
      },
      0,
      clock,
    );
  }

  request(): void {
    // A waiting run already covers this request; rescheduling it would only push it later.
    if (this.scheduler.isScheduled) return;
    this.scheduler.schedule(Math.max(0, this.lastRunAt + this.intervalMs - this.clock.now()));
  }

  /** Whether a run is waiting. */
  get pending(): boolean {
    return this.scheduler.isScheduled;
  }

  dispose(): void {
    this.scheduler.dispose();
  }
}
