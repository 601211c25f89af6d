/**
 * Runs a job at most once per interval however often it is requested: the first request of a
 * quiet period runs on the next turn of the event loop (so a synchronous burst collapses into
 * one run), later ones wait until the interval since the last run has passed.
 */
export class Coalescer {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private lastRunAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly job: () => void,
    private readonly intervalMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  request(): void {
    if (this.timer) return;
    const wait = Math.max(0, this.lastRunAt + this.intervalMs - this.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.lastRunAt = this.now();
      this.job();
    }, wait);
  }

  /** Whether a run is waiting. */
  get pending(): boolean {
    return this.timer !== undefined;
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
