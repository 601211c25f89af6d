import type { StatusSnapshot } from '../../engine/statusView';
import { heartbeatExpected } from '../../shared/livenessWords';

/** How far back the dashboard's heartbeat timelines reach (the default DEAD threshold). */
export const heartbeatWindowMs = 5 * 60_000;
/** A worker that beats faster than this still keeps a bounded history. */
const maxBeatsPerWorker = 600;
const maxSpansPerWorker = 100;

/** A state a worker entered: when, and whether a heartbeat is due in it (none is in review, approved, idle or failed). */
export interface StateSpan {
  readonly at: number;
  readonly expected: boolean;
}

/**
 * The recent heartbeat times of each worker, in memory, learnt by watching the snapshots'
 * `lastHeartbeatMs` change (the engine keeps only the last one). Beats closer together than the
 * views' coalescing interval show as one; gaps are what the timeline is for, and those are seen.
 */
export class HeartbeatHistory {
  /** folder root → worker id → beat times, oldest first. */
  private readonly beats = new Map<string, Map<string, number[]>>();
  /** folder root → worker id → the states it entered, oldest first; the timeline shades silence only where a beat was due. */
  private readonly spans = new Map<string, Map<string, StateSpan[]>>();

  constructor(private readonly windowMs: number = heartbeatWindowMs) {}

  /** Records every worker whose last heartbeat moved since the previous observation. */
  observe(root: string, status: StatusSnapshot, now: number): void {
    let folder = this.beats.get(root);
    if (!folder) this.beats.set(root, (folder = new Map<string, number[]>()));
    const seen = new Set<string>();
    for (const worker of status.workers) {
      seen.add(worker.id);
      const at = worker.lastHeartbeatMs;
      if (at === null) continue;
      let times = folder.get(worker.id);
      if (!times) folder.set(worker.id, (times = []));
      const last = times[times.length - 1];
      if (last === undefined || at > last) times.push(at);
      this.trim(times, now);
    }
    for (const id of folder.keys()) if (!seen.has(id)) folder.delete(id);
    this.observeStates(root, status, now);
  }

  private observeStates(root: string, status: StatusSnapshot, now: number): void {
    let folder = this.spans.get(root);
    if (!folder) this.spans.set(root, (folder = new Map<string, StateSpan[]>()));
    for (const worker of status.workers) {
      let spans = folder.get(worker.id);
      if (!spans) folder.set(worker.id, (spans = []));
      const expected = heartbeatExpected(worker.state);
      const last = spans[spans.length - 1];
      if (!last || last.at !== worker.stateChangedAt || last.expected !== expected) spans.push({ at: worker.stateChangedAt, expected });
      this.trimSpans(spans, now);
    }
    const seen = new Set(status.workers.map((worker) => worker.id));
    for (const id of folder.keys()) if (!seen.has(id)) folder.delete(id);
  }

  /** The states a worker entered, oldest first: the one in force when the window starts, then every later one seen. */
  statesOf(root: string, workerId: string, now: number): readonly StateSpan[] {
    const spans = this.spans.get(root)?.get(workerId);
    if (!spans) return [];
    this.trimSpans(spans, now);
    return spans;
  }

  private trimSpans(spans: StateSpan[], now: number): void {
    // Keep the last span that starts before the window: it is the state the window opens in.
    const cutoff = now - this.windowMs;
    let drop = 0;
    while ((spans[drop + 1]?.at ?? Infinity) <= cutoff) drop++;
    if (spans.length - drop > maxSpansPerWorker) drop = spans.length - maxSpansPerWorker;
    if (drop > 0) spans.splice(0, drop);
  }

  /** Beat times of one worker within the window before `now`, oldest first. */
  of(root: string, workerId: string, now: number): readonly number[] {
    const times = this.beats.get(root)?.get(workerId);
    if (!times) return [];
    this.trim(times, now);
    return times;
  }

  /** Drops the history of folders that are no longer open. */
  retain(roots: ReadonlySet<string>): void {
    for (const root of this.beats.keys()) if (!roots.has(root)) this.beats.delete(root);
    for (const root of this.spans.keys()) if (!roots.has(root)) this.spans.delete(root);
  }

  private trim(times: number[], now: number): void {
    const cutoff = now - this.windowMs;
    let drop = 0;
    while ((times[drop] ?? Infinity) < cutoff) drop++;
    if (times.length - drop > maxBeatsPerWorker) drop = times.length - maxBeatsPerWorker;
    if (drop > 0) times.splice(0, drop);
  }
}
