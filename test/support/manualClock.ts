import type { Clock } from '../../src/engine/ports';

/**
 * A clock the test moves by hand. Liveness thresholds are minutes long; waiting for them for real
 * is out of reach in a test, so time is the one thing faked here. Timers fire only from `advance`.
 */
export class ManualClock implements Clock {
  private timers: Array<{ at: number; fn: () => void; live: boolean; every?: number }> = [];

  constructor(private current = Date.UTC(2026, 10, 22, 9, 0, 0)) {}

  now(): number {
    return this.current;
  }

  setTimeout(fn: () => void, ms: number): { dispose(): void } {
    const timer = { at: this.current + ms, fn, live: true };
    this.timers.push(timer);
    return { dispose: () => void (timer.live = false) };
  }

  every(fn: () => void, ms: number): { dispose(): void } {
    const timer = { at: this.current + ms, fn, live: true, every: Math.max(1, ms) };
    this.timers.push(timer);
    return { dispose: () => void (timer.live = false) };
  }

  sleep(ms: number, until?: Promise<unknown>): Promise<void> {
    let timer: { dispose(): void } | undefined;
    const elapsed = new Promise<void>((resolve) => (timer = this.setTimeout(resolve, ms)));
    if (!until) return elapsed;
    const settled = until.then(
      () => undefined,
      () => undefined,
    );
    return Promise.race([elapsed, settled]).finally(() => timer?.dispose());
  }

  /** Moves time forward and runs the timers that became due, in order (an interval once per period passed). */
  advance(ms: number): void {
    this.current += ms;
    for (;;) {
      const due = this.timers.filter((t) => t.live && t.at <= this.current).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      if (due.every === undefined) due.live = false;
      else due.at += due.every;
      due.fn();
    }
    this.timers = this.timers.filter((t) => t.live);
  }

  pendingTimers(): number {
    return this.timers.filter((t) => t.live).length;
  }
}
