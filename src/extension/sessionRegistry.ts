import * as vscode from 'vscode';
import { type Disposable, DisposableStore } from '../base/lifetime';
import { type Clock, systemClock } from '../engine/ports';
import { LivenessTicker } from './livenessTicker';
import type { ForemanSession } from './session';
import type { ViewsChange } from './statusModel';
import { ViewsThrottle } from './viewsThrottle';

export { coalesceMs } from './viewsThrottle';

/**
 * The sessions of this window (one per workspace folder that has Foreman), with one coalesced
 * change event for the views (`ViewsThrottle`, the only throttle between a commit and the pixels):
 * a burst of a thousand transitions redraws a few times, not a thousand, and says which rows
 * changed so a view redraws only those.
 */
export class SessionRegistry implements vscode.Disposable {
  /** Each folder's session with what lives as long as it (its subscriptions), ended when it is removed. */
  private readonly bySession = new Map<string, { session: ForemanSession; lifetime: DisposableStore }>();
  private readonly changeEmitter = new vscode.EventEmitter<ViewsChange>();
  readonly onDidChange = this.changeEmitter.event;
  private readonly throttle: ViewsThrottle;
  private readonly ticker: LivenessTicker;
  private readonly fired: vscode.Disposable;

  constructor(clock: Clock = systemClock) {
    this.throttle = new ViewsThrottle(() => this.sessions(), undefined, clock);
    this.ticker = new LivenessTicker(() => this.sessions(), clock);
    this.fired = this.throttle.onDidChange((change) => {
      this.changeEmitter.fire(change);
      this.ticker.update();
    });
  }

  sessions(): ForemanSession[] {
    return [...this.bySession.values()].map((entry) => entry.session);
  }

  get(root: string): ForemanSession | undefined {
    return this.bySession.get(root)?.session;
  }

  /** Adds a folder's session; `owned` (its notifier's subscriptions, say) end when it is removed. */
  add(session: ForemanSession, ...owned: Disposable[]): void {
    void this.remove(session.root);
    const lifetime = new DisposableStore();
    lifetime.add(session.onDidChange(() => this.changed()));
    owned.forEach((item) => lifetime.add(item));
    this.bySession.set(session.root, { session, lifetime });
    this.throttle.sessionsMoved();
  }

  /** Removes a folder's session and resolves once it has let go (of the owner lock, say). */
  remove(root: string): Promise<void> {
    const entry = this.bySession.get(root);
    if (!entry) return Promise.resolve();
    entry.lifetime.dispose();
    this.bySession.delete(root);
    this.throttle.sessionsMoved();
    return entry.session.close();
  }

  private changed(): void {
    this.throttle.changed();
  }

  dispose(): void {
    for (const root of [...this.bySession.keys()]) void this.remove(root);
    this.fired.dispose();
    this.throttle.dispose();
    this.ticker.dispose();
    this.changeEmitter.dispose();
  }
}
