import { type Disposable, MutableDisposable } from '../base/lifetime';
import { type Clock, systemClock } from '../engine/ports';

/** Liveness moves with the clock; the workers are read again this often, only while some worker holds a task. */
export const ageTickMs = 5_000;

/** What the ticker reads of a folder's session. */
export interface TickedSession {
  snapshot(): { readonly owners: readonly unknown[]; readonly workers: ReadonlyArray<{ readonly taskId: string | null }> };
  recheckWorkers(): void;
}

/**
 * Liveness (WARN, STALE) moves with the clock: the workers are read again while some are busy, and
 * not when nobody is. So are the owners of a shared store (issue 29): an owner that stops renewing
 * its lease commits nothing anyone hears, and is seen gone only by reading again. Free of `vscode`,
 * so tests run it on a manual clock.
 */
export class LivenessTicker implements Disposable {
  private readonly timer = new MutableDisposable<Disposable>();

  constructor(
    private readonly sessions: () => readonly TickedSession[],
    private readonly clock: Clock = systemClock,
    private readonly everyMs = ageTickMs,
  ) {}

  /** Starts or stops the ticker after the views changed: it runs while some session is busy. */
  update(): void {
    const busy = this.sessions().some((session) => {
      const snapshot = session.snapshot();
      return snapshot.owners.length > 0 || snapshot.workers.some((worker) => worker.taskId !== null);
    });
    if (busy && !this.timer.value)
      this.timer.value = this.clock.every(() => this.sessions().forEach((session) => session.recheckWorkers()), this.everyMs);
    if (!busy) this.timer.clear();
  }

  /** Whether the ticker runs. */
  get running(): boolean {
    return this.timer.value !== undefined;
  }

  dispose(): void {
    this.timer.dispose();
  }
}
