import type { ForemanSession } from '../session';
import type { TransitionEvent } from '../../core/transitionLog';
import { RunOnceScheduler } from '../../base/async';
import { DisposableBase } from '../../base/lifetime';
import type { Metrics } from '../../engine/metrics';
import { type Clock, systemClock } from '../../engine/ports';
import type { TransitionItem } from '../../shared/protocol';

/** The transition log and metrics of one folder, as last read. */
export interface ActivityData {
  /** Oldest first; at most `keep` of the newest. */
  readonly transitions: readonly TransitionItem[];
  readonly metrics: Metrics | undefined;
  readonly loadedAt: number;
}

export interface ActivityFeedOptions {
  readonly log: (line: string) => void;
  /** Called after each read, so the host can send a new snapshot. */
  readonly onDidLoad: () => void;
  readonly clock?: Clock;
  /** Reads run at most this often, and less often when a read is slow (see `invalidate`). */
  readonly minIntervalMs?: number;
  readonly keep?: number;
}

/**
 * Reads the transition log and metrics through the session's request API (the same reads the CLI
 * makes), throttled: a burst of changes causes one read, and a read that took `t` ms waits at
 * least 10·t before the next, so a long history never keeps the extension host busy.
 */
export class ActivityFeed extends DisposableBase {
  private current: ActivityData | undefined;
  private inFlight = false;
  private dirty = false;
  private nextAllowedAt = 0;
  /** The seq of the last transition read: the next read asks only for what came after it. */
  private lastSeq = 0;
  private readonly clock: Clock;
  private readonly reader: RunOnceScheduler;
  private readonly minIntervalMs: number;
  private readonly keep: number;

  constructor(
    private readonly session: Pick<ForemanSession, 'execute'>,
    private readonly options: ActivityFeedOptions,
  ) {
    super();
    this.clock = options.clock ?? systemClock;
    this.reader = this._register(new RunOnceScheduler(() => void this.load(), 0, this.clock));
    this.minIntervalMs = options.minIntervalMs ?? 1_000;
    this.keep = options.keep ?? 20_000;
  }

  data(): ActivityData | undefined {
    return this.current;
  }

  /** The log changed: read it again once the throttle allows. */
  invalidate(): void {
    if (this.isDisposed) return;
    this.dirty = true;
    if (this.inFlight || this.reader.isScheduled) return;
    this.reader.schedule(Math.max(0, this.nextAllowedAt - this.clock.now()));
  }

  private async load(): Promise<void> {
    if (this.isDisposed) return;
    this.dirty = false;
    this.inFlight = true;
    const started = this.clock.now();
    try {
      const [transitions, metrics] = await Promise.all([
        // Only what is new since the last read: the log grows with history, a read must not.
        this.session.execute({ command: 'transitions', args: { afterSeq: this.lastSeq, limit: this.keep, latest: true }, actor: 'vscode' }),
        this.session.execute({ command: 'metrics', args: {}, actor: 'vscode' }),
      ]);
      if (this.isDisposed) return;
      if (!transitions.ok) this.options.log(`dashboard: could not read transitions: ${transitions.message}`);
      if (!metrics.ok) this.options.log(`dashboard: could not read metrics: ${metrics.message}`);
      const fresh = transitions.ok ? transitions.value.map(toTransitionItem) : [];
      // A full page may have skipped some: then the page replaces what was kept instead of following it.
      const kept = fresh.length >= this.keep ? [] : (this.current?.transitions ?? []);
      this.lastSeq = fresh.at(-1)?.seq ?? this.lastSeq;
      this.current = {
        transitions: [...kept, ...fresh].slice(-this.keep),
        metrics: metrics.ok ? metrics.value : this.current?.metrics,
        loadedAt: this.clock.now(),
      };
    } catch (error) {
      this.options.log(`dashboard: activity read failed: ${String(error)}`);
    } finally {
      this.inFlight = false;
      const took = this.clock.now() - started;
      this.nextAllowedAt = this.clock.now() + Math.max(this.minIntervalMs, 10 * took);
    }
    if (this.isDisposed) return;
    this.options.onDidLoad();
    if (this.dirty) this.invalidate();
  }
}

export function toTransitionItem(event: TransitionEvent): TransitionItem {
  return {
    seq: event.seq,
    at: Date.parse(event.timestamp),
    entity: event.event_type === 'worker_state_transition' ? 'worker' : 'task',
    id: event.entity_id,
    from: event.from_state,
    to: event.to_state,
    trigger: event.trigger,
    actor: event.actor,
    reason: event.reason ?? null,
    attempt: event.attempt ?? null,
    severity: event.severity,
  };
}
