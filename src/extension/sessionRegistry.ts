import * as vscode from 'vscode';
import type { ForemanSession } from './session';
import type { ViewsChange } from './statusModel';
import { ViewsThrottle } from './viewsThrottle';

export { coalesceMs } from './viewsThrottle';
/** Liveness moves with the clock; the workers are read again this often, only while some worker holds a task. */
const ageTickMs = 5_000;

/**
 * The sessions of this window (one per workspace folder that has Foreman), with one coalesced
 * change event for the views (`ViewsThrottle`, the only throttle between a commit and the pixels):
 * a burst of a thousand transitions redraws a few times, not a thousand, and says which rows
 * changed so a view redraws only those.
 */
export class SessionRegistry implements vscode.Disposable {
  private readonly bySession = new Map<string, { session: ForemanSession; subscription: { dispose(): void } }>();
  private readonly changeEmitter = new vscode.EventEmitter<ViewsChange>();
  readonly onDidChange = this.changeEmitter.event;
  private readonly throttle = new ViewsThrottle(() => this.sessions());
  private readonly fired = this.throttle.onDidChange((change) => {
    this.changeEmitter.fire(change);
    this.updateTicker();
  });
  private ticker: ReturnType<typeof setInterval> | undefined;

  sessions(): ForemanSession[] {
    return [...this.bySession.values()].map((entry) => entry.session);
  }

  get(root: string): ForemanSession | undefined {
    return this.bySession.get(root)?.session;
  }

  add(session: ForemanSession): void {
    void this.remove(session.root);
    const subscription = session.onDidChange(() => this.changed());
    this.bySession.set(session.root, { session, subscription });
    this.throttle.sessionsMoved();
  }

  /** Removes a folder's session and resolves once it has let go (of the owner lock, say). */
  remove(root: string): Promise<void> {
    const entry = this.bySession.get(root);
    if (!entry) return Promise.resolve();
    entry.subscription.dispose();
    this.bySession.delete(root);
    this.throttle.sessionsMoved();
    return entry.session.close();
  }

  private changed(): void {
    this.throttle.changed();
  }

  /**
   * Liveness (WARN, STALE) moves with the clock: read the workers again while some are busy, stop when
   * nobody is. So do the owners of a shared store (issue 29): an owner that stops renewing its lease
   * commits nothing anyone hears, and is seen gone only by reading again.
   */
  private updateTicker(): void {
    const busy = this.sessions().some((session) => {
      const snapshot = session.snapshot();
      return snapshot.owners.length > 0 || snapshot.workers.some((worker) => worker.taskId !== null);
    });
    if (busy && !this.ticker) this.ticker = setInterval(() => this.sessions().forEach((session) => session.recheckWorkers()), ageTickMs);
    if (!busy && this.ticker) {
      clearInterval(this.ticker);
      this.ticker = undefined;
    }
  }

  dispose(): void {
    for (const root of [...this.bySession.keys()]) void this.remove(root);
    this.fired.dispose();
    this.throttle.dispose();
    if (this.ticker) clearInterval(this.ticker);
    this.changeEmitter.dispose();
  }
}
