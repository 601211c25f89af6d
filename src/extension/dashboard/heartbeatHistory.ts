import type { StatusSnapshot } from '../../engine/statusView';

/** How far back the dashboard's heartbeat timelines reach (the default DEAD threshold). */
export const heartbeatWindowMs = 5 * 60_000;
/** A worker that beats faster than this still keeps a bounded history. */
const maxBeatsPerWorker = 600;

/**
 * The recent heartbeat times of each worker, in memory, learnt by watching the snapshots'
 * `lastHeartbeatMs` change (the engine keeps only the last one). Beats closer together than the
 * views' coalescing interval show as one; gaps are what the timeline is for, and those are seen.
 */
export class HeartbeatHistory {
  /** folder root → worker id → beat times, oldest first. */
  private readonly beats = new Map<string, Map<string, number[]>>();

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
  }

  private trim(times: number[], now: number): void {
    const cutoff = now - this.windowMs;
    let drop = 0;
    while (drop < times.length && times[drop]! < cutoff) drop++;
    if (times.length - drop > maxBeatsPerWorker) drop = times.length - maxBeatsPerWorker;
    if (drop > 0) times.splice(0, drop);
  }
}
