import { RunOnceScheduler } from '../base/async';
import { DisposableBase, Emitter, type Event, toDisposable } from '../base/lifetime';
import type { ChangedRows, Clock } from './ports';

/** How often a view of a shared store reads what the others did that they do not announce. */
export const remoteChangesPollMs = 3_000;

/**
 * How far behind the latest transition a look goes again: transactions commit out of `seq` order,
 * so a row may appear below one already seen. The writers in flight at once are a handful per
 * owner (one store each), far fewer than this.
 */
const lookBackSeqs = 500;
/** More new transitions than this at one look: views read everything instead. */
const maxTransitionsPerLook = 2_000;

/** What a view's timer reads of the shared store. */
export interface ExternalReads {
  /** Each heartbeat of another machine's worker, as comparable text (queries `listBeatSignsOffHost`). */
  beats(): ReadonlyMap<string, string>;
  /** The latest transition's seq. */
  lastSeq(): number;
  /** Transitions after `seq`, oldest first, at most `limit`. */
  transitionsAfter(seq: number, limit: number): ReadonlyArray<{ seq: number; entity_type: 'worker' | 'task'; entity_id: string }>;
}

/**
 * What other owners of a shared store changed, for this owner's views (issue 29). What the others
 * must act on arrives as notifications (`fire`). Heartbeats, and transitions only views care about
 * (a claim, an agent starting or submitting on its own machine), are not announced: while someone
 * listens, they are read every `remoteChangesPollMs` instead (the other machines' workers' beats,
 * and the transitions after the last one seen) and announced here like any other change. Nobody
 * listening (`foreman serve` has no views), nothing is read: an owner's cost for the team's
 * heartbeats and claims is a read or two per period per window, whatever the number of machines.
 */
export class ExternalChanges extends DisposableBase {
  private readonly emitter = this._register(new Emitter<ChangedRows | undefined>());
  private listeners = 0;
  private readonly poll: RunOnceScheduler | undefined;
  /** Each watched worker's beat, as last read; undefined until the first look after someone listens. */
  private beats: ReadonlyMap<string, string> | undefined;
  /** Transitions seen at or above `floor` (below it, none is looked at again). */
  private seen = new Set<number>();
  private floor = 0;

  constructor(
    /** undefined: one owner, nothing to watch. */
    private readonly reads: ExternalReads | undefined,
    clock: Clock,
    pollMs = remoteChangesPollMs,
  ) {
    super();
    this.poll = reads && this._register(new RunOnceScheduler(() => this.look(), pollMs, clock));
  }

  /** Another owner's change, or (undefined) rows not known: views read them again. */
  readonly event: Event<ChangedRows | undefined> = (listener) => {
    const subscription = this.emitter.event(listener);
    if (++this.listeners === 1) this.poll?.schedule();
    return toDisposable(() => {
      subscription.dispose();
      if (--this.listeners > 0) return;
      this.poll?.cancel();
      this.beats = undefined;
    });
  };

  fire(changed: ChangedRows | undefined): void {
    this.emitter.fire(changed);
  }

  private look(): void {
    if (!this.reads || this.listeners === 0) return;
    try {
      // The first look is the baseline: a view that just subscribed has read everything itself.
      const first = this.beats === undefined;
      const workers = this.movedBeats(this.reads.beats());
      const tasks = new Set<string>();
      const transitions = this.newTransitions(first);
      if (transitions === 'many') this.emitter.fire(undefined);
      else {
        for (const row of transitions) (row.entity_type === 'worker' ? workers : tasks).add(row.entity_id);
        if (!first && (workers.size || tasks.size)) {
          this.emitter.fire({ workers: [...workers], tasks: [...tasks], mayHaveWork: false, liveness: [], onlyForViews: true });
        }
      }
    } catch {
      // The server is away: the background work that needs it reports that; the views read on the next turn.
    }
    this.poll?.schedule();
  }

  private movedBeats(beats: ReadonlyMap<string, string>): Set<string> {
    const before = this.beats;
    this.beats = beats;
    return new Set(before ? [...beats].filter(([id, sign]) => before.get(id) !== sign).map(([id]) => id) : []);
  }

  private newTransitions(first: boolean): ReadonlyArray<{ entity_type: 'worker' | 'task'; entity_id: string }> | 'many' {
    const reads = this.reads;
    if (!reads) return [];
    if (first) {
      this.seen = new Set();
      this.floor = Math.max(0, reads.lastSeq() - lookBackSeqs);
    }
    const rows = reads.transitionsAfter(this.floor, maxTransitionsPerLook);
    const fresh = rows.filter((row) => !this.seen.has(row.seq));
    for (const row of fresh) this.seen.add(row.seq);
    const last = rows.at(-1)?.seq;
    if (last !== undefined) this.floor = Math.max(this.floor, last - lookBackSeqs);
    for (const seq of this.seen) if (seq <= this.floor) this.seen.delete(seq);
    if (rows.length === maxTransitionsPerLook) {
      // A burst past what one look takes: everything is read again, and the next look starts after it.
      this.floor = last ?? this.floor;
      this.seen.clear();
      return 'many';
    }
    return fresh;
  }
}
