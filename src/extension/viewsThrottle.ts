import { DisposableBase, Emitter } from '../base/lifetime';
import { type Clock, systemClock } from '../engine/ports';
import { Coalescer } from './dashboard/coalescer';
import { type StatusDelta, type ViewsChange, isNoChange } from './statusModel';

/** How often the views may redraw under a burst of engine events. */
export const coalesceMs = 250;

/** What the throttle reads when it runs: each session's rows changed since the last run. */
export interface ThrottledSession {
  readonly root: string;
  takeChanges(): StatusDelta;
}

/**
 * The one throttle between the engine's commits and every view (issue 31): the trees and the
 * dashboard hear the same `ViewsChange`, at the same moment, made of the ids the commits named.
 * The first change of a quiet period goes out on the next turn of the clock (a synchronous burst
 * is one change); later ones at most once per `intervalMs`. Nothing downstream throttles again.
 * Free of `vscode`, so tests run it on a manual clock.
 */
export class ViewsThrottle extends DisposableBase {
  private readonly emitter = this._register(new Emitter<ViewsChange>());
  readonly onDidChange = this.emitter.event;
  private sessionsChanged = false;
  private readonly runs: Coalescer;

  constructor(
    private readonly sessions: () => readonly ThrottledSession[],
    intervalMs: number = coalesceMs,
    clock: Clock = systemClock,
  ) {
    super();
    this.runs = this._register(new Coalescer(() => this.fire(), intervalMs, clock));
  }

  /** A session's state changed (its ids wait in the session until the run takes them). */
  changed(): void {
    if (!this.isDisposed) this.runs.request();
  }

  /** A folder came or went. */
  sessionsMoved(): void {
    this.sessionsChanged = true;
    this.changed();
  }

  /** Whether a run is waiting. */
  get pending(): boolean {
    return this.runs.pending;
  }

  private fire(): void {
    const deltas = new Map<string, StatusDelta>();
    for (const session of this.sessions()) {
      try {
        const delta = session.takeChanges();
        if (!isNoChange(delta)) deltas.set(session.root, delta);
      } catch {
        // A session that cannot read now (its store is closing) shows what it had; it reads again at its next change.
      }
    }
    const sessionsChanged = this.sessionsChanged;
    this.sessionsChanged = false;
    // Fired even when nothing changed (a liveness tick that moved only ages): each view looks at
    // the deltas and redraws nothing, and whoever waits for the read to be over hears it.
    this.emitter.fire({ deltas, sessionsChanged });
  }
}
